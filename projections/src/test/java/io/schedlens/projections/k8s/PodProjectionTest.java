package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.PodObservation;
import io.schedlens.testsupport.Fixtures;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodProjectionTest {

  static final PodProjection PROJECTION =
      new PodProjection(
          List.of("schedlens.io/experiment", "schedlens.io/arm", "schedlens.io/repeat"),
          List.of("schedlens.io/last-checkpoint"));

  static long t(String s) {
    return Instant.parse(s).toEpochMilli();
  }

  @Test
  void shouldProjectAPendingGpuPodWithItsUnschedulableConditionTime() {
    Pod pod = K8sFixtures.pod("troubleshoot-message-pending-pod-resources.json");

    PodObservation o = PROJECTION.project(pod, ChangeType.ADDED, 1L);

    assertThat(o.getUid()).isEqualTo("e4d4c4cc-2c41-4ab7-b41c-9c8b28ded451");
    assertThat(o.getName()).isEqualTo("pending-pod-resources-5fddcf7688-djjfc");
    assertThat(o.getGpus()).isEqualTo(5);
    assertThat(o.getCreatedAt()).isEqualTo(t("2023-07-11T04:20:29Z"));
    assertThat(o.getPhase()).isEqualTo("Pending");
    assertThat(o.getNodeName()).isNull();
    assertThat(o.getOwner().getKind()).isEqualTo("ReplicaSet");
    assertThat(o.getOwner().getName()).isEqualTo("pending-pod-resources-5fddcf7688");
    assertThat(o.getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("PodScheduled");
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("Unschedulable");
              assertThat(c.getLastTransitionTime()).isEqualTo(t("2023-07-11T04:20:29Z"));
            });
    assertThat(o.getContainers()).isEmpty();
    assertThat(o.getChangeType()).isEqualTo(ChangeType.ADDED);
    assertThat(o.getObservedAt()).isEqualTo(1L);
  }

  @Test
  void shouldKeepAnOomKilledContainerWithSecondGranularStartAndFinish() {
    PodObservation o =
        PROJECTION.project(
            K8sFixtures.pod("troubleshoot-message-oomkill-pod.json"), ChangeType.MODIFIED, 1L);

    assertThat(o.getPhase()).isEqualTo("Failed");
    assertThat(o.getOwner().getKind()).isEqualTo("Job");
    assertThat(o.getGpus()).isZero();
    ContainerStatus c = o.getContainers().get(0);
    assertThat(c.getName()).isEqualTo("memory-eater");
    assertThat(c.getInit()).isFalse();
    assertThat(c.getTerminatedExitCode()).isEqualTo(137);
    assertThat(c.getTerminatedReason()).isEqualTo("OOMKilled");
    assertThat(c.getTerminatedStartedAt()).isEqualTo(t("2023-07-11T04:43:25Z"));
    assertThat(c.getTerminatedFinishedAt()).isEqualTo(c.getTerminatedStartedAt());
    assertThat(c.getRunningStartedAt()).isNull();
  }

  @Test
  void shouldKeepTheLastTerminationOfACrashLoopingContainer() {
    ContainerStatus c =
        PROJECTION
            .project(
                K8sFixtures.pod("troubleshoot-message-pod-crashloop-backoff.json"),
                ChangeType.MODIFIED,
                1L)
            .getContainers()
            .get(0);

    assertThat(c.getWaitingReason()).isEqualTo("CrashLoopBackOff");
    assertThat(c.getLastTerminatedExitCode()).isEqualTo(127);
    assertThat(c.getLastTerminatedReason()).isEqualTo("ContainerCannotRun");
    assertThat(c.getLastTerminatedStartedAt()).isEqualTo(t("2023-07-11T03:33:15Z"));
    assertThat(c.getRestartCount()).isPositive();
  }

  @Test
  void shouldMarkInitContainerStatuses() {
    PodObservation o =
        PROJECTION.project(
            K8sFixtures.pod("troubleshoot-message-pod-init-crashloop-backoff.json"),
            ChangeType.MODIFIED,
            1L);

    assertThat(o.getContainers()).anySatisfy(c -> assertThat(c.getInit()).isTrue());
    assertThat(o.getContainers())
        .filteredOn(c -> !c.getInit())
        .singleElement()
        .satisfies(c -> assertThat(c.getWaitingReason()).isEqualTo("PodInitializing"));
  }

  @Test
  void shouldCarryTheKubernetes126DisruptionTargetCondition() {
    PodCondition disruption =
        Serialization.unmarshal(
            Fixtures.text("pods/issue-k8s-pr114623-disruptiontarget-condition-k8s-1.26.json"),
            PodCondition.class);
    Pod pod =
        new PodBuilder(K8sFixtures.pod("troubleshoot-message-pending-pod-resources.json"))
            .editStatus()
            .addToConditions(disruption)
            .endStatus()
            .build();

    PodObservation o = PROJECTION.project(pod, ChangeType.MODIFIED, 1L);

    assertThat(o.getConditions())
        .filteredOn(c -> c.getType().equals("DisruptionTarget"))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getReason()).isEqualTo("PreemptionByKubeScheduler");
              assertThat(c.getMessage())
                  .isEqualTo(
                      "Kube-scheduler: preempting to accommodate a higher priority pod: default/pause2");
              assertThat(c.getLastTransitionTime()).isEqualTo(t("2022-12-20T22:45:55Z"));
            });
  }

  @Test
  void shouldSelectOnlyConfiguredLabelsAndAnnotations() {
    Pod pod =
        new PodBuilder(K8sFixtures.pod("troubleshoot-message-pending-pod-resources.json"))
            .editMetadata()
            .addToLabels(Map.of("schedlens.io/arm", "treatment", "team", "asr"))
            .addToAnnotations(
                Map.of("schedlens.io/last-checkpoint", "2023-07-11T04:30:00Z", "other", "x"))
            .endMetadata()
            .build();

    PodObservation o = PROJECTION.project(pod, ChangeType.MODIFIED, 1L);

    assertThat(o.getLabels()).containsOnly(Map.entry("schedlens.io/arm", "treatment"));
    assertThat(o.getAnnotations()).containsOnlyKeys("schedlens.io/last-checkpoint");
  }

  @Test
  void shouldComputeTheGpuRequestAsTheSchedulerDoes() {
    var gpu =
        new ContainerBuilder()
            .withName("a")
            .editOrNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("2"))
            .endResources()
            .build();
    var gpu1 =
        new ContainerBuilder()
            .withName("b")
            .editOrNewResources()
            .addToRequests("nvidia.com/gpu", new Quantity("1"))
            .addToLimits("nvidia.com/gpu", new Quantity("1"))
            .endResources()
            .build();
    var init4 =
        new ContainerBuilder()
            .withName("i")
            .editOrNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("4"))
            .endResources()
            .build();
    var sidecar =
        new ContainerBuilder()
            .withName("s")
            .withRestartPolicy("Always")
            .editOrNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("1"))
            .endResources()
            .build();

    assertThat(PodProjection.gpuRequest(List.of(gpu, gpu1), List.of()))
        .as("requests default to limits")
        .isEqualTo(3);
    assertThat(PodProjection.gpuRequest(List.of(gpu1), List.of(init4)))
        .as("largest init container")
        .isEqualTo(4);
    assertThat(PodProjection.gpuRequest(List.of(gpu, gpu1), List.of(sidecar)))
        .as("sidecars add up")
        .isEqualTo(4);
    assertThat(PodProjection.gpuRequest(null, null)).isZero();
  }

  /**
   * Every NVIDIA GPU resource is a GPU request: a MIG profile of the GPU Operator's mixed strategy,
   * and a time-sliced or MPS replica renamed by the device plugin (nvidia.com/gpu.shared).
   */
  @Test
  void shouldTakeMigProfilesAndSharedReplicasForGpuRequests() {
    var slice =
        new ContainerBuilder()
            .withName("server")
            .editOrNewResources()
            .addToLimits("nvidia.com/mig-1g.10gb", new Quantity("1"))
            .addToLimits("cpu", new Quantity("4"))
            .endResources()
            .build();
    var replicas =
        new ContainerBuilder()
            .withName("chat")
            .editOrNewResources()
            .addToRequests("nvidia.com/gpu.shared", new Quantity("2"))
            .endResources()
            .build();
    var team =
        new ContainerBuilder()
            .withName("chat")
            .editOrNewResources()
            .addToLimits("example.com/gpu-slice", new Quantity("1"))
            .endResources()
            .build();

    assertThat(PodProjection.gpuRequest(List.of(slice), null, List.of()))
        .isEqualTo(new PodProjection.GpuRequest("nvidia.com/mig-1g.10gb", 1));
    assertThat(PodProjection.gpuRequest(List.of(replicas), null, List.of("nvidia.com/gpu.shared")))
        .isEqualTo(new PodProjection.GpuRequest("nvidia.com/gpu.shared", 2));
    assertThat(PodProjection.gpuRequest(List.of(team), null, List.of()))
        .isEqualTo(PodProjection.GpuRequest.NONE);
    assertThat(PodProjection.gpuRequest(List.of(team), null, List.of("example.com/gpu-slice")))
        .isEqualTo(new PodProjection.GpuRequest("example.com/gpu-slice", 1));

    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withUid("u1")
            .withNamespace("ai")
            .withName("chat-0")
            .endMetadata()
            .withNewSpec()
            .withContainers(replicas)
            .endSpec()
            .build();
    PodObservation o =
        new PodProjection(List.of(), List.of(), List.of("nvidia.com/gpu.shared"))
            .project(pod, ChangeType.ADDED, 1L);
    assertThat(o.getGpus()).isEqualTo(2);
    assertThat(o.getGpuResource()).isEqualTo("nvidia.com/gpu.shared");
    assertThat(o.getGpuShared()).isTrue();
    PodObservation notShared =
        new PodProjection(List.of(), List.of(), List.of()).project(pod, ChangeType.ADDED, 1L);
    assertThat(notShared.getGpuResource()).isNull();
    assertThat(notShared.getGpus()).isZero();
  }

  @Test
  void shouldProjectEveryRealPodFixture() {
    for (var f : Fixtures.list("pods", ".json")) {
      String text = Fixtures.text("pods/" + f.getFileName());
      if (!text.contains("\"PodList\"")) {
        continue;
      }
      Pod pod = K8sFixtures.pod(f.getFileName().toString());
      PodObservation o = PROJECTION.project(pod, ChangeType.RELIST, 1L);
      assertThat(o.getUid()).as(f.toString()).isNotBlank();
      assertThat(o.getCreatedAt()).as(f.toString()).isPositive();
    }
  }

  /**
   * The informer's cache keeps pods as {@link PodProjection#retainRead} leaves them: their
   * projection must be the full pod's, for every real pod (with carried labels and annotations).
   */
  @Test
  void shouldProjectARetainedPodAsTheWholePod() {
    PodProjection projection =
        new PodProjection(
            List.of("app", "schedlens.io/arm", "job-name"),
            List.of("schedlens.io/last-checkpoint", "kubectl.kubernetes.io/restartedAt"));
    int checked = 0;
    for (var f : Fixtures.list("pods", ".json")) {
      String text = Fixtures.text("pods/" + f.getFileName());
      if (!text.contains("\"PodList\"")) {
        continue;
      }
      for (Pod pod :
          io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                  text, io.fabric8.kubernetes.api.model.PodList.class)
              .getItems()) {
        Pod copy = new PodBuilder(pod).build();
        PodObservation whole = projection.project(pod, ChangeType.MODIFIED, 1L);
        int before = io.fabric8.kubernetes.client.utils.Serialization.asJson(copy).length();
        Pod retained = projection.retainRead(copy);
        int after = io.fabric8.kubernetes.client.utils.Serialization.asJson(retained).length();
        assertThat(projection.project(retained, ChangeType.MODIFIED, 1L))
            .as(f.toString())
            .isEqualTo(whole);
        assertThat(after).as(f.toString()).isLessThanOrEqualTo(before);
        checked++;
      }
    }
    assertThat(checked).isPositive();
  }
}
