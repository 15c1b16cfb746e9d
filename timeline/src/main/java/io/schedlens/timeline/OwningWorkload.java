package io.schedlens.timeline;

import io.schedlens.avro.TopController;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.internal.TimelineIdentity;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.TemplateHashNames;
import io.schedlens.schemas.WorkloadKey;
import java.util.Map;

/**
 * The workload a pod belongs to (DESIGN section 4): the top of its controller chain as the
 * collector resolved it; else, for a pod observed without it (a replay without owner objects, an
 * older collector), its own controller, where a ReplicaSet named after its Deployment or Argo
 * Rollout by the pod's template hash is that Deployment or Rollout. A pod without a controller is
 * its own workload.
 */
public final class OwningWorkload {

  private OwningWorkload() {}

  /** The workload of the pod whose identity this is; null when it has no name yet. */
  public static WorkloadRef of(TimelineIdentity pod) {
    TopController top = topOf(pod);
    if (top == null) {
      return pod.getName() == null ? null : new WorkloadRef("Pod", pod.getName());
    }
    return new WorkloadRef(top.getKind(), top.getName());
  }

  /**
   * The workload of a pod by its controller alone, as {@link #of(TimelineIdentity)} without a
   * chain.
   */
  public static WorkloadRef of(
      String ownerKind, String ownerName, String podName, Map<String, String> labels) {
    TopController top = byController(ownerKind, ownerName, null, labels);
    if (top == null) {
      return podName == null ? null : new WorkloadRef("Pod", podName);
    }
    return new WorkloadRef(top.getKind(), top.getName());
  }

  /** The key of the pod's workload's state, or null when it has none known yet. */
  public static String keyOf(TimelineState s) {
    TimelineIdentity id = s.getIdentity();
    WorkloadRef w = of(id);
    if (w == null || id.getNamespace() == null) {
      return null;
    }
    TopController top = topOf(id);
    return key(id.getNamespace(), w, top == null ? null : top.getUid());
  }

  /** The key of workload topics and stores: {@code namespace/kind/name}. */
  public static String key(String namespace, WorkloadRef w) {
    return WorkloadKey.of(namespace, w.getKind(), w.getName()).topicKey();
  }

  /**
   * The key of a workload's state: {@code namespace/kind/name}, plus the top controller's UID, so
   * that a Job (or JobSet, RayCluster…) deleted and created again under the same name is another
   * workload, with its own preemption count. A Deployment's or Rollout's key has no UID: a pod
   * whose ReplicaSet was not read names it by name alone (as the collector's observations of
   * Deployments do), and its other pods must find the same workload.
   */
  public static String key(String namespace, WorkloadRef w, String controllerUid) {
    boolean keyedByName =
        TemplateHashNames.namesItsReplicaSets(w.getKind()) || w.getKind().equals("Pod");
    return new WorkloadKey(namespace, w.getKind(), w.getName(), keyedByName ? null : controllerUid)
        .identity();
  }

  private static TopController topOf(TimelineIdentity pod) {
    if (pod.getWorkload() != null) {
      return pod.getWorkload();
    }
    return byController(pod.getOwnerKind(), pod.getOwnerName(), pod.getOwnerUid(), pod.getLabels());
  }

  private static TopController byController(
      String kind, String name, String uid, Map<String, String> labels) {
    if (kind == null || name == null) {
      return null;
    }
    TopController parent =
        kind.equals("ReplicaSet") ? TemplateHashNames.parentOf(name, labels) : null;
    return parent != null ? parent : new TopController(null, kind, name, uid);
  }
}
