package io.schedlens.timeline;

import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.internal.TimelineIdentity;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.WorkloadKey;
import java.util.Map;

/**
 * The workload a pod belongs to, from its controller: a Job, a StatefulSet, a DaemonSet, or the
 * Deployment that owns its ReplicaSet. A ReplicaSet created by a Deployment is named after it plus
 * "-" and the pod template hash (also the pod's {@code pod-template-hash} label); without the hash
 * the ReplicaSet itself is the workload. A pod without a controller is its own workload.
 */
public final class OwningWorkload {

  public static final String TEMPLATE_HASH_LABEL = "pod-template-hash";

  private OwningWorkload() {}

  /** The workload of the pod whose identity this is (its controller, name and labels). */
  public static WorkloadRef of(TimelineIdentity pod) {
    return of(pod.getOwnerKind(), pod.getOwnerName(), pod.getName(), pod.getLabels());
  }

  public static WorkloadRef of(
      String ownerKind, String ownerName, String podName, Map<String, String> labels) {
    if (ownerKind == null || ownerName == null) {
      return podName == null ? null : new WorkloadRef("Pod", podName);
    }
    if (ownerKind.equals("ReplicaSet")) {
      String hash = labels == null ? null : labels.get(TEMPLATE_HASH_LABEL);
      if (hash != null && ownerName.endsWith("-" + hash)) {
        return new WorkloadRef(
            "Deployment", ownerName.substring(0, ownerName.length() - hash.length() - 1));
      }
    }
    return new WorkloadRef(ownerKind, ownerName);
  }

  /** The key of workload topics and stores: {@code namespace/kind/name}. */
  /** The key of the pod's workload's state, or null when it has none known yet. */
  public static String keyOf(TimelineState s) {
    WorkloadRef w = of(s.getIdentity());
    if (w == null || s.getIdentity().getNamespace() == null) {
      return null;
    }
    return key(s.getIdentity().getNamespace(), w, s.getIdentity().getOwnerUid());
  }

  public static String key(String namespace, WorkloadRef w) {
    return WorkloadKey.of(namespace, w.getKind(), w.getName()).topicKey();
  }

  /**
   * The key of a workload's state: {@code namespace/kind/name}, plus the controller's UID when the
   * pod's own controller is the workload (a Job, a StatefulSet): a Job deleted and created again
   * under the same name is another workload, with its own preemption count. A Deployment is known
   * from its pods only by name (their controller is a ReplicaSet), so its key has no UID.
   */
  public static String key(String namespace, WorkloadRef w, String controllerUid) {
    boolean controllerIsWorkload = !w.getKind().equals("Deployment") && !w.getKind().equals("Pod");
    return new WorkloadKey(
            namespace, w.getKind(), w.getName(), controllerIsWorkload ? controllerUid : null)
        .identity();
  }
}
