package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * A Deployment: its ReplicaSets (the last is the current template's), the replicas it wants, and
 * its rolling update, as the Deployment controller runs it: the new ReplicaSet grows while all pods
 * stay within replicas + maxSurge, the old ones shrink while Ready pods stay at least replicas -
 * maxUnavailable (unready old pods go first).
 */
final class DeploymentController {
  final ControllerContext cluster;
  final Workload w;
  final ServingSpec spec;
  final List<ReplicaSetController> sets = new ArrayList<>();
  int desired;
  int maxSurge;
  int maxUnavailable;

  // The service as users feel it, tracked live (not reconstructed from the pods afterwards).
  int lastReady;
  Long interruptedSince;
  String interruptedBy;

  final String uid;

  DeploymentController(ControllerContext cluster, Workload w, ServingSpec spec) {
    this.cluster = cluster;
    this.uid = cluster.newUid();
    this.w = w;
    this.spec = spec;
    sets.add(new ReplicaSetController(this));
  }

  /** The Deployment (or StatefulSet) object as its user last applied it (replicas, template). */
  void write() {
    if (spec.statefulSet()) {
      cluster
          .api()
          .applyObject(
              WorkloadObjects.statefulSet(
                  cluster.namespace(),
                  w.name(),
                  uid,
                  cluster.ended() ? 0 : desired,
                  readyPods().size(),
                  cluster.experimentLabels(),
                  cluster.queue().now()));
      return;
    }
    cluster
        .api()
        .applyObject(
            WorkloadObjects.deployment(
                cluster.namespace(),
                w.name(),
                uid,
                cluster.ended() ? 0 : desired,
                maxSurge,
                maxUnavailable,
                current().hash,
                readyPods().size(),
                cluster.experimentLabels(),
                cluster.queue().now()));
  }

  ReplicaSetController current() {
    return sets.get(sets.size() - 1);
  }

  void scale(int replicas) {
    if (cluster.ended()) {
      return;
    }
    desired = replicas;
    write();
    reconcile();
    serviceCheck(null);
  }

  /** A new pod template: a new ReplicaSet, rolled out with these bounds. */
  void rollout(int surge, int unavailable) {
    if (cluster.ended()) {
      return;
    }
    // Both rounded to 0 (25% of one replica): the Deployment controller lets one be unavailable.
    maxSurge = surge;
    maxUnavailable = surge == 0 && unavailable == 0 ? 1 : unavailable;
    sets.add(new ReplicaSetController(this));
    write();
    reconcile();
    serviceCheck(null);
  }

  void reconcile() {
    int want = cluster.ended() ? 0 : desired;
    ReplicaSetController fresh = current();
    List<RollingUpdate.Replicas> now = new ArrayList<>();
    sets.forEach(r -> now.add(new RollingUpdate.Replicas(r.desired, r.ready())));
    int[] next = RollingUpdate.step(want, maxSurge, maxUnavailable, now);
    for (int i = 0; i < sets.size(); i++) {
      sets.get(i).desired = next[i];
    }
    for (ReplicaSetController r : sets) {
      r.reconcile(r != fresh);
    }
  }

  boolean owns(SimPod p) {
    return sets.stream().anyMatch(r -> r.uid.equals(p.ownerUid));
  }

  List<SimPod> readyPods() {
    List<SimPod> out = new ArrayList<>();
    sets.forEach(r -> r.owned.stream().filter(SimPod::ready).forEach(out::add));
    return out;
  }

  /** After any change: opens or closes an interruption; {@code changed} is the pod concerned. */
  void serviceCheck(SimPod changed) {
    int r = readyPods().size();
    int want = cluster.ended() ? 0 : desired;
    long now = cluster.queue().now();
    if (interruptedSince != null && (r >= 1 || want == 0)) {
      // What cluster.ended() the pod is known by now: a pod on a failed node was marked NotReady
      // first
      // and evicted by the taint manager later.
      String cause = interruptedBy == null ? null : cluster.causeOf(interruptedBy);
      cluster.interrupted(
          w.name(), interruptedSince, now, cause == null ? DisruptionCause.DELETION.wire() : cause);
      interruptedSince = null;
    } else if (interruptedSince == null && want >= 1 && r == 0 && lastReady >= 1) {
      interruptedSince = now;
      interruptedBy = changed == null ? null : changed.uid;
    }
    lastReady = r;
  }
}
