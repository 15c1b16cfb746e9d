package io.schedlens.report;

import io.schedlens.avro.PodTimeline;
import io.schedlens.base.DisruptionCause;

/**
 * What the experiment report needs of one pod: the arm, repeat and application (or workload) it
 * belongs to and the timeline numbers of docs/design.md section 4 that the comparison is about.
 *
 * @param pendingMs time from creation to scheduling; for a pod never scheduled, creation to its end
 *     (it waited all its life)
 * @param queueWaitMs the wait in a Kueue queue for the admission that let the pod exist; null for a
 *     pod outside Kueue
 * @param queuePreempted Kueue preempted the pod's workload while the pod ran (disruption cause
 *     {@code queue-preemption})
 */
public record PodFacts(
    String arm,
    String repeat,
    String workload,
    String workloadKind,
    String priorityClass,
    Long pendingMs,
    boolean neverScheduled,
    Long timeToReadyMs,
    Long timeToFirstOkMs,
    boolean preempted,
    double wastedGpuSeconds,
    long requests,
    long sloBreaches,
    boolean starving,
    String outcome,
    int restarts,
    Long queueWaitMs,
    boolean queuePreempted) {

  /**
   * The row a pod's timeline belongs to: its application (the {@code app.kubernetes.io/name}
   * label), else its workload's name, else its own.
   */
  public static String application(PodTimeline t) {
    if (t.getApplication() != null) {
      return t.getApplication();
    }
    return t.getWorkload() == null ? t.getName() : t.getWorkload().getName();
  }

  /**
   * From a final timeline. Its row is its application (the {@code app.kubernetes.io/name} label),
   * else its workload: the Jobs a batch pipeline creates in every run are one application.
   */
  public static PodFacts of(PodTimeline t) {
    return new PodFacts(
        t.getArm() == null ? "" : t.getArm(),
        t.getRepeat() == null ? "" : t.getRepeat(),
        application(t),
        t.getWorkload() == null ? "Pod" : t.getWorkload().getKind(),
        t.getPriorityClass(),
        t.getPendingMs(),
        t.getNeverScheduled(),
        t.getTimeToReadyMs(),
        t.getTimeToFirstOkMs(),
        t.getPreemptedAt() != null,
        t.getWastedGpuSeconds() == null ? 0 : t.getWastedGpuSeconds(),
        t.getRequests(),
        t.getSloBreaches(),
        t.getStarving(),
        t.getOutcome(),
        t.getRestarts(),
        t.getQueueWaitMs(),
        t.getDisruption() != null
            && DisruptionCause.QUEUE_PREEMPTION.wire().equals(t.getDisruption().getCause()));
  }
}
