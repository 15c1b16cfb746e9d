package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.WorkloadObservation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Desired replicas as the Deployment and Job controllers read their objects. */
class WorkloadProjectionTest {

  final WorkloadProjection projection = new WorkloadProjection(List.of("schedlens.io/arm"));

  static Deployment deployment(Integer replicas) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withNamespace("ai-lab")
        .withName("chat")
        .withUid("u-d")
        .addToLabels("schedlens.io/arm", "treatment")
        .addToLabels("team", "llm")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxSurge(new IntOrString(0))
        .withMaxUnavailable(new IntOrString("25%"))
        .endRollingUpdate()
        .endStrategy()
        .endSpec()
        .withNewStatus()
        .withReadyReplicas(2)
        .endStatus()
        .build();
  }

  @Test
  void shouldReadADeploymentsReplicasAndRolloutBounds() {
    WorkloadObservation o = projection.project(deployment(3), ChangeType.MODIFIED, 1000L);

    assertThat(WorkloadProjection.key(o)).isEqualTo("ai-lab/Deployment/chat");
    assertThat(o.getDesired()).isEqualTo(3);
    assertThat(o.getReady()).isEqualTo(2);
    assertThat(o.getMaxSurge()).isEqualTo("0");
    assertThat(o.getMaxUnavailable()).isEqualTo("25%");
    assertThat(o.getLabels()).containsOnlyKeys("schedlens.io/arm");
    assertThat(projection.project(deployment(null), ChangeType.MODIFIED, 1000L).getDesired())
        .as("spec.replicas defaults to 1")
        .isEqualTo(1);
    assertThat(projection.project(deployment(3), ChangeType.DELETED, 1000L).getDesired())
        .as("a deleted Deployment wants nothing")
        .isZero();
  }

  static JobBuilder job(Integer parallelism, Integer completions, int succeeded) {
    return new JobBuilder()
        .withNewMetadata()
        .withNamespace("ai-lab")
        .withName("embed")
        .withUid("u-j")
        .endMetadata()
        .withNewSpec()
        .withParallelism(parallelism)
        .withCompletions(completions)
        .endSpec()
        .withNewStatus()
        .withSucceeded(succeeded)
        .endStatus();
  }

  @Test
  void shouldBoundAJobsParallelismByTheCompletionsStillMissing() {
    assertThat(WorkloadProjection.jobDesired(job(4, 10, 0).build())).isEqualTo(4);
    assertThat(WorkloadProjection.jobDesired(job(4, 10, 8).build())).isEqualTo(2);
    assertThat(WorkloadProjection.jobDesired(job(null, null, 0).build()))
        .as("defaults: parallelism 1")
        .isEqualTo(1);
    assertThat(WorkloadProjection.jobDesired(job(3, null, 5).build()))
        .as("a work queue: parallelism until done")
        .isEqualTo(3);
  }

  @Test
  void shouldWantNothingOfAJobThatIsDoneFailedOrSuspended() {
    Job complete =
        job(1, 1, 1)
            .editStatus()
            .addNewCondition()
            .withType("Complete")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();
    Job failing =
        job(2, 5, 1)
            .editStatus()
            .addNewCondition()
            .withType("FailureTarget")
            .withStatus("True")
            .endCondition()
            .endStatus()
            .build();
    Job suspended = job(2, 5, 0).editSpec().withSuspend(true).endSpec().build();

    assertThat(WorkloadProjection.jobDesired(complete)).isZero();
    assertThat(WorkloadProjection.jobDesired(failing)).isZero();
    assertThat(WorkloadProjection.jobDesired(suspended)).isZero();
    assertThat(projection.project(complete, ChangeType.MODIFIED, 5L).getKind()).isEqualTo("Job");
  }

  static io.fabric8.kubernetes.api.model.ManagedFieldsEntry write(String sub, String time) {
    return new io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder()
        .withManager(sub == null ? "kubectl" : "kube-controller-manager")
        .withOperation("Update")
        .withSubresource(sub)
        .withTime(time)
        .build();
  }

  @Test
  void shouldTimeADeploymentsDesiredReplicasByItsSpecWritesNotItsStatusWrites() {
    // kubectl scale at 10:05:00 (scale subresource); the controller's status write at 10:05:40.
    Deployment d = deployment(3);
    d.getMetadata()
        .setManagedFields(
            List.of(
                write(null, "2026-11-29T10:00:00Z"),
                write("scale", "2026-11-29T10:05:00Z"),
                write("status", "2026-11-29T10:05:40Z")));

    WorkloadObservation o = projection.project(d, ChangeType.MODIFIED, 999L);

    assertThat(o.getDesiredChangedAt())
        .isEqualTo(java.time.Instant.parse("2026-11-29T10:05:00Z").toEpochMilli());
    assertThat(o.getObservedAt()).as("read time, kept apart").isEqualTo(999L);
    assertThat(projection.project(deployment(3), ChangeType.MODIFIED, 5L).getDesiredChangedAt())
        .as("no managedFields: unknown")
        .isNull();
  }

  @Test
  void shouldTimeAJobsDesiredReplicasByItsStatusToo() {
    // A Job's desired count falls when the controller records completions (status).
    Job j = job(2, 4, 4).build();
    j.getMetadata()
        .setManagedFields(
            List.of(write(null, "2026-11-29T10:00:00Z"), write("status", "2026-11-29T10:30:00Z")));

    assertThat(WorkloadProjection.desiredChangedAt(j))
        .isEqualTo(java.time.Instant.parse("2026-11-29T10:30:00Z").toEpochMilli());
  }
}
