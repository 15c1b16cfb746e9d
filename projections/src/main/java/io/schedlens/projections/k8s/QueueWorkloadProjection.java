package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.base.KubeTime;
import io.schedlens.base.KueueNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kueue Workload ({@code workloads.kueue.x-k8s.io}, v1beta1 or v1beta2) to the observations of
 * the objects it admits. Pure.
 *
 * <p>Kueue's job integrations make the Job (JobSet, RayJob, TrainJob, …) the Workload's controller
 * owner; a pod group's Workload is owned by each of its pods, none of them its controller. The
 * observation goes to the workload the pods belong to: the controller owner, else each owning pod
 * (a bare pod is its own workload). A Workload owned by neither (a pod with a controller of its
 * own, under Kueue's single-pod integration) admits no workload schedlens keeps apart: it gives no
 * observation.
 */
public final class QueueWorkloadProjection {

  /** Kueue's API group. */
  public static final String GROUP = KueueNames.GROUP;

  /** The label that names a Job's or pod's LocalQueue. */
  public static final String QUEUE_LABEL = KueueNames.QUEUE_LABEL;

  /** The versions of the Workload API this projection reads, newest first. */
  public static final List<String> VERSIONS = List.of("v1beta2", "v1beta1");

  /**
   * The preemptor in Kueue's message: "Preempted to accommodate a workload (UID: …, JobUID: …) due
   * to …" (pkg/scheduler/preemption/preemption.go, v0.9 and later; "UNKNOWN" where it had none).
   */
  private static final Pattern PREEMPTOR =
      Pattern.compile("\\(UID: ([^,)\\s]+)(?:, JobUID: ([^,)\\s]+))?");

  private static final String UNKNOWN = "UNKNOWN";

  private QueueWorkloadProjection() {}

  /**
   * The observations of the objects this Workload admits.
   *
   * @param preemptors namespace/kind/name of what a Workload admits, by its UID, as far as the
   *     caller knows; null for one it does not
   */
  public static List<WorkloadObservation> project(
      GenericKubernetesResource workload,
      ChangeType change,
      long observedAt,
      Function<String, String> preemptors) {
    var meta = workload.getMetadata();
    if (meta == null || meta.getUid() == null || meta.getNamespace() == null) {
      return List.of();
    }
    QueueWorkload q = queueWorkload(workload, preemptors);
    List<WorkloadObservation> out = new ArrayList<>();
    for (OwnerReference owner : admitted(meta.getOwnerReferences())) {
      out.add(
          WorkloadObservation.newBuilder()
              .setNamespace(meta.getNamespace())
              .setKind(owner.getKind())
              .setName(owner.getName())
              .setUid(owner.getUid())
              .setResourceVersion(meta.getResourceVersion())
              .setChangeType(change)
              .setObservedAt(observedAt)
              .setDesired(0)
              .setQueueWorkload(QueueWorkload.newBuilder(q).build()) // one each: not shared
              .build());
    }
    return out;
  }

  /**
   * namespace/kind/name of what a Workload admits, as a preemption's {@code by} names it: its
   * controller owner, else its first owning pod; null for neither.
   */
  public static String admits(GenericKubernetesResource workload) {
    var meta = workload.getMetadata();
    List<OwnerReference> owners = meta == null ? null : admitted(meta.getOwnerReferences());
    if (owners == null || owners.isEmpty()) {
      return null;
    }
    return meta.getNamespace() + "/" + owners.get(0).getKind() + "/" + owners.get(0).getName();
  }

  /** The controller owner, else every owning pod. */
  static List<OwnerReference> admitted(List<OwnerReference> owners) {
    if (owners == null) {
      return List.of();
    }
    for (OwnerReference o : owners) {
      if (Boolean.TRUE.equals(o.getController()) && o.getName() != null) {
        return List.of(o);
      }
    }
    List<OwnerReference> pods = new ArrayList<>();
    for (OwnerReference o : owners) {
      if ("Pod".equals(o.getKind()) && "v1".equals(o.getApiVersion()) && o.getName() != null) {
        pods.add(o);
      }
    }
    return pods;
  }

  /** What the streams app reads of a Workload. */
  public static QueueWorkload queueWorkload(
      GenericKubernetesResource workload, Function<String, String> preemptors) {
    var meta = workload.getMetadata();
    Map<String, Object> spec = map(workload.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(workload.getAdditionalProperties().get("status"));
    List<QueueCondition> conditions = conditions(status.get("conditions"));
    QueueWorkload.Builder b =
        QueueWorkload.newBuilder()
            .setName(meta.getName())
            .setUid(meta.getUid())
            .setApiVersion(workload.getApiVersion() == null ? GROUP : workload.getApiVersion())
            .setCreatedAt(orZero(KubeTime.millis(meta.getCreationTimestamp())))
            .setLocalQueue(text(spec.get("queueName")))
            .setClusterQueue(text(map(status.get("admission")).get("clusterQueue")))
            .setPriorityClass(priorityClass(spec))
            .setPriority(integer(spec.get("priority")))
            .setConditions(conditions);
    Map<String, Object> requeue = map(status.get("requeueState"));
    b.setRequeueCount(integer(requeue.get("count")));
    b.setRequeueAt(KubeTime.millis(text(requeue.get("requeueAt"))));
    String[] preemptor = preemptor(conditions);
    if (preemptor != null) {
      b.setPreemptorUid(preemptor[0]);
      b.setPreemptorJobUid(preemptor[1]);
      b.setPreemptor(preemptor[0] == null ? null : preemptors.apply(preemptor[0]));
    }
    return b.build();
  }

  /** v1beta2 names its priority class by reference, v1beta1 by name. */
  private static String priorityClass(Map<String, Object> spec) {
    String byRef = text(map(spec.get("priorityClassRef")).get("name"));
    String byName = text(spec.get("priorityClassName"));
    String name = byRef != null ? byRef : byName;
    return name == null || name.isEmpty() ? null : name;
  }

  /**
   * The preempting Workload's and job's UIDs, from the active Evicted condition of a preemption,
   * else the active Preempted condition; null when neither is active.
   */
  static String[] preemptor(List<QueueCondition> conditions) {
    for (String type : List.of("Evicted", "Preempted")) {
      for (QueueCondition c : conditions) {
        if (c.getType().equals(type)
            && "True".equals(c.getStatus())
            && c.getMessage() != null
            && (type.equals("Preempted") || "Preempted".equals(c.getReason()))) {
          Matcher m = PREEMPTOR.matcher(c.getMessage());
          if (m.find()) {
            return new String[] {known(m.group(1)), known(m.group(2))};
          }
        }
      }
    }
    return null;
  }

  private static String known(String uid) {
    return uid == null || uid.equals(UNKNOWN) ? null : uid;
  }

  private static List<QueueCondition> conditions(Object raw) {
    List<QueueCondition> out = new ArrayList<>();
    if (raw instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> c = map(o);
        String type = text(c.get("type"));
        String status = text(c.get("status"));
        if (type == null || status == null) {
          continue;
        }
        out.add(
            new QueueCondition(
                type,
                status,
                text(c.get("reason")),
                text(c.get("message")),
                KubeTime.millis(text(c.get("lastTransitionTime")))));
      }
    }
    out.sort(
        (x, y) -> x.getType().toString().compareTo(y.getType().toString())); // stable projection
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static String text(Object o) {
    return o == null ? null : o.toString();
  }

  private static Integer integer(Object o) {
    return o instanceof Number n ? n.intValue() : null;
  }

  private static long orZero(Long l) {
    return l == null ? 0L : l;
  }
}
