package io.schedlens.simulator.cluster;

import java.util.List;

/**
 * What each simulated GPU is doing now, for the dcgm-exporter endpoint: which pod's container holds
 * it (dcgm-exporter learns that from the kubelet's pod-resources API) and its activity. Published
 * by the simulation thread as an immutable list, read by HTTP threads.
 */
public final class GpuView {

  /** What the GPU's holder is doing. */
  public enum Activity {
    /** No container holds it. */
    FREE,
    /** Container started, model or data loading: little compute. */
    LOADING,
    /** An inference server, busy in proportion to its load. */
    SERVING,
    /** A batch job computing. */
    WORKING,
    /** The container is stopping. */
    STOPPING
  }

  /**
   * One GPU, or one MIG instance of it, or one pod's replica of a time-sliced GPU.
   *
   * @param index the GPU's index on its node
   * @param load for SERVING: offered requests per second over capacity (0..1+)
   * @param migProfile the MIG instance's profile (GPU_I_PROFILE), or null for a GPU
   * @param migInstance the MIG instance's id (GPU_I_ID), or null
   * @param vgpu the replica of a time-sliced GPU the pod holds (dcgm-exporter's {@code vgpu} with
   *     {@code --kubernetes-virtual-gpus}), or null: then the GPU is not time-sliced
   */
  public record Slot(
      String node,
      int index,
      String uuid,
      String model,
      String namespace,
      String pod,
      String container,
      Activity activity,
      double load,
      String migProfile,
      Integer migInstance,
      Integer vgpu) {

    /** A whole GPU. */
    public Slot(
        String node,
        int index,
        String uuid,
        String model,
        String namespace,
        String pod,
        String container,
        Activity activity,
        double load) {
      this(node, index, uuid, model, namespace, pod, container, activity, load, null, null, null);
    }
  }

  private volatile List<Slot> slots = List.of();
  private volatile boolean watched = true;

  /**
   * Nobody reads this view (a what-if run, which has no dcgm-exporter): the simulation stops
   * publishing it, which at a thousand GPUs is most of its work.
   */
  public void unwatch() {
    watched = false;
  }

  boolean watched() {
    return watched;
  }

  public List<Slot> slots() {
    return slots;
  }

  void publish(List<Slot> now) {
    slots = List.copyOf(now);
  }
}
