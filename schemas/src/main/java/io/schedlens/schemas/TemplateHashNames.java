package io.schedlens.schemas;

import io.schedlens.avro.TopController;
import java.util.Map;

/**
 * The workload a ReplicaSet stands for by its name alone: a Deployment names its ReplicaSets after
 * itself plus "-" and the pod template's hash, which is also the pods' {@code pod-template-hash}
 * label; an Argo Rollout does the same with {@code rollouts-pod-template-hash}. Used where the
 * ReplicaSet itself cannot be read (a replay without owner objects, a collector not allowed to read
 * ReplicaSets): the workload is then known by name only, without its UID.
 */
public final class TemplateHashNames {

  /** The label a Deployment's ReplicaSet puts on its pods and appends to its own name. */
  public static final String DEPLOYMENT_HASH = "pod-template-hash";

  /** Argo Rollouts' counterpart of {@link #DEPLOYMENT_HASH}. */
  public static final String ROLLOUT_HASH = "rollouts-pod-template-hash";

  private TemplateHashNames() {}

  /**
   * The Deployment or Rollout a ReplicaSet named {@code replicaSet} belongs to, by its pods'
   * labels; null when the name does not end with either hash.
   */
  public static TopController parentOf(String replicaSet, Map<String, String> podLabels) {
    if (replicaSet == null || podLabels == null) {
      return null;
    }
    String parent = before(replicaSet, podLabels.get(DEPLOYMENT_HASH));
    if (parent != null) {
      return new TopController("apps/v1", "Deployment", parent, null);
    }
    parent = before(replicaSet, podLabels.get(ROLLOUT_HASH));
    return parent == null
        ? null
        : new TopController("argoproj.io/v1alpha1", "Rollout", parent, null);
  }

  /** The pod's template hash: its Deployment's ReplicaSet's, else its Rollout's; null without. */
  public static String hashOf(Map<String, String> podLabels) {
    String hash = podLabels.get(DEPLOYMENT_HASH);
    return hash != null ? hash : podLabels.get(ROLLOUT_HASH);
  }

  /**
   * Whether workloads of this kind are known by name alone: a Deployment or Rollout is found from
   * its pods' ReplicaSet's name when the chain is not read, without a UID.
   */
  public static boolean namesItsReplicaSets(String kind) {
    return kind.equals("Deployment") || kind.equals("Rollout");
  }

  private static String before(String name, String hash) {
    if (hash == null || hash.isEmpty() || !name.endsWith("-" + hash)) {
      return null;
    }
    String parent = name.substring(0, name.length() - hash.length() - 1);
    return parent.isEmpty() ? null : parent;
  }
}
