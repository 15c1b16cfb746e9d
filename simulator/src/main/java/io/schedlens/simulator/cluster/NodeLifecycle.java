package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.base.Outcome;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * What happens to nodes, and what Kubernetes does about it: {@code kubectl drain} and {@code
 * uncordon} (evictions through the Eviction API, which a PodDisruptionBudget may refuse), and a
 * node that stops and comes back, as the node lifecycle and taint eviction controllers handle it.
 */
final class NodeLifecycle {

  /** kube-controller-manager's --node-monitor-grace-period (40 s up to Kubernetes 1.31). */
  static final long NODE_MONITOR_GRACE_MS = 40_000;

  /** The DefaultTolerationSeconds admission plugin's toleration of unreachable:NoExecute. */
  static final long UNREACHABLE_TOLERATION_MS = 300_000;

  /** kubectl drain's wait between evictions a PodDisruptionBudget refused. */
  static final long DRAIN_RETRY_MS = 5_000;

  private final ClusterState c;
  private final Kubelet kubelet;
  private final Runnable nodeFreed;
  private final Consumer<SimPod> podChanged;
  private final Runnable gpusChanged;

  NodeLifecycle(
      ClusterState c,
      Kubelet kubelet,
      Runnable nodeFreed,
      Consumer<SimPod> podChanged,
      Runnable gpusChanged) {
    this.c = c;
    this.kubelet = kubelet;
    this.nodeFreed = nodeFreed;
    this.podChanged = podChanged;
    this.gpusChanged = gpusChanged;
  }

  /**
   * {@code kubectl drain}: cordon the node, then evict every pod on it through the Eviction API.
   * The API server marks each with the DisruptionTarget condition (EvictionByEvictionAPI) and
   * deletes it gracefully; controllers create replacements, which wait while the node is cordoned.
   */
  void drain(String node) {
    c.unschedulable.add(node);
    evictFrom(node);
  }

  /** {@code kubectl uncordon}: the node takes pods again (it re-joined). */
  void uncordon(String node) {
    if (c.unschedulable.remove(node)) {
      nodeFreed.run();
    }
  }

  /**
   * The node stops (power, kernel or network): its kubelet no longer reports and its pods do no
   * work and serve nobody. Kubernetes finds out after the node monitor grace period: the node
   * lifecycle controller taints the node unreachable (NoSchedule, NoExecute) and marks its pods
   * NotReady; the taint eviction controller deletes each pod when its toleration of
   * unreachable:NoExecute runs out (300 s, added to every pod by DefaultTolerationSeconds), with
   * the DisruptionTarget condition DeletionByTaintManager. Those deletions cannot finish while the
   * kubelet is away: the pods stay Terminating until the node re-joins; their controllers replace
   * them at once.
   */
  void fail(String node) {
    if (!c.down.add(node)) {
      return;
    }
    int failure = c.failures.merge(node, 1, Integer::sum);
    gpusChanged.run();
    c.queue.after(
        NODE_MONITOR_GRACE_MS,
        () -> {
          if (!c.down.contains(node) || c.failures.get(node) != failure) {
            return;
          }
          c.unreachable.add(node);
          for (SimPod p : new ArrayList<>(c.pods.values())) {
            if (p.gone || !node.equals(p.node)) {
              continue;
            }
            if (p.ready()) {
              c.condition(p, "Ready", "False", null, null);
              c.writeStatus(p);
              c.api.kubeletEvent(
                  PodObjects.controllerEvent(
                      c.names.eventName(p.name),
                      p,
                      "Warning",
                      "NodeNotReady",
                      "Node is not ready",
                      c.queue.now(),
                      "node-controller"));
              podChanged.accept(p);
            }
            if (p.deletionRequestedAt == null && !p.terminal()) {
              c.queue.after(UNREACHABLE_TOLERATION_MS, () -> taintEviction(p, node, failure));
            }
          }
        });
  }

  /**
   * The node is back: Ready, untainted. Its kubelet finds its pods deleted meanwhile and stops them
   * at once (their grace period ran out long ago).
   */
  void rejoin(String node) {
    if (!c.down.remove(node)) {
      return;
    }
    c.failures.merge(node, 1, Integer::sum);
    c.unreachable.remove(node);
    for (SimPod p : new ArrayList<>(c.pods.values())) {
      if (!p.gone && node.equals(p.node) && p.deletionRequestedAt != null) {
        kubelet.rejoined(p);
      }
    }
    gpusChanged.run();
    nodeFreed.run();
  }

  /**
   * One pass of {@code kubectl drain}'s evictions: every pod on the node whose PodDisruptionBudget
   * allows it; the Eviction API refuses the others (429), and drain tries them again every 5 s
   * while the node stays cordoned.
   */
  private void evictFrom(String node) {
    if (c.ended || !c.unschedulable.contains(node)) {
      return;
    }
    boolean refused = false;
    for (SimPod p : new ArrayList<>(c.pods.values())) {
      if (p.gone || p.deletionRequestedAt != null || !node.equals(p.node)) {
        continue;
      }
      if (!p.terminal() && !budgetAllowsEviction(p)) {
        refused = true;
        continue;
      }
      LiveTruth t = c.truth(p.uid);
      t.outcome = p.terminal() ? t.outcome : Outcome.EVICTED.wire();
      if (!p.terminal()) {
        t.cause = DisruptionCause.EVICTION_API.wire();
        c.condition(
            p, "DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting");
        c.writeStatus(p);
      }
      kubelet.delete(p);
    }
    if (refused) {
      c.queue.after(DRAIN_RETRY_MS, () -> evictFrom(node));
    }
  }

  /** The Eviction API's answer for a pod of this cluster ({@link EvictionBudget}). */
  private boolean budgetAllowsEviction(SimPod p) {
    Integer minAvailable = p.workload.minAvailable();
    if (minAvailable == null) {
      return true;
    }
    long healthy =
        c.pods.values().stream()
            .filter(q -> !q.gone && q.workload == p.workload && q.ready())
            .count();
    return EvictionBudget.allows(healthy, p.ready(), minAvailable);
  }

  private void taintEviction(SimPod p, String node, int failure) {
    if (p.gone
        || p.deletionRequestedAt != null
        || !c.down.contains(node)
        || c.failures.get(node) != failure) {
      return;
    }
    LiveTruth t = c.truth(p.uid);
    t.outcome = Outcome.EVICTED.wire();
    t.cause = DisruptionCause.TAINT_MANAGER.wire();
    c.condition(
        p,
        "DisruptionTarget",
        "True",
        "DeletionByTaintManager",
        "Taint manager: deleting due to NoExecute taint");
    c.writeStatus(p);
    c.api.kubeletEvent(
        PodObjects.controllerEvent(
            c.names.eventName(p.name),
            p,
            "Normal",
            "TaintManagerEviction",
            "Marking for deletion Pod " + p.namespace + "/" + p.name,
            c.queue.now(),
            "taint-eviction-controller"));
    // A graceful deletion no kubelet answers: the pod stays Terminating, its controller replaces
    // it.
    p.deletionRequestedAt = c.queue.now();
    c.writeMeta(p);
    podChanged.accept(p);
    gpusChanged.run();
  }
}
