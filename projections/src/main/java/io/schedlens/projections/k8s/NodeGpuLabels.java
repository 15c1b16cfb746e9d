package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.schedlens.avro.PodObservation;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node's labels say of the GPUs of one resource on it, as NVIDIA's GPU feature discovery and
 * device plugin write them (k8s-device-plugin, internal/lm/resource.go, and its README's "Catalog
 * of Labels"): for each resource {@code R} it serves, {@code R.replicas} (the replicas of each GPU,
 * 1 without sharing), {@code R.sharing-strategy} ({@code none}, {@code time-slicing} or {@code
 * mps}) and {@code R.product} (the model, with {@code -SHARED} appended when shared and not
 * renamed). A mixed-strategy MIG node labels each profile's resource ({@code
 * nvidia.com/mig-1g.10gb.replicas}); {@code nvidia.com/gpu.product} names the GPU model whatever
 * the resource. Pure.
 *
 * @param replicas replicas per GPU, or null when the node does not say
 * @param sharing the sharing strategy, or null
 * @param product the GPU model, or null
 */
public record NodeGpuLabels(Integer replicas, String sharing, String product) {

  /** The labels read, all under this prefix; the collector's node cache keeps no others. */
  public static final String PREFIX = "nvidia.com/";

  private static final String WHOLE_PRODUCT = "nvidia.com/gpu.product";

  public static final NodeGpuLabels NONE = new NodeGpuLabels(null, null, null);

  /** What {@code labels} say of {@code resource}; {@link #NONE} without a resource or labels. */
  public static NodeGpuLabels of(Map<String, String> labels, String resource) {
    if (resource == null || labels == null || labels.isEmpty()) {
      return NONE;
    }
    String product = labels.get(resource + ".product");
    return new NodeGpuLabels(
        replicas(labels.get(resource + ".replicas")),
        emptyToNull(labels.get(resource + ".sharing-strategy")),
        emptyToNull(product != null ? product : labels.get(WHOLE_PRODUCT)));
  }

  /** Sets the observation's {@code gpuReplicas}, {@code gpuSharing} and {@code gpuProduct}. */
  public void tell(PodObservation p) {
    p.setGpuReplicas(replicas);
    p.setGpuSharing(sharing);
    p.setGpuProduct(product);
  }

  /**
   * Drops, in place, every part of a node but its name and the labels under {@link #PREFIX}: the
   * node cache then holds what this reads and nothing else (a node's status alone is kilobytes).
   */
  public static Node retainRead(Node node) {
    var meta = node.getMetadata();
    if (meta != null) {
      meta.setManagedFields(null);
      meta.setAnnotations(null);
      Map<String, String> kept = new TreeMap<>();
      if (meta.getLabels() != null) {
        meta.getLabels()
            .forEach(
                (k, v) -> {
                  if (k.startsWith(PREFIX)) {
                    kept.put(k, v);
                  }
                });
      }
      meta.setLabels(kept);
    }
    node.setSpec(null);
    node.setStatus(null);
    return node;
  }

  private static Integer replicas(String value) {
    if (value == null) {
      return null;
    }
    try {
      int n = Integer.parseInt(value.trim());
      return n >= 1 ? n : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
