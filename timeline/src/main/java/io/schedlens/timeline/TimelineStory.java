package io.schedlens.timeline;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.internal.TimelineState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod's timeline tells, as opposed to its counters (GPU time, requests) and the stage's
 * bookkeeping: when one of these changes, the timeline is worth publishing now. A value, taken
 * before and after an input is applied and compared: the collections and the preemptor are copied,
 * so that a later change of the state in place cannot change the snapshot.
 */
record TimelineStory(
    String namespace,
    String name,
    String ownerKind,
    String ownerName,
    String priorityClass,
    Integer priority,
    int gpus,
    Map<String, String> labels,
    String node,
    String nominatedNode,
    String phase,
    String statusReason,
    Long checkpointAt,
    Long createdAt,
    Long scheduledConditionAt,
    Long scheduledEventAt,
    Long runningAt,
    Long readyAt,
    Long finishedAt,
    String terminalPhase,
    Long deletionRequestedAt,
    boolean gone,
    Map<String, Integer> restarts,
    Map<String, Integer> failedScheduling,
    Map<String, Integer> pendingReasons,
    boolean preemptionAttempted,
    Long preemptedEventAt,
    Long preemptedConditionAt,
    PodRef preemptor,
    List<String> victims,
    String disruptionCause,
    Long disruptionAt,
    Long gatedAt,
    Long ungatedAt) {

  /** The story a state tells now. */
  static TimelineStory of(TimelineState s) {
    var identity = s.getIdentity();
    var latest = s.getLatest();
    var life = s.getLifecycle();
    var scheduling = s.getScheduling();
    var disruption = s.getDisruption();
    return new TimelineStory(
        identity.getNamespace(),
        identity.getName(),
        identity.getOwnerKind(),
        identity.getOwnerName(),
        identity.getPriorityClass(),
        identity.getPriority(),
        identity.getGpus(),
        copy(identity.getLabels()),
        latest.getNode(),
        latest.getNominatedNode(),
        latest.getPhase(),
        latest.getStatusReason(),
        latest.getCheckpointAt(),
        life.getCreatedAt(),
        life.getScheduledConditionAt(),
        life.getScheduledEventAt(),
        life.getRunningAt(),
        life.getReadyAt(),
        life.getFinishedAt(),
        life.getTerminalPhase(),
        life.getDeletionRequestedAt(),
        life.getGone(),
        copy(life.getRestarts()),
        copy(scheduling.getFailedScheduling()),
        copy(scheduling.getPendingReasons()),
        scheduling.getPreemptionAttempted(),
        disruption.getPreemptedEventAt(),
        disruption.getPreemptedConditionAt(),
        disruption.getPreemptor() == null
            ? null
            : PodRef.newBuilder(disruption.getPreemptor()).build(),
        disruption.getVictims() == null ? null : new ArrayList<>(disruption.getVictims()),
        disruption.getDisruptionCause(),
        disruption.getDisruptionAt(),
        life.getGatedAt(),
        life.getUngatedAt());
  }

  private static <V> Map<String, V> copy(Map<String, V> m) {
    return m == null ? null : new HashMap<>(m);
  }
}
