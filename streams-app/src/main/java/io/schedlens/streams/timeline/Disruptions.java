package io.schedlens.streams.timeline;

import java.util.Map;

/**
 * What ended a pod early, as Kubernetes names it: the DisruptionTarget condition's reason (set by
 * the component that decided), the pod's status.reason (set by the kubelet), or an event reason.
 */
public final class Disruptions {

  public static final String PREEMPTION = "preemption";
  public static final String EVICTION_API = "eviction-api";
  public static final String TAINT_MANAGER = "taint-manager";
  public static final String POD_GC = "pod-gc";
  public static final String KUBELET_EVICTION = "kubelet-eviction";
  public static final String CRITICAL_POD_ADMISSION = "critical-pod-admission";
  public static final String NODE_SHUTDOWN = "node-shutdown";
  public static final String ROLLOUT = "rollout";
  public static final String DELETION = "deletion";

  /** DisruptionTarget reasons (KEP-3329), including the 1.25-1.26 spelling of preemption. */
  static final Map<String, String> CONDITION_REASONS =
      Map.of(
          "PreemptionByScheduler", PREEMPTION,
          "PreemptionByKubeScheduler", PREEMPTION,
          "EvictionByEvictionAPI", EVICTION_API,
          "DeletionByTaintManager", TAINT_MANAGER,
          "DeletionByPodGC", POD_GC,
          "TerminationByKubelet", KUBELET_EVICTION);

  /** status.reason values the kubelet sets when it ends a pod. */
  static final Map<String, String> STATUS_REASONS =
      Map.of(
          "Evicted", KUBELET_EVICTION,
          "Preempting", CRITICAL_POD_ADMISSION,
          "Shutdown", NODE_SHUTDOWN,
          "NodeShutdown", NODE_SHUTDOWN,
          "Terminated", NODE_SHUTDOWN);

  /** Event reasons that name a disruption of the pod they regard. */
  static final Map<String, String> EVENT_REASONS =
      Map.of(
          "Evicted", KUBELET_EVICTION,
          "TaintManagerEviction", TAINT_MANAGER,
          "Preempting", CRITICAL_POD_ADMISSION);

  private Disruptions() {}

  /** The cause a DisruptionTarget condition names, refined by its message for the kubelet. */
  static String ofCondition(String reason, String message) {
    String cause = CONDITION_REASONS.get(reason);
    if (KUBELET_EVICTION.equals(cause) && message != null && message.contains("node shutdown")) {
      return NODE_SHUTDOWN;
    }
    return cause;
  }

  /** Who disrupted, from a condition or event message "Component: text". */
  static String byOf(String message, String fallback) {
    if (message != null) {
      int colon = message.indexOf(':');
      if (colon > 0 && colon < 40) {
        return message.substring(0, colon);
      }
    }
    return fallback;
  }
}
