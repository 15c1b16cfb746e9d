package io.schedlens.timeline;

import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.internal.WorkloadMember;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.LongToIntFunction;

/**
 * A workload's replicas swept over the times anything about them changed: the series of wanted and
 * Ready replicas, the service interruptions and the degraded intervals, as {@link
 * WorkloadContinuity} defines them.
 */
final class ServiceSweep {

  final List<ReplicaPoint> series = new ArrayList<>();
  final List<ServiceInterval> interruptions = new ArrayList<>();
  final List<ServiceInterval> degraded = new ArrayList<>();

  private ServiceInterval open = null;
  private boolean openIsInterruption = false;
  private int target = 0;
  private int prevWanted = 0;
  private int prevReady = 0;

  private ServiceSweep() {}

  /**
   * @param times every time something about the replicas changed, in order
   * @param wanted the wanted replicas at a time
   * @param byCreation the pods, by creation
   */
  static ServiceSweep over(
      TreeSet<Long> times, LongToIntFunction wanted, List<WorkloadMember> byCreation) {
    ServiceSweep sweep = new ServiceSweep();
    for (long t : times) {
      sweep.at(t, wanted.applyAsInt(t), WorkloadContinuity.ready(byCreation, t), byCreation);
    }
    return sweep;
  }

  /** At time {@code t}: {@code w} wanted, {@code r} Ready. */
  private void at(long t, int w, int r, List<WorkloadMember> byCreation) {
    if (w != prevWanted || r != prevReady) {
      series.add(new ReplicaPoint(t, w, r));
    }
    int carried = open == null ? 0 : closeIfBack(t, w, r);
    if (open == null && w >= 1 && r < w && r < prevReady) {
      WorkloadMember lost = lostAt(byCreation, t);
      open =
          ServiceInterval.newBuilder()
              .setStart(t)
              .setCause(cause(lost))
              .setPod(lost == null ? null : lost.getUid())
              .setArm(lost == null ? null : lost.getArm())
              .setRepeat(lost == null ? null : lost.getRepeat())
              .build();
      openIsInterruption = r == 0;
      target = Math.max(carried, Math.min(w, prevReady));
      (openIsInterruption ? interruptions : degraded).add(open);
    }
    prevWanted = w;
    prevReady = r;
  }

  /**
   * Ends the open interval when the workload is back to the level before the loss (or to what is
   * wanted now, if less); returns the level a loss that goes on carries.
   */
  private int closeIfBack(long t, int w, int r) {
    int back = Math.min(target, w);
    boolean over = openIsInterruption ? r >= 1 || w == 0 : r >= back || r == 0 || w == 0;
    if (!over) {
      return 0;
    }
    close(open, t);
    ServiceInterval ended = open;
    open = null;
    if (Disruptions.DELETION.equals(ended.getCause())
        && w < prevWanted
        && ended.getDurationMs() <= WorkloadContinuity.SCALE_DOWN_SLACK_MS) {
      // A scale-down: the pod's deletion (second granularity) was seen a moment before the
      // object's smaller replica count (read time). Nothing was lost.
      (openIsInterruption ? interruptions : degraded).remove(ended);
    }
    int carried = r == 0 && w >= 1 ? target : 0; // degraded, then none: one loss goes on
    if (openIsInterruption && r >= 1 && r < back) {
      // Partly back: the same loss goes on as a degraded interval.
      open = ServiceInterval.newBuilder(ended).setStart(t).setEnd(null).setDurationMs(null).build();
      openIsInterruption = false;
      degraded.add(open);
    }
    return carried;
  }

  private static WorkloadMember lostAt(List<WorkloadMember> pods, long t) {
    WorkloadMember lost = null;
    for (WorkloadMember p : pods) {
      Long end = WorkloadContinuity.readyEnd(p);
      if (end != null && end == t && p.getReadyAt() < t) {
        if (lost == null || lost.getDisruptionCause() == null && p.getDisruptionCause() != null) {
          lost = p;
        }
      }
    }
    return lost;
  }

  private static String cause(WorkloadMember lost) {
    if (lost == null) {
      return WorkloadContinuity.NOT_READY;
    }
    if (lost.getDisruptionCause() != null) {
      return lost.getDisruptionCause();
    }
    Long end = WorkloadContinuity.readyEnd(lost);
    return lost.getStoppedAt() != null && end != null && lost.getStoppedAt() <= end
        ? Disruptions.DELETION
        : WorkloadContinuity.NOT_READY;
  }

  private static void close(ServiceInterval i, long t) {
    i.setEnd(t);
    i.setDurationMs(t - i.getStart());
  }
}
