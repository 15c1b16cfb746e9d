package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.schedlens.base.KubeTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workload objects of the simulated cluster as the API shows them: a Deployment with its
 * replicas, rollout bounds and the template's hash; a StatefulSet with its replicas; a Job with its
 * parallelism, completions and, once done, its Complete condition; each with the managedFields time
 * of the write. Only what a watcher of desired replicas reads.
 */
final class WorkloadObjects {

  private WorkloadObjects() {}

  static Deployment deployment(
      String namespace,
      String name,
      String uid,
      int replicas,
      int maxSurge,
      int maxUnavailable,
      String templateHash,
      int readyReplicas,
      Map<String, String> labels,
      long at) {
    return new DeploymentBuilder()
        .withApiVersion("apps/v1")
        .withKind("Deployment")
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .withLabels(labels)
        .withManagedFields(written("kubectl", null, at))
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .addToMatchLabels("app.kubernetes.io/name", name)
        .endSelector()
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxSurge(new IntOrString(maxSurge))
        .withMaxUnavailable(new IntOrString(maxUnavailable))
        .endRollingUpdate()
        .endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app.kubernetes.io/name", name)
        .addToAnnotations("schedlens.io/simulated-template", templateHash)
        .endMetadata()
        .endTemplate()
        .endSpec()
        .withNewStatus()
        .withReadyReplicas(readyReplicas)
        .endStatus()
        .build();
  }

  static StatefulSet statefulSet(
      String namespace,
      String name,
      String uid,
      int replicas,
      int readyReplicas,
      Map<String, String> labels,
      long at) {
    return new StatefulSetBuilder()
        .withApiVersion("apps/v1")
        .withKind("StatefulSet")
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .withLabels(labels)
        .withManagedFields(written("kubectl", null, at))
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(name)
        .withPodManagementPolicy("Parallel")
        .withNewSelector()
        .addToMatchLabels("app.kubernetes.io/name", name)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app.kubernetes.io/name", name)
        .endMetadata()
        .endTemplate()
        .endSpec()
        .withNewStatus()
        .withReadyReplicas(readyReplicas)
        .endStatus()
        .build();
  }

  static Job job(
      String namespace,
      String name,
      String uid,
      int parallelism,
      int completions,
      int succeeded,
      Long completedAt,
      Map<String, String> labels,
      long at,
      OwnerReference owner,
      boolean suspended,
      Map<String, String> queueLabels) {
    Map<String, String> all = new LinkedHashMap<>(labels);
    all.putAll(queueLabels);
    JobBuilder b =
        new JobBuilder()
            .withApiVersion("batch/v1")
            .withKind("Job")
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(uid)
            .withLabels(all)
            .withOwnerReferences(owner == null ? List.of() : List.of(owner))
            .withManagedFields(written("kube-controller-manager", "status", at))
            .endMetadata()
            .withNewSpec()
            .withParallelism(parallelism)
            .withCompletions(completions)
            .withSuspend(suspended)
            .endSpec()
            .withNewStatus()
            .withSucceeded(succeeded)
            .endStatus();
    if (completedAt != null) {
      b.editStatus()
          .addNewCondition()
          .withType("Complete")
          .withStatus("True")
          .withLastTransitionTime(KubeTime.seconds(completedAt))
          .endCondition()
          .endStatus();
    }
    return b.build();
  }

  /** The one replicated Job of a simulated JobSet. */
  static final String JOBSET_REPLICATED_JOB = "workers";

  /**
   * A JobSet (jobset.x-k8s.io/v1alpha2) of one replicated Job, {@code workers}, of {@code pods}
   * parallel pods; completed at {@code completedAt} when not null. Fields as the JobSet API defines
   * them (spec.replicatedJobs[].template is a Job template; status.conditions).
   */
  static GenericKubernetesResource jobSet(
      String namespace,
      String name,
      String uid,
      int pods,
      Long completedAt,
      Map<String, String> labels,
      long at) {
    Map<String, Object> jobSpec = new LinkedHashMap<>();
    jobSpec.put("parallelism", pods);
    jobSpec.put("completions", pods);
    Map<String, Object> replicated = new LinkedHashMap<>();
    replicated.put("name", JOBSET_REPLICATED_JOB);
    replicated.put("replicas", 1);
    replicated.put("template", Map.of("spec", jobSpec));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("replicatedJobs", List.of(replicated));
    GenericKubernetesResource r =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("jobset.x-k8s.io/v1alpha2")
            .withKind("JobSet")
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(uid)
            .withLabels(labels)
            .withManagedFields(written("jobset-controller", "status", at))
            .endMetadata()
            .build();
    r.setAdditionalProperty("spec", spec);
    if (completedAt != null) {
      Map<String, Object> completed = new LinkedHashMap<>();
      completed.put("type", "Completed");
      completed.put("status", "True");
      completed.put("reason", "AllJobsCompleted");
      completed.put("lastTransitionTime", KubeTime.seconds(completedAt));
      r.setAdditionalProperty("status", Map.of("conditions", List.of(completed)));
    }
    return r;
  }

  /** The controller owner reference to {@code owner}, as its controller sets it on what it owns. */
  static OwnerReference controlledBy(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** The managedFields entry of the write at {@code at}: when a watcher sees it was changed. */
  private static ManagedFieldsEntry written(String manager, String subresource, long at) {
    return new ManagedFieldsEntryBuilder()
        .withManager(manager)
        .withOperation("Update")
        .withApiVersion("v1")
        .withSubresource(subresource)
        .withTime(KubeTime.seconds(at))
        .build();
  }
}
