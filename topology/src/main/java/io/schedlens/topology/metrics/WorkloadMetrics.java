package io.schedlens.topology.metrics;

import io.schedlens.avro.Recovery;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.timeline.WorkloadContinuity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the workload stage adds to the Prometheus metrics from each timeline it emits, each figure
 * once: interruption and degraded time when an interval closes, each recovery stage when known, the
 * gang wait as it grows. What was already counted is kept in the workload's state, so a restart
 * does not count it twice; a late fact that shortens what was counted is not taken back.
 */
public final class WorkloadMetrics {

  private WorkloadMetrics() {}

  /** Adds what newly closed, recovered or waited in {@code t} to the metrics. */
  public static void count(
      StreamsMetrics metrics,
      WorkloadKey id,
      WorkloadTimeline t,
      WorkloadState w,
      List<WorkloadMember> members) {
    PodLabels labels =
        metrics.labels(
            id.namespace(),
            orEmpty(t.getPriorityClass()),
            id.kind(),
            orEmpty(t.getArm()),
            orEmpty(t.getRepeat()));
    long interrupted = WorkloadContinuity.closedMs(t.getInterruptions());
    if (interrupted > w.getCountedInterruptionMs()) {
      metrics
          .workloadInterruptionSeconds
          .labelValues(labels.values())
          .inc((interrupted - w.getCountedInterruptionMs()) / 1000.0);
      w.setCountedInterruptionMs(interrupted);
    }
    long degraded = WorkloadContinuity.closedMs(t.getDegraded());
    if (degraded > w.getCountedDegradedMs()) {
      metrics
          .workloadDegradedSeconds
          .labelValues(labels.values())
          .inc((degraded - w.getCountedDegradedMs()) / 1000.0);
      w.setCountedDegradedMs(degraded);
    }
    Double gangWait = t.getGangWaitGpuSeconds();
    if (gangWait != null && gangWait > w.getCountedGangWaitGpuSeconds()) {
      metrics
          .gangWaitGpuSeconds
          .labelValues(labels.values())
          .inc(gangWait - w.getCountedGangWaitGpuSeconds());
      w.setCountedGangWaitGpuSeconds(gangWait);
    }
    List<String> counted = new ArrayList<>(w.getCountedRecoveries());
    for (Recovery r : t.getRecoveries()) {
      observe(metrics, counted, labels, r, "scheduled", r.getToScheduledMs());
      observe(metrics, counted, labels, r, "ready", r.getToReadyMs());
      observe(metrics, counted, labels, r, "first_ok", r.getToFirstOkMs());
    }
    // Only the recoveries of pods still kept can come again.
    Set<String> kept = new TreeSet<>();
    members.forEach(p -> kept.add(p.getUid()));
    counted.removeIf(c -> !kept.contains(c.substring(0, c.indexOf(':'))));
    w.setCountedRecoveries(counted);
  }

  private static void observe(
      StreamsMetrics metrics,
      List<String> counted,
      PodLabels labels,
      Recovery r,
      String stage,
      Long ms) {
    String mark = r.getPod() + ":" + stage;
    if (ms == null || counted.contains(mark)) {
      return;
    }
    counted.add(mark);
    metrics.workloadRecovery.labelValues(labels.and(r.getCause(), stage)).observe(ms / 1000.0);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
