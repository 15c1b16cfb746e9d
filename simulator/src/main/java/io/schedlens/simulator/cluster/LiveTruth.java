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

  /** What ended it early (preemption, eviction-api, taint-manager, rollout), if anything. */
  String cause;
}
