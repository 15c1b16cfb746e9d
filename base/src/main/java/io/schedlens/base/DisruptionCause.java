package io.schedlens.base;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What ended a pod early: the closed vocabulary of {@code disruption.cause} on a pod timeline, a
 * workload's interruptions and recoveries, and the simulator's ground truth. The declaration order
 * is the precedence: when a pod carries evidence of two causes within the same second, the one
 * declared first is the cause. The order puts the component that decided before the mechanisms that
 * carry a decision out (the scheduler preempts, then the kubelet or the pod garbage collector
 * removes the victim), explicit evidence before inference (a drain's eviction condition before a
 * rollout that schedlens infers), and a plain deletion last. Evidence a second or more earlier wins
 * whatever its cause: the first thing that happened to the pod ended it.
 */
public enum DisruptionCause {
  /** The scheduler preempted the pod for a higher-priority one (PreemptionByScheduler). */
  PREEMPTION("preemption"),
  /**
   * Kueue preempted the pod's Workload (Evicted, reason Preempted): within its ClusterQueue, to
   * reclaim quota in its cohort, or for fair sharing. Its Job is suspended and its pods deleted.
   */
  QUEUE_PREEMPTION("queue-preemption"),
  /**
   * Kueue evicted the pod's Workload for another reason: PodsReadyTimeout, AdmissionCheck, a
   * stopped or deactivated queue or Workload, node failures.
   */
  QUEUE_EVICTION("queue-eviction"),
  /** The kubelet preempted it to admit a critical pod (status reason Preempting). */
  CRITICAL_POD_ADMISSION("critical-pod-admission"),
  /** The kubelet evicted it under node pressure (Evicted, TerminationByKubelet). */
  KUBELET_EVICTION("kubelet-eviction"),
  /** The node shut down gracefully (NodeShutdown, Shutdown, Terminated). */
  NODE_SHUTDOWN("node-shutdown"),
  /** A NoExecute taint it did not tolerate, e.g. an unreachable node (DeletionByTaintManager). */
  TAINT_MANAGER("taint-manager"),
  /** An Eviction API call, e.g. kubectl drain (EvictionByEvictionAPI). */
  EVICTION_API("eviction-api"),
  /** The pod garbage collector, e.g. a pod on a node that is gone (DeletionByPodGC). */
  POD_GC("pod-gc"),
  /** A Deployment's rollout replaced its ReplicaSet (inferred: Kubernetes marks nothing). */
  ROLLOUT("rollout"),
  /** A deletion with no other cause: a scale-down, a user, a finished Job's TTL. */
  DELETION("deletion");

  private static final Map<String, DisruptionCause> BY_WIRE =
      Arrays.stream(values()).collect(Collectors.toMap(c -> c.wire, Function.identity()));

  private final String wire;

  DisruptionCause(String wire) {
    this.wire = wire;
  }

  /** The name on the wire and in reports, e.g. {@code eviction-api}. */
  public String wire() {
    return wire;
  }

  /** The cause of a wire name; an unknown name is an error (the vocabulary is closed). */
  public static DisruptionCause of(String wire) {
    DisruptionCause c = BY_WIRE.get(wire);
    if (c == null) {
      throw new IllegalArgumentException(
          "unknown disruption cause '" + wire + "'; known: " + BY_WIRE.keySet());
    }
    return c;
  }

  /** The cause of a wire name, or null for null. */
  public static DisruptionCause ofNullable(String wire) {
    return wire == null ? null : of(wire);
  }

  /**
   * Whether evidence of this cause at {@code at} decides over evidence of {@code other} at {@code
   * otherAt}: the earlier second wins; within one second (Kubernetes' condition times are whole
   * seconds, events' microseconds), the cause declared first; for one cause, the earlier time.
   */
  public boolean decidesOver(long at, DisruptionCause other, long otherAt) {
    long second = Math.floorDiv(at, 1000);
    long otherSecond = Math.floorDiv(otherAt, 1000);
    if (second != otherSecond) {
      return second < otherSecond;
    }
    if (this != other) {
      return ordinal() < other.ordinal();
    }
    return at < otherAt;
  }

  /** Whether this cause ends the pod's own work early (every cause but a plain deletion). */
  public boolean endsEarly() {
    return this != DELETION;
  }

  @Override
  public String toString() {
    return wire;
  }
}
