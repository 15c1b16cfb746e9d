package io.schedlens.timeline;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.base.GpuShares;

/**
 * A pod's GPU-seconds as GPU-equivalents (docs/design.md section 4, "Shared GPUs"): its devices
 * times the part of a physical GPU each is ({@code gpuShare}) times the time. A MIG instance's part
 * comes from its samples ({@code GPU_I_PROFILE} with {@code modelName}: a single-strategy MIG node
 * names its slices {@code nvidia.com/gpu}) or, before any, from the resource it requested ({@code
 * nvidia.com/mig-1g.10gb}) and the node's GPU model; a time-sliced or MPS replica is its device
 * over the node's replicas ({@code <resource>.replicas}), or the whole device, assumed, when they
 * are not known, and says {@code gpuShared}. Busy time stays, in the state, the pod's part of its
 * device's time (a MIG instance's utilisation is of the instance; a shared GPU's is split among the
 * pods holding it); the device's part turns it into the physical GPU's. Pure.
 */
final class GpuEquivalents {

  private GpuEquivalents() {}

  /**
   * GPU-equivalent seconds as docs/design.md section 4 counts them (all null without GPUs), and the
   * share they were counted with.
   */
  record Seconds(
      GpuShares.Share share,
      Double allocated,
      Double busy,
      Double idle,
      Double unsampled,
      Double wasted,
      Double wastedBusy) {}

  /** The resource a pod requested: an older collector's observations name none. */
  static String resource(TimelineState s) {
    String r = s.getIdentity().getGpuResource();
    return r == null && s.getIdentity().getGpus() > 0 ? GpuShares.WHOLE : r;
  }

  /**
   * The part of a physical GPU each of the pod's devices is: the device's (a MIG instance's slices
   * from its samples, else from the resource and the node's GPU model), divided among the node's
   * replicas when the GPU is shared (a shared resource, a node whose replicas are more than 1, or
   * samples that showed other pods on it).
   */
  static GpuShares.Share share(TimelineState s) {
    String resource = resource(s);
    if (resource == null) {
      return GpuShares.Share.WHOLE_GPU;
    }
    var id = s.getIdentity();
    Double sampled = s.getGpu().getSampledShare();
    double device =
        sampled != null ? sampled : GpuShares.device(resource, null, id.getGpuProduct());
    return GpuShares.split(
        device, id.getGpuShared() || s.getGpu().getSampledShared(), id.getGpuReplicas());
  }

  /** Sets the timeline's {@code gpuResource}, {@code gpuShare} and {@code gpuShared}. */
  static void describe(PodTimeline t, TimelineState s, GpuShares.Share share) {
    String resource = resource(s);
    if (resource == null) {
      return;
    }
    t.setGpuResource(resource);
    t.setGpuShare(share.share());
    t.setGpuShared(share.shared());
  }

  /**
   * The pod's GPU-seconds.
   *
   * @param canComplete whether its workload completes (a Job's pod, a bare pod): only such a pod's
   *     work can be wasted
   */
  static Seconds seconds(
      TimelineState s,
      boolean canComplete,
      Long running,
      Long terminated,
      Disruption disruption,
      long now) {
    GpuShares.Share part = share(s);
    if (running == null || s.getIdentity().getGpus() <= 0) {
      return new Seconds(part, null, null, null, null, null, null);
    }
    double share = part.share();
    double gpus = s.getIdentity().getGpus() * share;
    long end = terminated != null ? terminated : Math.max(now, running);
    double allocated = gpus * Math.max(0, end - running) / 1000.0;
    // Busy is kept as the pod's part of its device's time (a shared GPU's split among its holders),
    // so the device's part of the GPU turns it into the GPU's. On a shared GPU the pod may have
    // used more than its replica while other replicas were free: it is counted up to what it was
    // allocated (below), the rest belonging to no pod.
    double device = part.device();
    double busy = GpuBusy.total(s) * device;
    Double idle;
    Double unsampled = null;
    // Time no sample stands for is missing data, not idle: idle is what samples saw idle. (The
    // contract's allocated - busy counts it as idle; see the README, "GPU time without samples".)
    // A first sample's span may reach back before runningAt, hence the bound by allocated.
    Double sampled = GpuBusy.sampled(s);
    if (sampled == null) {
      busy = part.shared() ? Math.min(busy, allocated) : busy;
      idle = Math.max(0.0, allocated - busy);
    } else {
      double covered = Math.min(allocated, sampled * share);
      if (part.shared()) {
        busy = Math.min(busy, covered);
      }
      idle = Math.max(0.0, covered - busy);
      unsampled = allocated - covered;
    }
    Double wasted = null;
    Double wastedBusy = null;
    if (disruption != null && terminated != null && canComplete) {
      long from =
          Math.max(
              running,
              s.getLatest().getCheckpointAt() == null
                  ? running
                  : Math.min(s.getLatest().getCheckpointAt(), terminated));
      wasted = gpus * Math.max(0, terminated - from) / 1000.0;
      wastedBusy = Math.max(0.0, Math.min(wasted, busy - GpuBusy.until(s, from, running) * device));
    }
    return new Seconds(part, allocated, busy, idle, unsampled, wasted, wastedBusy);
  }
}
