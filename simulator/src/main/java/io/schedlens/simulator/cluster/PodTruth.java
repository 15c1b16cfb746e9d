package io.schedlens.simulator.cluster;

import java.util.List;

/**
 * What really happened to one pod, as the simulator knows it (exact virtual times, before the API's
 * second granularity): the reference the end-to-end test holds schedlens' timelines against.
 *
 * @param outcome an {@link io.schedlens.base.Outcome}'s wire name: Succeeded, Preempted, Evicted,
 *     Deleted or Failed
 * @param cause what ended it early, a {@link io.schedlens.base.DisruptionCause}'s wire name:
 *     preemption, queue-preemption, eviction-api, taint-manager, rollout; null when nothing did (it
 *     completed, or was deleted by a scale-down or the end of the run)
 * @param deletionRequestedAt when its deletion was asked for (it left its Service's endpoints)
 * @param gpuShare the part of a physical GPU each of its devices is on its node (a MIG slice's, a
 *     time-sliced replica's 1/replicas, else 1)
 * @param wastedGpuSeconds for a Job pod stopped before it completed: GPU-equivalents (devices ×
 *     gpuShare) × time from its last checkpoint (else its container start) to its container's end;
 *     null otherwise
 * @param queue its Job's Kueue LocalQueue, or null
 * @param admittedAt when Kueue admitted the Workload whose admission let it be created, or null
 * @param queueWaitMs how long that admission waited (since the Workload's creation or its
 *     re-queueing), or null
 */
public record PodTruth(
    String uid,
    String namespace,
    String name,
    String workload,
    String workloadKind,
    String arm,
    int repeat,
    String priorityClass,
    int priority,
    int gpus,
    double gpuShare,
    String node,
    long createdAt,
    Long scheduledAt,
    Long runningAt,
    Long readyAt,
    Long firstOkRequestAt,
    Long terminatedAt,
    Long deletionRequestedAt,
    Long deletedAt,
    Long preemptedAt,
    String preemptorUid,
    List<String> victims,
    Long lastCheckpointAt,
    Double wastedGpuSeconds,
    int failedSchedulingCount,
    long requests,
    long errors,
    long sloBreaches,
    String outcome,
    String cause,
    String queue,
    Long admittedAt,
    Long queueWaitMs) {

  public Long pendingMs() {
    return scheduledAt == null ? null : scheduledAt - createdAt;
  }
}
