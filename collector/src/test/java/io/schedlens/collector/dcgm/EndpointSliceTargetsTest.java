package io.schedlens.collector.dcgm;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Discovery with default settings finds both ways clusters run dcgm-exporter: the GPU Operator's
 * Service and the standalone chart's (the slices under {@code src/test/resources/discovery}, shaped
 * as the EndpointSlice controller publishes them from those Services).
 */
class EndpointSliceTargetsTest {

  private static final CollectorConfig DEFAULTS =
      CollectorConfig.from(
          CommandLineSettings.load(
              CollectorConfig.DEF, List.of("--intake-auth", "none"), Map.of()));

  static EndpointSlice slice(String file) throws IOException {
    try (InputStream in =
        EndpointSliceTargetsTest.class.getResourceAsStream("/discovery/" + file)) {
      return new KubernetesSerialization().unmarshal(in, EndpointSlice.class);
    }
  }

  @Test
  void shouldSelectBothTheGpuOperatorsAndTheChartsServiceByDefault() throws IOException {
    List<String> selectors = DEFAULTS.dcgmServiceSelectors();
    assertThat(selectors)
        .containsExactly("app=nvidia-dcgm-exporter", "app.kubernetes.io/name=dcgm-exporter");
    for (String file :
        List.of("gpu-operator-endpointslice.yaml", "dcgm-exporter-chart-endpointslice.yaml")) {
      Map<String, String> labels = slice(file).getMetadata().getLabels();
      assertThat(selectors)
          .as(file)
          .anySatisfy(
              s -> {
                String[] kv = s.split("=", 2);
                assertThat(labels).containsEntry(kv[0], kv[1]);
              });
    }
  }

  @Test
  void shouldScrapeTheGpuOperatorsReadyExporterOnItsGpuMetricsPort() throws IOException {
    List<ScrapeTarget> targets =
        EndpointSliceTargets.targetsOf(
            slice("gpu-operator-endpointslice.yaml"),
            DEFAULTS.getList(CollectorConfig.DCGM_PORT_NAME),
            DEFAULTS.getString(CollectorConfig.DCGM_PATH));
    assertThat(targets)
        .containsExactly(new ScrapeTarget("http://10.244.3.17:9400/metrics", "gpu-node-7"));
  }

  @Test
  void shouldScrapeTheChartsExporterOnItsMetricsPort() throws IOException {
    List<ScrapeTarget> targets =
        EndpointSliceTargets.targetsOf(
            slice("dcgm-exporter-chart-endpointslice.yaml"),
            DEFAULTS.getList(CollectorConfig.DCGM_PORT_NAME),
            DEFAULTS.getString(CollectorConfig.DCGM_PATH));
    assertThat(targets)
        .containsExactly(new ScrapeTarget("http://10.244.5.21:9400/metrics", "gpu-node-9"));
  }

  @Test
  void shouldSkipASliceWithoutANamedMetricsPortAndTakeTheFirstWhenNoNameIsGiven()
      throws IOException {
    EndpointSlice other = slice("gpu-operator-endpointslice.yaml");
    other.getPorts().get(0).setName("http");
    assertThat(EndpointSliceTargets.targetsOf(other, List.of("gpu-metrics", "metrics"), "/metrics"))
        .isEmpty();
    assertThat(EndpointSliceTargets.targetsOf(other, List.of(), "/metrics"))
        .extracting(ScrapeTarget::url)
        .containsExactly("http://10.244.3.17:9400/metrics");
  }

  @Test
  void shouldRefuseDiscoveryWithoutASelector() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                CollectorConfig.from(
                    CommandLineSettings.load(
                        CollectorConfig.DEF,
                        List.of("--intake-auth", "none", "--dcgm-service-selector", " ; "),
                        Map.of())))
        .hasMessageContaining("dcgm.service.selector");
  }
}
