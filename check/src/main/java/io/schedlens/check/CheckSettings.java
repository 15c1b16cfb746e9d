package io.schedlens.check;

import java.util.List;
import java.util.Set;

/**
 * What the check takes as given about the cluster and its GPUs.
 *
 * @param gpuResources extended resources that are GPUs; an entry ending in {@code *} is a prefix
 *     ({@code nvidia.com/mig-*} for MIG profiles)
 * @param gpuNodeLabels node labels that mark GPU nodes: a workload selecting one of them (by node
 *     selector or required node affinity) means to run on a GPU node
 * @param gpuTaints taint keys that keep other pods off GPU nodes: a workload tolerating one means
 *     to run on a GPU node
 * @param externalPriorityClasses PriorityClasses the cluster has although the manifests do not
 *     define them
 * @param servingLabel a label ({@code key=value}) that marks a workload as serving even where no
 *     Service in the manifests selects it
 */
public record CheckSettings(
    List<String> gpuResources,
    List<String> gpuNodeLabels,
    List<String> gpuTaints,
    Set<String> externalPriorityClasses,
    String servingLabel) {

  public static final List<String> DEFAULT_GPU_RESOURCES =
      List.of("nvidia.com/gpu", "nvidia.com/mig-*", "amd.com/gpu", "gpu.intel.com/*");
  public static final List<String> DEFAULT_GPU_NODE_LABELS =
      List.of(
          "nvidia.com/gpu.present",
          "nvidia.com/gpu.product",
          "nvidia.com/gpu.count",
          "cloud.google.com/gke-accelerator",
          "k8s.amazonaws.com/accelerator",
          "karpenter.k8s.aws/instance-gpu-count",
          "amd.com/gpu.present");
  public static final List<String> DEFAULT_GPU_TAINTS =
      List.of("nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915");
  public static final String DEFAULT_SERVING_LABEL = "schedlens.io/serving=true";

  public static CheckSettings defaults() {
    return new CheckSettings(
        DEFAULT_GPU_RESOURCES,
        DEFAULT_GPU_NODE_LABELS,
        DEFAULT_GPU_TAINTS,
        Set.of(),
        DEFAULT_SERVING_LABEL);
  }

  public CheckSettings withExternalPriorityClasses(Set<String> classes) {
    return new CheckSettings(gpuResources, gpuNodeLabels, gpuTaints, classes, servingLabel);
  }

  /** Whether a resource name is a GPU. */
  public boolean isGpuResource(String resource) {
    for (String r : gpuResources) {
      if (r.endsWith("*")
          ? resource.startsWith(r.substring(0, r.length() - 1))
          : resource.equals(r)) {
        return true;
      }
    }
    return false;
  }
}
