package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.base.KubeTime;
import io.schedlens.schemas.WorkloadKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload object to a {@link WorkloadObservation}: above all, how many replicas it wants. Pure.
 */
public final class WorkloadProjection {

  /** Job conditions after which a Job wants no pod (Kubernetes 1.31+ adds the first two). */
  static final List<String> JOB_DONE =
      List.of("SuccessCriteriaMet", "FailureTarget", "Complete", "Failed");

  private final List<String> labelKeys;

  public WorkloadProjection(List<String> labelKeys) {
    this.labelKeys = List.copyOf(labelKeys);
  }

  /** The key of the workloads topic: {@code namespace/kind/name}. */
  public static String key(WorkloadObservation o) {
    return WorkloadKey.of(o.getNamespace(), o.getKind(), o.getName()).topicKey();
  }

  public WorkloadObservation project(HasMetadata object, ChangeType change, long observedAt) {
    WorkloadObservation.Builder b =
        WorkloadObservation.newBuilder()
            .setNamespace(object.getMetadata().getNamespace())
            .setKind(object.getKind() != null ? object.getKind() : kindOf(object))
            .setName(object.getMetadata().getName())
            .setUid(object.getMetadata().getUid())
            .setResourceVersion(object.getMetadata().getResourceVersion())
            .setChangeType(change)
            .setObservedAt(observedAt)
            .setDesiredChangedAt(desiredChangedAt(object))
            .setLabels(labels(object));
    if (object instanceof Deployment d) {
      b.setDesired(replicas(d.getSpec() == null ? null : d.getSpec().getReplicas()));
      b.setReady(d.getStatus() == null ? null : orZero(d.getStatus().getReadyReplicas()));
      if (d.getSpec() != null
          && d.getSpec().getStrategy() != null
          && d.getSpec().getStrategy().getRollingUpdate() != null) {
        b.setMaxSurge(text(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge()));
        b.setMaxUnavailable(text(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable()));
      }
    } else if (object instanceof StatefulSet s) {
      b.setDesired(replicas(s.getSpec() == null ? null : s.getSpec().getReplicas()));
      b.setReady(s.getStatus() == null ? null : orZero(s.getStatus().getReadyReplicas()));
    } else if (object instanceof Job j) {
      b.setDesired(jobDesired(j));
      b.setReady(j.getStatus() == null ? null : orZero(j.getStatus().getReady()));
    } else {
      throw new IllegalArgumentException("not a workload object: " + object.getKind());
    }
    if (change == ChangeType.DELETED) {
      b.setDesired(0);
    }
    return b.build();
  }

  /**
   * A Job wants its parallelism (1 when unset), bounded by the completions still missing; nothing
   * once it is done or failed, or while it is suspended.
   */
  static int jobDesired(Job j) {
    if (j.getSpec() != null && Boolean.TRUE.equals(j.getSpec().getSuspend())) {
      return 0;
    }
    if (j.getStatus() != null && j.getStatus().getConditions() != null) {
      for (JobCondition c : j.getStatus().getConditions()) {
        if (JOB_DONE.contains(c.getType()) && "True".equals(c.getStatus())) {
          return 0;
        }
      }
    }
    int parallelism =
        j.getSpec() == null || j.getSpec().getParallelism() == null
            ? 1
            : j.getSpec().getParallelism();
    Integer completions = j.getSpec() == null ? null : j.getSpec().getCompletions();
    if (completions == null) {
      return parallelism;
    }
    int succeeded = j.getStatus() == null ? 0 : orZero(j.getStatus().getSucceeded());
    return Math.max(0, Math.min(parallelism, completions - succeeded));
  }

  /**
   * When what decides desired replicas was last written (managedFields times): a Deployment's or
   * StatefulSet's spec — the object itself or its scale subresource (kubectl scale, an autoscaler),
   * not the controller's status writes; a Job's status too (its completions and conditions). Null
   * when the server keeps no managedFields.
   */
  static Long desiredChangedAt(HasMetadata o) {
    List<ManagedFieldsEntry> entries = o.getMetadata().getManagedFields();
    if (entries == null) {
      return null;
    }
    boolean statusCounts = o instanceof Job;
    Long latest = null;
    for (ManagedFieldsEntry e : entries) {
      String sub = e.getSubresource();
      boolean spec = sub == null || sub.isEmpty() || sub.equals("scale");
      if (!spec && !statusCounts) {
        continue;
      }
      Long t = KubeTime.millis(e.getTime());
      if (t != null && (latest == null || t > latest)) {
        latest = t;
      }
    }
    return latest;
  }

  private static String kindOf(HasMetadata o) {
    return o instanceof Deployment
        ? "Deployment"
        : o instanceof StatefulSet ? "StatefulSet" : "Job";
  }

  private static int replicas(Integer r) {
    return r == null ? 1 : r;
  }

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }

  private static String text(IntOrString v) {
    if (v == null) {
      return null;
    }
    return v.getStrVal() != null ? v.getStrVal() : String.valueOf(v.getIntVal());
  }

  private Map<String, String> labels(HasMetadata o) {
    Map<String, String> out = new HashMap<>();
    Map<String, String> all = o.getMetadata().getLabels();
    if (all != null) {
      for (String k : labelKeys) {
        if (all.containsKey(k)) {
          out.put(k, all.get(k));
        }
      }
    }
    return out;
  }
}
