package io.schedlens.simulator.cluster;

import java.util.ArrayList;
import java.util.List;

/** What happened to a pod, as the simulator lived it, while the run lasts ({@link PodTruth}). */
final class LiveTruth {
  Long scheduledAt;
  Long preemptedAt;
  String preemptorUid;
  final List<String> victims = new ArrayList<>();
  long requests;
  long errors;
  long sloBreaches;
  Long deletedAt;
  String outcome;

  /** Its Job's LocalQueue, when Kueue admitted the Job. */
  String queue;

  /** When Kueue admitted the Workload whose admission let the pod be created. */
  Long admittedAt;

  /** How long that admission waited, as Kueue counts it. */
  Long queueWaitMs;

  /**
   * What ended it early (preemption, queue-preemption, eviction-api, taint-manager, rollout), if
   * anything.
   */
  String cause;
}
