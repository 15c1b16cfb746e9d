package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.schedlens.base.KubeTime;
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
      long at) {
    JobBuilder b =
        new JobBuilder()
            .withApiVersion("batch/v1")
            .withKind("Job")
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withUid(uid)
            .withLabels(labels)
            .withManagedFields(written("kube-controller-manager", "status", at))
            .endMetadata()
            .withNewSpec()
            .withParallelism(parallelism)
            .withCompletions(completions)
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
