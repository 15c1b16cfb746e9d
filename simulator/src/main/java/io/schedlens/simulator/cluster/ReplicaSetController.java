package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** One ReplicaSet of a Deployment: keeps {@code desired} active pods of its template. */
final class ReplicaSetController {
  final DeploymentController deployment;
  final Workload w;
  final ControllerContext cluster;
  final String hash;
  final String name;
  final String uid;
  int desired;
  final List<SimPod> owned = new ArrayList<>();

  ReplicaSetController(DeploymentController deployment) {
    this.deployment = deployment;
    this.cluster = deployment.cluster;
    this.hash = cluster.newTemplateHash();
    this.w = deployment.w;
    // A StatefulSet owns its pods itself: this stands for it, under its name and UID.
    this.name = deployment.spec.statefulSet() ? w.name() : w.name() + "-" + hash;
    this.uid = deployment.spec.statefulSet() ? deployment.uid : cluster.newUid();
  }

  /**
   * @param outdated an old template's ReplicaSet: its scale-down is a rollout's
   */
  void reconcile(boolean outdated) {
    if (deployment.spec.statefulSet()) {
      reconcileOrdinals();
      return;
    }
    List<SimPod> active = owned.stream().filter(SimPod::active).toList();
    int want = cluster.ended() ? 0 : desired;
    if (active.size() < want) {
      for (int i = active.size(); i < want; i++) {
        SimPod p = cluster.newPod(w, "ReplicaSet", name, uid, name + "-");
        p.labels.put("pod-template-hash", hash);
        owned.add(p);
        cluster.create(p);
      }
      cluster.podsChanged();
    } else if (active.size() > want) {
      // ReplicaSet's deletion order: unscheduled, then pending, then not ready, then newest.
      List<SimPod> order = new ArrayList<>(active);
      order.sort(
          Comparator.comparing((SimPod p) -> p.node != null)
              .thenComparing(p -> p.containerStartedAt != null)
              .thenComparing(SimPod::ready)
              .thenComparing(p -> -p.createdAt));
      for (int i = 0; i < active.size() - want; i++) {
        SimPod p = order.get(i);
        if (outdated && !cluster.ended() && deployment.desired > 0) {
          cluster.endedBy(p, DisruptionCause.ROLLOUT);
        }
        cluster.delete(p);
      }
      cluster.podsChanged();
    }
  }

  /**
   * A StatefulSet's controller (podManagementPolicy Parallel): ordinals below the desired count
   * each have a pod named {@code NAME-ORDINAL}; a missing one is created under that name only once
   * its predecessor is gone from the API (terminating still holds the name); the highest ordinals
   * go first on a scale-down.
   */
  private void reconcileOrdinals() {
    int want = cluster.ended() ? 0 : desired;
    boolean changed = false;
    for (int i = 0; i < want; i++) {
      String podName = name + "-" + i;
      if (owned.stream().noneMatch(p -> !p.gone && p.name.equals(podName))) {
        SimPod p = cluster.newPod(w, "StatefulSet", name, uid, null, podName);
        p.labels.put("statefulset.kubernetes.io/pod-name", podName);
        p.labels.put("apps.kubernetes.io/pod-index", Integer.toString(i));
        owned.add(p);
        cluster.create(p);
        changed = true;
      }
    }
    for (SimPod p : owned) {
      if (p.active() && ordinal(p) >= want) {
        cluster.delete(p);
        changed = true;
      }
    }
    if (changed) {
      cluster.podsChanged();
    }
  }

  private int ordinal(SimPod p) {
    return Integer.parseInt(p.name.substring(name.length() + 1));
  }

  int ready() {
    return (int) owned.stream().filter(SimPod::ready).count();
  }
}
