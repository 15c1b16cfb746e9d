package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The labels NVIDIA's GPU feature discovery writes, as k8s-device-plugin's internal/lm/resource.go
 * makes them: {@code <resource>.replicas}, {@code .sharing-strategy}, {@code .product} per resource
 * served, {@code -SHARED} appended to a shared, unrenamed resource's product.
 */
class NodeGpuLabelsTest {

  /** A node time-slicing its T4 four ways under nvidia.com/gpu (not renamed). */
  static final Map<String, String> TIME_SLICED =
      Map.of(
          "nvidia.com/gpu.count", "1",
          "nvidia.com/gpu.replicas", "4",
          "nvidia.com/gpu.sharing-strategy", "time-slicing",
          "nvidia.com/gpu.product", "Tesla-T4-SHARED",
          "kubernetes.io/hostname", "gpu-node-1");

  @Test
  void shouldReadTheReplicasStrategyAndProductOfTheResourceAPodAskedFor() {
    assertThat(NodeGpuLabels.of(TIME_SLICED, "nvidia.com/gpu"))
        .isEqualTo(new NodeGpuLabels(4, "time-slicing", "Tesla-T4-SHARED"));
  }

  @Test
  void shouldReadAMigProfilesOwnLabelsAndTheGpusModelWhenTheProfileHasNone() {
    Map<String, String> mixed =
        Map.of(
            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
            "nvidia.com/mig-1g.10gb.count", "7",
            "nvidia.com/mig-1g.10gb.replicas", "2",
            "nvidia.com/mig-1g.10gb.sharing-strategy", "mps");
    assertThat(NodeGpuLabels.of(mixed, "nvidia.com/mig-1g.10gb"))
        .isEqualTo(new NodeGpuLabels(2, "mps", "NVIDIA-H100-80GB-HBM3"));
  }

  @Test
  void shouldSayNothingOfANodeWithoutTheLabelsOrAPodWithoutAGpu() {
    assertThat(NodeGpuLabels.of(Map.of("kubernetes.io/hostname", "cpu-1"), "nvidia.com/gpu"))
        .isEqualTo(NodeGpuLabels.NONE);
    assertThat(NodeGpuLabels.of(TIME_SLICED, null)).isEqualTo(NodeGpuLabels.NONE);
    // sharing disabled: the device plugin writes 0 replicas
    assertThat(
            NodeGpuLabels.of(Map.of("nvidia.com/gpu.replicas", "0"), "nvidia.com/gpu").replicas())
        .isNull();
    assertThat(
            NodeGpuLabels.of(Map.of("nvidia.com/gpu.replicas", "x"), "nvidia.com/gpu").replicas())
        .isNull();
  }

  @Test
  void shouldKeepOfANodeOnlyItsNameAndNvidiaLabels() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("gpu-node-1")
            .withLabels(TIME_SLICED)
            .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
            .endMetadata()
            .withNewSpec()
            .withPodCIDR("10.0.0.0/24")
            .endSpec()
            .withNewStatus()
            .addToCapacity("nvidia.com/gpu", new Quantity("4"))
            .endStatus()
            .build();

    Node kept = NodeGpuLabels.retainRead(node);

    assertThat(kept.getMetadata().getName()).isEqualTo("gpu-node-1");
    assertThat(kept.getMetadata().getLabels())
        .containsOnlyKeys(
            "nvidia.com/gpu.count",
            "nvidia.com/gpu.replicas",
            "nvidia.com/gpu.sharing-strategy",
            "nvidia.com/gpu.product");
    assertThat(kept.getMetadata().getAnnotations()).isNull();
    assertThat(kept.getSpec()).isNull();
    assertThat(kept.getStatus()).isNull();
    assertThat(NodeGpuLabels.of(kept.getMetadata().getLabels(), "nvidia.com/gpu").replicas())
        .isEqualTo(4);
  }
}
