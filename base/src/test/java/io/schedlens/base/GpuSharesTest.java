package io.schedlens.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The part of a GPU each device is, after NVIDIA's Multi-Instance GPU User Guide ("Supported MIG
 * Profiles": the fraction of SMs of each profile) and the device plugin's sharing.
 */
class GpuSharesTest {

  /**
   * A pod's share as the timeline makes it: the device's part ({@link GpuShares#device}), split
   * among the replicas of a shared resource ({@link GpuShares#split}).
   */
  static GpuShares.Share share(
      String resource,
      List<String> sharedResources,
      String sampledProfile,
      String model,
      Integer replicas) {
    return GpuShares.split(
        GpuShares.device(resource, sampledProfile, model),
        resource != null && sharedResources.contains(resource),
        replicas);
  }

  @ParameterizedTest(name = "{0} on {1}: {2}/{3}")
  @CsvSource({
    // the GPU Operator's mixed strategy, the model from its node label or dcgm-exporter
    "nvidia.com/mig-1g.10gb, NVIDIA H100 80GB HBM3, 1, 7",
    "nvidia.com/mig-3g.40gb, NVIDIA A100 80GB PCIe, 3, 7",
    "nvidia.com/mig-4g.40gb, NVIDIA A100 80GB PCIe, 4, 7",
    "nvidia.com/mig-7g.80gb, NVIDIA H100 80GB HBM3, 7, 7",
    "nvidia.com/mig-1g.18gb, NVIDIA H200, 1, 7",
    "nvidia.com/mig-2g.45gb, NVIDIA B200, 2, 7",
    "nvidia.com/mig-1g.10gb+me, NVIDIA A100-SXM4-80GB, 1, 7",
    "nvidia.com/mig-1g.6gb, NVIDIA A30, 1, 4",
    "nvidia.com/mig-2g.12gb, NVIDIA-A30, 2, 4",
    // without a model: A30's profiles are A30's alone
    "nvidia.com/mig-1g.6gb, , 1, 4",
    "nvidia.com/mig-2g.12gb+me, , 2, 4",
    "nvidia.com/mig-4g.24gb, , 4, 4",
    "nvidia.com/mig-1g.5gb, , 1, 7",
    // a compute instance of a GPU instance: its own compute slices
    "nvidia.com/mig-1c.3g.40gb, NVIDIA A100 80GB PCIe, 1, 7",
  })
  void shouldGiveAMigDeviceItsComputeSlicesOverTheGpus(
      String resource, String model, int slices, int of) {
    GpuShares.Share s = share(resource, List.of(), null, model, null);
    assertThat(s.share()).isCloseTo((double) slices / of, within(1e-12));
    assertThat(s.shared()).isFalse();
    assertThat(s.assumed()).isFalse();
  }

  @Test
  void shouldTakeASingleStrategyNodesSliceFromItsSamplesProfile() {
    GpuShares.Share s =
        share("nvidia.com/gpu", List.of(), "1g.10gb", "NVIDIA H100 80GB HBM3", null);
    assertThat(s.share()).isCloseTo(1.0 / 7, within(1e-12));
  }

  @Test
  void shouldCountAReplicaAsItsPartWhenItsReplicasAreKnownElseAsAWholeGpuAssumed() {
    List<String> shared = GpuShares.DEFAULT_SHARED;
    assertThat(share("nvidia.com/gpu.shared", shared, null, null, 4))
        .isEqualTo(new GpuShares.Share(0.25, 1, true, false));
    assertThat(share("nvidia.com/gpu.shared", shared, null, null, null))
        .isEqualTo(new GpuShares.Share(1, 1, true, true));
    // time-slicing without renaming: nvidia.com/gpu with replicas on its node
    assertThat(share("nvidia.com/gpu", shared, null, null, 2))
        .isEqualTo(new GpuShares.Share(0.5, 1, true, false));
    // the label's value on a node without sharing (k8s-device-plugin internal/lm/resource.go)
    assertThat(share("nvidia.com/gpu", shared, null, null, 1)).isEqualTo(GpuShares.Share.WHOLE_GPU);
    assertThat(share("nvidia.com/gpu", shared, null, null, null))
        .isEqualTo(GpuShares.Share.WHOLE_GPU);
  }

  @Test
  void shouldDivideATimeSlicedMigSliceAmongItsReplicas() {
    // mixed strategy with time-slicing of a MIG resource: nvidia.com/mig-1g.10gb.replicas = 2
    GpuShares.Share s =
        share("nvidia.com/mig-1g.10gb", List.of(), null, "NVIDIA-H100-80GB-HBM3", 2);
    assertThat(s.share()).isCloseTo(1.0 / 14, within(1e-12));
    assertThat(s.device()).isCloseTo(1.0 / 7, within(1e-12));
    assertThat(s.shared()).isTrue();
  }

  @Test
  void shouldCountAGpuSamplesShowedSharedAsAssumedWholeWithoutReplicas() {
    assertThat(GpuShares.split(1, true, null)).isEqualTo(new GpuShares.Share(1, 1, true, true));
    assertThat(GpuShares.split(1, true, 4)).isEqualTo(new GpuShares.Share(0.25, 1, true, false));
  }

  @Test
  void shouldKnowWhichResourcesAreGpus() {
    List<String> shared = GpuShares.DEFAULT_SHARED;
    assertThat(GpuShares.isGpu("nvidia.com/gpu", shared)).isTrue();
    assertThat(GpuShares.isGpu("nvidia.com/mig-1g.10gb", shared)).isTrue();
    assertThat(GpuShares.isGpu("nvidia.com/gpu.shared", shared)).isTrue();
    assertThat(GpuShares.isGpu("nvidia.com/gpu.shared", List.of())).isFalse();
    assertThat(GpuShares.isGpu("cpu", shared)).isFalse();
    assertThat(GpuShares.isGpu(null, shared)).isFalse();
    assertThat(GpuShares.migProfile("nvidia.com/mig-3g.40gb")).isEqualTo("3g.40gb");
    assertThat(GpuShares.migProfile("nvidia.com/gpu")).isNull();
  }
}
