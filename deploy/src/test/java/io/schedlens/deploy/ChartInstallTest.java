package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart as {@code helm install} puts it into a cluster ({@link ChartCluster}): what Helm
 * creates depends on what the cluster serves, as Helm's {@code .Capabilities} tell it.
 */
class ChartInstallTest {

  private static final List<String> MONITORING =
      List.of("ServiceMonitor", "PodMonitor", "PrometheusRule");

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

  /**
   * Staging beside production: two releases in their own namespaces, their dashboards both in
   * Grafana's, the collector's Roles in the GPU Operator's. Helm refuses an install whose object
   * exists already and belongs to another release, so both installing is the check; then no two
   * objects share a kind, namespace and name.
   */
  @Test
  void shouldInstallTwoReleasesIntoOneClusterWithoutACollision() {
    try (ChartCluster cluster = ChartCluster.start().installPrometheusOperator()) {
      cluster.install(Chart.Install.of("production").with("dashboards.namespace", "monitoring"));
      cluster.install(
          new Chart.Install(
                  "staging", "schedlens-staging", List.of(Chart.example("small")), Map.of())
              .with("dashboards.namespace", "monitoring"));
      assertThat(ReleaseWiring.problems(cluster.all())).isEmpty();
      Map<String, String> owners = ReleaseWiring.ownersByObject(cluster.all());
      assertThat(owners.values()).containsOnly("schedlens", "staging");
      assertThat(owners.keySet())
          .contains(
              "ClusterRole/schedlens-collector",
              "ClusterRole/staging-schedlens-collector",
              "Role/gpu-operator/schedlens-collector-dcgm-discovery",
              "Role/gpu-operator/staging-schedlens-collector-dcgm-discovery",
              "ConfigMap/monitoring/staging-schedlens-dashboard-pipeline-health",
              "Kafka/schedlens-staging/staging-schedlens",
              "KafkaTopic/schedlens-staging/staging-schedlens-pods");
    }
  }

  /**
   * Two releases in one namespace: every object's name differs; each Service, PodDisruptionBudget,
   * NetworkPolicy and ServiceMonitor selects its own release's pods (or Services) and not the
   * other's; each binding names a role and a ServiceAccount that are there. Strimzi's node pools
   * are named per namespace: the second release names its own, and without it Helm refuses the
   * install, naming the object.
   */
  @Test
  void shouldKeepTwoReleasesInOneNamespaceApart() {
    try (ChartCluster cluster = ChartCluster.start().installPrometheusOperator()) {
      cluster.install(Chart.Install.of("production"));
      Chart.Install canary =
          new Chart.Install("canary", "schedlens", List.of(Chart.example("production")), Map.of());
      assertThatThrownBy(() -> cluster.install(canary))
          .hasMessageContaining("KafkaNodePool")
          .hasMessageContaining("dual-role");
      cluster.install(canary.with("kafka.strimzi.nodePoolName", "canary-dual-role"));
      assertThat(ReleaseWiring.ownersByObject(cluster.all()).values())
          .containsOnly("schedlens", "canary");
      assertThat(ReleaseWiring.problems(cluster.all())).isEmpty();
    }
  }

  @Test
  void shouldRenderMonitoringObjectsWithoutAClusterOnlyWhenAskedTo() throws IOException {
    Manifests plain = Manifests.render(Chart.Install.of());
    Manifests gitOps =
        Manifests.render(Chart.Install.of().with("monitoring.assumeOperator", "true"));
    for (String kind : MONITORING) {
      assertThat(plain.custom(kind)).as(kind + " without a cluster").isEmpty();
      assertThat(gitOps.custom(kind)).as(kind + " with monitoring.assumeOperator").isNotEmpty();
    }
  }
}
