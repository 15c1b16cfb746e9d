package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The chart as {@code helm install} puts it into a cluster ({@link ChartCluster}): what Helm
 * creates depends on what the cluster serves, as Helm's {@code .Capabilities} tell it.
 */
class ChartInstallTest {

  private static final List<String> MONITORING = List.of("ServiceMonitor", "PodMonitor", "PrometheusRule");

  @Test
  void shouldCreateMonitoringObjectsWhereThePrometheusOperatorIsServed() {
    try (ChartCluster cluster = ChartCluster.start().installPrometheusOperator()) {
      cluster.install(Chart.Install.of());
      assertThat(cluster.objects("monitoring.coreos.com/v1", "ServiceMonitor"))
          .extracting(o -> o.getMetadata().getName())
          .containsExactlyInAnyOrder("schedlens-streams", "schedlens-collector");
      assertThat(cluster.objects("monitoring.coreos.com/v1", "PodMonitor")).hasSize(1);
      assertThat(cluster.objects("monitoring.coreos.com/v1", "PrometheusRule")).hasSize(1);
    }
  }

  @Test
  void shouldInstallWithoutMonitoringObjectsWhereThePrometheusOperatorIsNot() {
    try (ChartCluster cluster = ChartCluster.start()) {
      // Were they rendered, Helm would refuse the install: no mapping for monitoring.coreos.com/v1.
      cluster.install(Chart.Install.of());
      assertThat(cluster.objects("apps/v1", "Deployment"))
          .extracting(o -> o.getMetadata().getName())
          .containsExactly("schedlens-collector");
      assertThat(cluster.objects("monitoring.coreos.com/v1", "ServiceMonitor")).isEmpty();
    }
  }

  @Test
  void shouldRenderMonitoringObjectsWithoutAClusterOnlyWhenAskedTo() throws IOException {
    Manifests plain = Manifests.render(Chart.Install.of());
    Manifests gitOps = Manifests.render(Chart.Install.of().with("monitoring.assumeOperator", "true"));
    for (String kind : MONITORING) {
      assertThat(plain.custom(kind)).as(kind + " without a cluster").isEmpty();
      assertThat(gitOps.custom(kind)).as(kind + " with monitoring.assumeOperator").isNotEmpty();
    }
  }
}
