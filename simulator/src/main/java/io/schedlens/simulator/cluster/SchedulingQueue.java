package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.simulator.cluster.KubeScheduler.Bind;
import io.schedlens.simulator.cluster.KubeScheduler.Decision;
import io.schedlens.simulator.cluster.KubeScheduler.Preempt;
import io.schedlens.simulator.cluster.KubeScheduler.Unschedulable;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Taint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * kube-scheduler's scheduling queue and its writes: pops due pods in queue order (priority, then
 * creation time), asks {@link KubeScheduler} where each goes, and binds, preempts or records the
 * failure as kube-scheduler does. A pod that does not fit waits until a pod leaves a node (per-pod
 * backoff of 1 s doubling to 10 s) or {@link #UNSCHEDULABLE_FLUSH_MS} pass; a failed attempt is a
 * FailedScheduling event (a series when the note repeats) and PodScheduled=False/Unschedulable,
 * each written as {@link SchedulerWrites} says. Preemption nominates the node, gives each victim
 * DisruptionTarget (PreemptionByScheduler) and the Preempted event, and deletes it; the preemptor
 * binds once the victims are gone.
 */
final class SchedulingQueue {

  /** How long an unschedulable pod waits at most before it is tried again. */
  static final long UNSCHEDULABLE_FLUSH_MS = 5 * 60_000;

  static final Taint UNREACHABLE_NO_SCHEDULE =
      new Taint("node.kubernetes.io/unreachable", "", "NoSchedule");

  private final ClusterState c;
  private final Consumer<SimPod> bound;
  private final Consumer<SimPod> delete;
  private boolean passScheduled;
  private long passAt = Long.MAX_VALUE;

  /**
   * Within a pass and while no pod was bound or nominated, the decision for each pod shape that
   * found no room: a pod with no nomination of its own is decided by its shape alone ({@link
   * #shape}), so the pods of one shape waiting behind it get the same answer without the cycle
   * being run again. Cleared at each pass and each change.
   */
  private final Map<String, Unschedulable> unchanged = new HashMap<>();

  /** Within a pass and while nothing changed, the GPUs each quota's pods hold or are nominated. */
  private final Map<Scenario.GpuQuota, Integer> quotaUsed = new HashMap<>();

  /**
   * @param bound the pod's kubelet takes a pod bound to its node
   * @param delete deletes a victim through the API
   */
  SchedulingQueue(ClusterState c, Consumer<SimPod> bound, Consumer<SimPod> delete) {
    this.c = c;
    this.bound = bound;
    this.delete = delete;
  }

  /** A pod was created: the scheduler sees it within milliseconds. */
  void added(SimPod p) {
    p.retryAt = c.queue.now() + 5 + c.random.nextInt(40);
    requestPass(p.retryAt);
  }

  /** Wakes pods waiting for room: a pod left a node, or a node came back. */
  void nodeFreed() {
    long now = c.queue.now();
    long earliest = Long.MAX_VALUE;
    for (SimPod p : c.live.values()) {
      if (p.pending()) {
        long backoff = Math.min(10_000L, 1000L << Math.min(10, Math.max(0, p.attempts - 1)));
        p.retryAt = Math.min(p.retryAt, Math.max(now, p.lastAttemptAt + backoff));
        earliest = Math.min(earliest, p.retryAt);
      }
    }
    if (earliest != Long.MAX_VALUE) {
      requestPass(earliest);
    }
  }

  private void requestPass(long at) {
    at = Math.max(at, c.queue.now());
    if (passScheduled && passAt <= at) {
      return;
    }
    passScheduled = true;
    passAt = at;
    long when = at;
    c.queue.at(
        when,
        () -> {
          if (passAt == when) {
            passScheduled = false;
            passAt = Long.MAX_VALUE;
            schedulingPass();
          }
        });
  }

  /** kube-scheduler pops due pods in queue order (priority, then creation time), one at a time. */
  private void schedulingPass() {
    long now = c.queue.now();
    List<SimPod> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (SimPod p : c.live.values()) {
      if (p.pending()) {
        if (p.retryAt <= now) {
          due.add(p);
        } else {
          next = Math.min(next, p.retryAt);
        }
      }
    }
    due.sort(
        Comparator.comparingInt((SimPod p) -> -p.priority)
            .thenComparingLong(p -> p.createdAt)
            .thenComparing(p -> p.name));
    changed();
    for (SimPod p : due) {
      if (overQuota(p)) {
        // gated: not tried, and woken when a pod of its queue leaves a node (nodeFreed)
        p.retryAt = now + UNSCHEDULABLE_FLUSH_MS;
        next = Math.min(next, p.retryAt);
        continue;
      }
      scheduleOne(p);
      if (p.pending()) {
        next = Math.min(next, p.retryAt);
      }
    }
    if (next != Long.MAX_VALUE) {
      requestPass(next);
    }
  }

  /**
   * Whether admitting the pod would take a quota that covers it over its nominal GPUs: the pods of
   * the quota that hold a node or a nomination count, and the Jobs Kueue admitted to the quota's
   * ClusterQueue. A pod of a Job Kueue queues is not held: Kueue admitted its Job, counting its
   * GPUs.
   */
  private boolean overQuota(SimPod p) {
    if (c.quotas.isQueued(p.ownerUid)) {
      return false;
    }
    for (Scenario.GpuQuota q : c.arm.quotas()) {
      if (!q.covers(p.priorityClassName, p.namespace)) {
        continue;
      }
      int used = quotaUsed.computeIfAbsent(q, x -> gatedUse(c, x)) + c.quotas.admitted(q.name());
      if (counts(p)) {
        used -= p.gpus; // not itself
      }
      if (used + p.gpus > q.nominalGpus()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The GPUs the pods a quota gates hold (bound, or nominated to a node); the pods of Jobs Kueue
   * queues are counted by their Workloads' admission instead.
   */
  static int gatedUse(ClusterState c, Scenario.GpuQuota q) {
    int used = 0;
    for (SimPod o : c.live.values()) {
      if (counts(o)
          && q.covers(o.priorityClassName, o.namespace)
          && !c.quotas.isQueued(o.ownerUid)) {
        used += o.gpus;
      }
    }
    return used;
  }

  /** Whether a pod counts against its quota: it holds a node or a nomination. */
  private static boolean counts(SimPod o) {
    return o.holdsNode() || (o.pending() && o.nominatedNode != null);
  }

  /** Something the scheduler's answers depend on changed: a pod was bound or nominated. */
  private void changed() {
    unchanged.clear();
    quotaUsed.clear();
  }

  /** What decides a cycle for a pod with no nomination of its own. */
  private static String shape(SimPod p) {
    return p.gpus
        + "|"
        + p.priority
        + "|"
        + p.preemptionPolicy
        + "|"
        + p.tolerations
        + "|"
        + p.nodeSelector;
  }

  private Decision decide(SimPod p) {
    String shape = p.nominatedNode == null ? shape(p) : null;
    Decision known = shape == null ? null : unchanged.get(shape);
    if (known != null) {
      return known;
    }
    Decision d = KubeScheduler.schedule(p, schedulableView(), c.livePods(), c.unschedulable);
    if (d instanceof Unschedulable u && shape != null) {
      unchanged.put(shape, u);
    }
    return d;
  }

  private void scheduleOne(SimPod p) {
    long now = c.queue.now();
    p.attempts++;
    p.lastAttemptAt = now;
    Decision d = decide(p);
    if (d instanceof Bind b) {
      bind(p, b.node());
      changed();
      return;
    }
    String note = d instanceof Preempt pr ? pr.note() : ((Unschedulable) d).note();
    // Unschedulable: wait for a pod to leave a node, or for the periodic flush.
    p.retryAt = now + UNSCHEDULABLE_FLUSH_MS;
    if (d instanceof Preempt pr) {
      // The post-filter runs first; the failure is recorded after it.
      preempt(p, pr.node(), pr.victims());
      changed();
    }
    failedScheduling(p, note);
    c.condition(p, "PodScheduled", "False", "Unschedulable", note);
    String written = note + "\n" + p.nominatedNode;
    if (c.schedulerWrites == SchedulerWrites.EVERY_ATTEMPT
        || !written.equals(p.unschedulableWritten)) {
      p.unschedulableWritten = written;
      c.writeStatus(p);
    }
  }

  /** The nodes as the scheduler sees them: a node found unreachable carries its taint. */
  private List<SimNode> schedulableView() {
    if (c.unreachable.isEmpty()) {
      return c.nodes;
    }
    List<SimNode> view = new ArrayList<>(c.nodes.size());
    for (SimNode n : c.nodes) {
      if (c.unreachable.contains(n.name())) {
        List<Taint> taints = new ArrayList<>(n.taints());
        taints.add(UNREACHABLE_NO_SCHEDULE);
        view.add(new SimNode(n.name(), n.gpus(), n.gpuModel(), n.labels(), taints, n.gpuUuids()));
      } else {
        view.add(n);
      }
    }
    return view;
  }

  private void failedScheduling(SimPod p, String note) {
    long now = c.queue.now();
    SimPod.EventSeries s = p.failedScheduling.get(note);
    if (s == null) {
      s = new SimPod.EventSeries(c.names.eventName(p.name), now);
      p.failedScheduling.put(note, s);
    } else {
      s.count++;
      s.lastAt = now;
    }
    if (c.schedulerWrites == SchedulerWrites.EVERY_ATTEMPT
        || s.count <= 2
        || now - s.writtenAt >= SchedulerWrites.SERIES_REFRESH_MS) {
      c.writeFailedScheduling(p, note, s);
    }
  }

  private void bind(SimPod p, String node) {
    c.failedSchedulingEnded(p);
    long now = c.queue.now();
    p.node = node;
    p.nominatedNode = null;
    c.truth(p.uid).scheduledAt = now;
    c.api.updatePod(PodObjects.pod(p)); // the binding sets spec.nodeName
    c.condition(p, "PodScheduled", "True", null, null);
    c.writeStatus(p);
    c.api.schedulerEvent(
        PodObjects.schedulerEvent(
            c.names.eventName(p.name),
            p,
            null,
            "Normal",
            "Scheduled",
            "Binding",
            "Successfully assigned " + p.namespace + "/" + p.name + " to " + node,
            now,
            1,
            now));
    bound.accept(p);
  }

  private void preempt(SimPod preemptor, String node, List<SimPod> victims) {
    long now = c.queue.now();
    preemptor.nominatedNode = node;
    // Lower-priority pods nominated to that node lose their nomination.
    for (SimPod other : c.live.values()) {
      if (other != preemptor
          && other.pending()
          && node.equals(other.nominatedNode)
          && other.priority < preemptor.priority) {
        other.nominatedNode = null;
        c.writeStatus(other);
      }
    }
    for (SimPod v : victims) {
      LiveTruth t = c.truth(v.uid);
      t.preemptedAt = now;
      t.cause = DisruptionCause.PREEMPTION.wire();
      t.preemptorUid = preemptor.uid;
      c.truth(preemptor.uid).victims.add(v.uid);
      v.preempted = true;
      c.condition(
          v,
          "DisruptionTarget",
          "True",
          "PreemptionByScheduler",
          PodObjects.SCHEDULER + ": preempting to accommodate a higher priority pod");
      c.writeStatus(v);
      c.api.schedulerEvent(
          PodObjects.schedulerEvent(
              c.names.eventName(v.name),
              v,
              preemptor,
              "Normal",
              "Preempted",
              "Preempting",
              "Preempted by pod " + preemptor.uid + " on node " + node,
              now,
              1,
              now));
      delete.accept(v);
    }
  }
}
