package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.schedlens.base.KubeTime;
import io.schedlens.base.KueueNames;
import io.schedlens.simulator.scenario.Kueue.ClusterQueue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Kueue Workload of the simulated cluster: the Job it admits, its ClusterQueue, priority and
 * request, where it stands, and its status conditions as Kueue keeps them (a condition's
 * lastTransitionTime changes only when its status does, as {@code meta.SetStatusCondition} does).
 * Rendered as the {@code kueue.x-k8s.io/v1beta2} object Kueue writes.
 */
final class QueuedWorkload {

  /** Where a Workload stands. */
  enum Stand {
    /** Waiting for quota (new, or re-queued after an eviction). */
    PENDING,
    /** Holding quota; its Job runs. */
    ADMITTED,
    /** Evicted: still holding quota until its Job's pods have stopped. */
    EVICTING,
    /** Its Job finished: quota released. */
    FINISHED
  }

  final String uid;
  final String name;
  final JobController job;
  final String localQueue;
  final ClusterQueue clusterQueue;
  final int priority;

  /** Its WorkloadPriorityClass, or null. */
  final String priorityClass;

  final int gpus;
  final long createdAt;
  Stand stand = Stand.PENDING;

  /** When its current or latest admission was made; null before the first. */
  Long admittedAt;

  /** How long that admission waited, as Kueue counts it (since creation or re-queueing). */
  Long queueWaitMs;

  /** Re-queued this many times. */
  int requeues;

  /** Whether the Pending message of its current wait is written. */
  boolean pendingTold;

  private final Map<String, Map<String, Object>> conditions = new LinkedHashMap<>();

  QueuedWorkload(
      String uid,
      String name,
      JobController job,
      String localQueue,
      ClusterQueue clusterQueue,
      int priority,
      String priorityClass,
      int gpus,
      long createdAt) {
    this.uid = uid;
    this.name = name;
    this.job = job;
    this.localQueue = localQueue;
    this.clusterQueue = clusterQueue;
    this.priority = priority;
    this.priorityClass = priorityClass;
    this.gpus = gpus;
    this.createdAt = createdAt;
  }

  /** Whether it holds quota in its ClusterQueue. */
  boolean holdsQuota() {
    return stand == Stand.ADMITTED || stand == Stand.EVICTING;
  }

  /**
   * When its Requeued condition became True: Kueue sets it when an evicted Workload's pods have
   * stopped, and keeps it True (with its first transition time) through later admissions.
   */
  Long requeuedAt;

  /**
   * The time its current wait began, as Kueue's {@code QueuedWaitTime} takes it: the Requeued
   * condition's last transition when it has one, else its creation. (So a Workload evicted twice
   * counts its third wait from its first re-queueing, as Kueue does.)
   */
  long waitingSince() {
    return requeuedAt != null ? requeuedAt : createdAt;
  }

  /** The message of its active Evicted condition, or null. */
  String evictionMessage() {
    Map<String, Object> evicted = conditions.get("Evicted");
    return evicted != null && "True".equals(evicted.get("status"))
        ? (String) evicted.get("message")
        : null;
  }

  /**
   * Sets a condition; its lastTransitionTime is {@code at} only when its status changes (or it is
   * new).
   */
  void condition(String type, boolean status, String reason, String message, long at) {
    Map<String, Object> c = conditions.get(type);
    String s = status ? "True" : "False";
    Map<String, Object> next = new LinkedHashMap<>();
    next.put("type", type);
    next.put("status", s);
    next.put("reason", reason);
    next.put("message", message);
    next.put(
        "lastTransitionTime",
        c != null && s.equals(c.get("status"))
            ? c.get("lastTransitionTime")
            : KubeTime.seconds(at));
    next.put("observedGeneration", 1);
    conditions.put(type, next);
  }

  /** An active condition set to False with "Previously: …", as Kueue does on a new admission. */
  void reset(String type, String reason, long at) {
    Map<String, Object> c = conditions.get(type);
    if (c != null && "True".equals(c.get("status"))) {
      condition(type, false, reason, "Previously: " + c.get("message"), at);
    }
  }

  /** The Workload object as the API shows it. */
  GenericKubernetesResource object(String namespace) {
    Map<String, Object> podSet = new LinkedHashMap<>();
    podSet.put("name", "main");
    podSet.put("count", job.parallelism());
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("queueName", localQueue);
    spec.put("active", true);
    spec.put("podSets", List.of(podSet));
    spec.put("priority", priority);
    if (priorityClass != null) {
      spec.put(
          "priorityClassRef",
          Map.of(
              "group", KueueNames.GROUP, "kind", "WorkloadPriorityClass", "name", priorityClass));
    }
    Map<String, Object> status = new LinkedHashMap<>();
    if (holdsQuota()) {
      Map<String, Object> assignment = new LinkedHashMap<>();
      assignment.put("name", "main");
      assignment.put("count", job.parallelism());
      assignment.put("flavors", Map.of("nvidia.com/gpu", KueueManager.FLAVOR));
      assignment.put("resourceUsage", Map.of("nvidia.com/gpu", Integer.toString(gpus)));
      Map<String, Object> admission = new LinkedHashMap<>();
      admission.put("clusterQueue", clusterQueue.name());
      admission.put("podSetAssignments", List.of(assignment));
      status.put("admission", admission);
    }
    status.put("conditions", new ArrayList<>(conditions.values()));
    if (requeues > 0) {
      status.put("requeueState", Map.of("count", requeues));
    }
    GenericKubernetesResource r =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(KueueNames.GROUP + "/v1beta2")
            .withKind("Workload")
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(uid)
            .withCreationTimestamp(KubeTime.seconds(createdAt))
            .addToLabels("kueue.x-k8s.io/job-uid", job.uid)
            .withOwnerReferences(WorkloadObjects.controlledBy(job.object(null)))
            .endMetadata()
            .build();
    r.setAdditionalProperty("spec", spec);
    r.setAdditionalProperty("status", status);
    return r;
  }
}
