package io.schedlens.timeline;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.base.GpuShares;
import java.util.List;

/**
 * A pod's GPU-seconds as GPU-equivalents (docs/design.md section 4, "Shared GPUs"): its devices
 * times the part of a physical GPU each is ({@code gpuShare}) times the time. A MIG instance's
 * share comes from its samples ({@code GPU_I_PROFILE} with {@code modelName}: a single-strategy MIG
 * node names its slices {@code nvidia.com/gpu}) or, before any, from the resource it requested
 * ({@code nvidia.com/mig-1g.10gb}); a time-sliced or MPS replica counts as a whole GPU, as the
 * replicas per GPU are not known here, and says {@code gpuShared}. Busy time stays, in the state,
 * the devices' own (a MIG instance's utilisation is of the instance); the share turns it into the
 * physical GPU's. Pure.
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

  /** The part of a physical GPU each of the pod's devices is. */
  static GpuShares.Share share(TimelineState s) {
    String resource = resource(s);
    if (resource == null) {
      return GpuShares.Share.WHOLE_GPU;
    }
    Double sampled = s.getGpu().getSampledShare();
    if (sampled != null) {
      return new GpuShares.Share(sampled, false, false);
    }
    List<String> shared = s.getIdentity().getGpuShared() ? List.of(resource) : List.of();
    return GpuShares.of(resource, shared, null, null, null);
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
    double busy = GpuBusy.total(s) * share;
    Double idle;
    Double unsampled = null;
    // Time no sample stands for is missing data, not idle: idle is what samples saw idle. (The
    // contract's allocated - busy counts it as idle; see the README, "GPU time without samples".)
    // A first sample's span may reach back before runningAt, hence the bound by allocated.
    Double sampled = GpuBusy.sampled(s);
    if (sampled == null) {
      idle = Math.max(0.0, allocated - busy);
    } else {
      double covered = Math.min(allocated, sampled * share);
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
      wastedBusy = Math.max(0.0, Math.min(wasted, busy - GpuBusy.until(s, from, running) * share));
    }
    return new Seconds(part, allocated, busy, idle, unsampled, wasted, wastedBusy);
  }
}
