package io.schedlens.simulator.cluster;

import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * What one run's components share, as Kubernetes' components share the API server's objects: the
 * pods (by UID, in creation order) with their ground truth, the nodes and their conditions, the
 * clock, the run's one random source, and the writes every component makes the same way. The
 * components ({@link SchedulingQueue}, {@link Kubelet}, {@link NodeLifecycle}, {@link
 * TrafficGenerator}, {@link GpuPublisher}, the workload controllers) act on it; none holds state of
 * another.
 *
 * <p>One random source for the cluster's components, drawn in the order events happen on the queue:
 * so the same seed gives the same run, whichever component draws. What the users do (when Jobs
 * arrive, replica changes, each Job's work) has a source of its own, the same in every arm of a
 * repeat ({@link ClusterRun#schedule}).
 */
final class ClusterState {

  final Scenario scenario;
  final Arm arm;
  final int repeat;
  final EventQueue queue;
  final ClusterWriter api;
  final SplittableRandom random;
  final Names names;
  final List<SimNode> nodes;
  private final Map<String, SimNode> nodesByName = new HashMap<>();

  /** Every pod of the run, gone ones too, by UID in creation order. */
  final Map<String, SimPod> pods = new LinkedHashMap<>();

  /**
   * The pods not yet removed from the API, in creation order: what the scheduler, the kubelet and
   * the GPU view look at (a week-long run has created tens of thousands of pods, most long gone).
   */
  final Map<String, SimPod> live = new LinkedHashMap<>();

  private final Map<String, LiveTruth> truth = new LinkedHashMap<>();

  /** Cordoned nodes (spec.unschedulable). */
  final Set<String> unschedulable = new HashSet<>();

  /** Nodes that stopped (failed): their pods do no work and cannot be reached. */
  final Set<String> down = new HashSet<>();

  /** Nodes the node lifecycle controller found unreachable (tainted) and not back yet. */
  final Set<String> unreachable = new HashSet<>();

  /** A node's failures so far: a pending eviction of an earlier failure is void after a re-join. */
  final Map<String, Integer> failures = new HashMap<>();

  /** Kueue's admitted GPUs per ClusterQueue and the Jobs it queues (see {@link QuotaLedger}). */
  final QuotaLedger quotas = new QuotaLedger();

  /** The run's end came: controllers want nothing more. */
  boolean ended;

  /** How the scheduler writes failed attempts. */
  SchedulerWrites schedulerWrites = SchedulerWrites.EVERY_ATTEMPT;

  ClusterState(
      Scenario scenario,
      Arm arm,
      int repeat,
      EventQueue queue,
      ClusterWriter api,
      List<SimNode> nodes,
      long seed) {
    this.scenario = scenario;
    this.arm = arm;
    this.repeat = repeat;
    this.queue = queue;
    this.api = api;
    this.random = new SplittableRandom(seed);
    this.names = new Names(random.split());
    this.nodes = nodes;
    nodes.forEach(n -> nodesByName.put(n.name(), n));
  }

  /**
   * The PriorityClass a workload's pods get in this arm, with the arm's override: its name (null
   * without one: priority 0, PreemptLowerPriority), value and preemptionPolicy.
   */
  record PodClass(String name, int priority, String preemptionPolicy) {}

  PodClass podClass(Scenario.Workload w) {
    Scenario.PriorityClassSpec pc =
        arm.priorityClasses() && w.priorityClass() != null
            ? scenario.priorityClass(w.priorityClass())
            : null;
    if (pc == null) {
      return new PodClass(null, 0, "PreemptLowerPriority");
    }
    Scenario.ClassOverride o = arm.overrides().get(pc.name());
    return new PodClass(
        pc.name(),
        o != null && o.value() != null ? o.value() : pc.value(),
        o != null && o.preemptionPolicy() != null ? o.preemptionPolicy() : pc.preemptionPolicy());
  }

  /** {@code at} ± up to {@code jitter}, never below 0. */
  static long jittered(SplittableRandom r, long at, long jitter) {
    if (jitter <= 0) {
      return at;
    }
    return Math.max(0, at + r.nextLong(-jitter, jitter + 1));
  }

  /** Adds a new pod (not yet written to the API) and its truth. */
  void add(SimPod p) {
    pods.put(p.uid, p);
    live.put(p.uid, p);
    truth.put(p.uid, new LiveTruth());
  }

  LiveTruth truth(String uid) {
    return truth.get(uid);
  }

  List<SimPod> livePods() {
    return List.copyOf(live.values());
  }

  SimNode node(String name) {
    SimNode n = nodesByName.get(name);
    if (n == null) {
      throw new IllegalArgumentException("no node " + name);
    }
    return n;
  }

  /**
   * Whether a pod's kubelet work is over: its deletion was asked, it is gone, or its node is down.
   * A step of its start or its work that comes due after that does nothing.
   */
  boolean stopped(SimPod p) {
    return p.deletionRequestedAt != null || p.gone || down.contains(p.node);
  }

  /** The experiment labels every object of this run carries. */
  Map<String, String> experimentLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("schedlens.io/experiment", scenario.experiment());
    labels.put("schedlens.io/arm", arm.name());
    labels.put("schedlens.io/repeat", Integer.toString(repeat));
    return labels;
  }

  void writeMeta(SimPod p) {
    if (!p.gone) {
      api.updatePod(PodObjects.pod(p));
    }
  }

  void writeStatus(SimPod p) {
    if (!p.gone) {
      api.updatePodStatus(PodObjects.pod(p));
    }
  }

  /**
   * The pod's FailedScheduling series end (it was bound, or is being deleted): each written with
   * its last count if repeats since are held ({@link SchedulerWrites#ON_CHANGE}).
   */
  void failedSchedulingEnded(SimPod p) {
    for (var e : p.failedScheduling.entrySet()) {
      if (e.getValue().count != e.getValue().writtenCount) {
        writeFailedScheduling(p, e.getKey(), e.getValue());
      }
    }
  }

  void writeFailedScheduling(SimPod p, String note, SimPod.EventSeries s) {
    s.writtenCount = s.count;
    s.writtenAt = queue.now();
    api.schedulerEvent(
        PodObjects.schedulerEvent(
            s.name,
            p,
            null,
            "Warning",
            "FailedScheduling",
            "Scheduling",
            note,
            s.firstAt,
            s.count,
            s.lastAt));
  }

  /** Sets a condition; its transition time moves only when its status does. */
  void condition(SimPod p, String type, String status, String reason, String message) {
    SimPod.Condition old = p.conditions.get(type);
    long at = queue.now();
    if (old != null && old.status().equals(status)) {
      at = old.lastTransition();
    }
    p.conditions.put(type, new SimPod.Condition(status, reason, message, at));
  }
}
