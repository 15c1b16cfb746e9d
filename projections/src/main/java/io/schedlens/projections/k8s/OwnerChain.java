package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.schedlens.avro.TopController;
import io.schedlens.schemas.TemplateHashNames;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pod's workload (DESIGN section 4): its controller chain followed up the {@code controller:
 * true} owner references to the object no controller owns — a Deployment or an Argo Rollout through
 * its ReplicaSet, a LeaderWorkerSet through its StatefulSets, a JobSet or a Kubeflow TrainJob
 * through its Jobs, a RayJob through its RayCluster, any other kind whose objects can be looked up.
 * A CronJob's Job stays the workload (each run is one). Where an object of the chain cannot be
 * looked up (its kind is not read, or it is gone), the chain ends at it, known by the reference
 * that names it; a ReplicaSet named after its Deployment or Rollout by the pod's template-hash
 * label is then that Deployment or Rollout, known by name only. Pure: the same chain and lookups
 * give the same workload, live in the collector and in a replay of recorded objects.
 */
public final class OwnerChain {

  /** How far a chain is followed; real chains are at most four objects long (Pod, Job, JobSet…). */
  static final int MAX_DEPTH = 8;

  /** What an owner reference with {@code controller: true} names. */
  public record Ref(String apiVersion, String kind, String name, String uid) {

    /** The controlling reference among {@code refs}, or null when none controls. */
    public static Ref controllerOf(List<OwnerReference> refs) {
      if (refs == null) {
        return null;
      }
      for (OwnerReference r : refs) {
        if (Boolean.TRUE.equals(r.getController()) && r.getKind() != null && r.getName() != null) {
          return new Ref(r.getApiVersion(), r.getKind(), r.getName(), r.getUid());
        }
      }
      return null;
    }

    /** The group of the apiVersion ("" for the core group). */
    public String group() {
      return groupOf(apiVersion);
    }
  }

  /**
   * An object a chain may run through, as far as the chain needs it: what it is, and what controls
   * it (null when nothing does).
   */
  public record Owner(String apiVersion, String kind, String name, String uid, Ref controller) {

    /** The object's identity and controller, from its metadata. */
    public static Owner of(HasMetadata o) {
      ObjectMeta meta = o.getMetadata();
      return new Owner(
          o.getApiVersion(),
          o.getKind(),
          meta.getName(),
          meta.getUid(),
          Ref.controllerOf(meta.getOwnerReferences()));
    }
  }

  /** Finds the object a reference names, in the namespace of the pod; null when not known. */
  @FunctionalInterface
  public interface Lookup {
    Owner find(String namespace, Ref ref);
  }

  /** A lookup that knows no object: chains end at the pod's own controller. */
  public static final Lookup NONE = (namespace, ref) -> null;

  private OwnerChain() {}

  /** The workload of a pod, from its own metadata and the owners {@code lookup} finds. */
  public static TopController topOf(HasMetadata pod, Lookup lookup) {
    ObjectMeta m = pod.getMetadata();
    return top(m.getNamespace(), Ref.controllerOf(m.getOwnerReferences()), m.getLabels(), lookup);
  }

  /**
   * The workload of a pod whose controller is {@code controller} (null for a pod without one: it is
   * its own workload, and this is null too).
   *
   * @param podLabels the pod's labels, for the template-hash naming of a ReplicaSet not looked up
   */
  public static TopController top(
      String namespace, Ref controller, Map<String, String> podLabels, Lookup lookup) {
    if (controller == null) {
      return null;
    }
    Ref current = controller;
    Set<String> seen = new HashSet<>();
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
      Owner o = lookup.find(namespace, current);
      if (o == null) {
        return depth == 0 ? byName(current, podLabels) : of(current);
      }
      Ref up = o.controller();
      if (up == null || isCronJobRun(o) || !seen.add(key(current))) {
        return of(current);
      }
      current = up;
    }
    return of(current);
  }

  /** A Job a CronJob created: one run, a workload of its own. */
  private static boolean isCronJobRun(Owner o) {
    return "Job".equals(o.kind())
        && "batch".equals(groupOf(o.apiVersion()))
        && "CronJob".equals(o.controller().kind())
        && "batch".equals(o.controller().group());
  }

  /**
   * The pod's own controller, not looked up: a ReplicaSet named after its Deployment or Rollout by
   * the pod's template hash is that Deployment or Rollout.
   */
  private static TopController byName(Ref ref, Map<String, String> podLabels) {
    TopController parent =
        "ReplicaSet".equals(ref.kind()) ? TemplateHashNames.parentOf(ref.name(), podLabels) : null;
    return parent != null ? parent : of(ref);
  }

  private static TopController of(Ref ref) {
    return new TopController(ref.apiVersion(), ref.kind(), ref.name(), ref.uid());
  }

  private static String key(Ref ref) {
    return ref.uid() != null ? ref.uid() : ref.group() + "/" + ref.kind() + "/" + ref.name();
  }

  static String groupOf(String apiVersion) {
    if (apiVersion == null) {
      return "";
    }
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }
}
