package io.schedlens.timeline;

/**
 * What a pod's state says right after a change, read once for everything that acts on the change
 * (timers, the facts told to the workload and the node): the same values {@link TimelineView}
 * publishes, read by {@link TimelineView#moments}.
 *
 * @param scheduledAt {@link TimelineView#scheduledAt}
 * @param terminatedAt {@link TimelineView#terminatedAt}
 * @param outcome {@link TimelineView#outcome}
 * @param preemptedAt the Preempted event's time, else the condition's; null when not preempted
 * @param workloadKey the key of the pod's workload's state; null while none is known
 */
public record PodMoments(
    Long scheduledAt, Long terminatedAt, String outcome, Long preemptedAt, String workloadKey) {}
