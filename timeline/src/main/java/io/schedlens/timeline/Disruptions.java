package io.schedlens.timeline;

import io.schedlens.base.DisruptionCause;
import java.util.Map;

/**
 * What ended a pod early, as Kubernetes names it: the DisruptionTarget condition's reason (set by
 * the component that decided), the pod's status.reason (set by the kubelet), or an event reason.
 * The causes themselves, and which one wins when a pod carries evidence of two, are {@link
 * DisruptionCause}.
 */
public final class Disruptions {

  public static final String PREEMPTION = DisruptionCause.PREEMPTION.wire();
  public static final String EVICTION_API = DisruptionCause.EVICTION_API.wire();
  public static final String TAINT_MANAGER = DisruptionCause.TAINT_MANAGER.wire();
  public static final String POD_GC = DisruptionCause.POD_GC.wire();
  public static final String KUBELET_EVICTION = DisruptionCause.KUBELET_EVICTION.wire();
  public static final String CRITICAL_POD_ADMISSION = DisruptionCause.CRITICAL_POD_ADMISSION.wire();
  public static final String NODE_SHUTDOWN = DisruptionCause.NODE_SHUTDOWN.wire();
  public static final String ROLLOUT = DisruptionCause.ROLLOUT.wire();
  public static final String DELETION = DisruptionCause.DELETION.wire();

  /** DisruptionTarget reasons (KEP-3329), including the 1.25-1.26 spelling of preemption. */
  static final Map<String, DisruptionCause> CONDITION_REASONS =
      Map.of(
          "PreemptionByScheduler", DisruptionCause.PREEMPTION,
          "PreemptionByKubeScheduler", DisruptionCause.PREEMPTION,
          "EvictionByEvictionAPI", DisruptionCause.EVICTION_API,
          "DeletionByTaintManager", DisruptionCause.TAINT_MANAGER,
          "DeletionByPodGC", DisruptionCause.POD_GC,
          "TerminationByKubelet", DisruptionCause.KUBELET_EVICTION);

  /** status.reason values the kubelet sets when it ends a pod. */
  static final Map<String, DisruptionCause> STATUS_REASONS =
      Map.of(
          "Evicted", DisruptionCause.KUBELET_EVICTION,
          "Preempting", DisruptionCause.CRITICAL_POD_ADMISSION,
          "Shutdown", DisruptionCause.NODE_SHUTDOWN,
          "NodeShutdown", DisruptionCause.NODE_SHUTDOWN,
          "Terminated", DisruptionCause.NODE_SHUTDOWN);

  /** Event reasons that name a disruption of the pod they regard. */
  static final Map<String, DisruptionCause> EVENT_REASONS =
      Map.of(
          "Evicted", DisruptionCause.KUBELET_EVICTION,
          "TaintManagerEviction", DisruptionCause.TAINT_MANAGER,
          "Preempting", DisruptionCause.CRITICAL_POD_ADMISSION);

  private Disruptions() {}

  /** The cause a DisruptionTarget condition names, refined by its message for the kubelet. */
  static DisruptionCause ofCondition(String reason, String message) {
    DisruptionCause cause = CONDITION_REASONS.get(reason);
    if (cause == DisruptionCause.KUBELET_EVICTION
        && message != null
        && message.contains("node shutdown")) {
      return DisruptionCause.NODE_SHUTDOWN;
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
