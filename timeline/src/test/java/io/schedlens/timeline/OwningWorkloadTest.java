package io.schedlens.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.WorkloadRef;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OwningWorkloadTest {

  @Test
  void shouldNameTheDeploymentOfAReplicaSetByItsPodTemplateHash() {
    WorkloadRef w =
        OwningWorkload.of(
            "ReplicaSet",
            "chat-5d8f7c9b6d",
            "chat-5d8f7c9b6d-x2k4p",
            Map.of("pod-template-hash", "5d8f7c9b6d"));
    assertThat(w).isEqualTo(new WorkloadRef("Deployment", "chat"));
    assertThat(OwningWorkload.key("ai-lab", w, "rs-uid")).isEqualTo("ai-lab/Deployment/chat");
  }

  @Test
  void shouldKeepAReplicaSetWithoutTheHashAsItsOwnWorkload() {
    assertThat(OwningWorkload.of("ReplicaSet", "legacy", "legacy-x2k4p", Map.of()))
        .isEqualTo(new WorkloadRef("ReplicaSet", "legacy"));
  }

  @Test
  void shouldTellAJobCreatedAgainUnderTheSameNameFromTheFirst() {
    WorkloadRef job = OwningWorkload.of("Job", "asr-batch", "asr-batch-7xk2p", Map.of());
    assertThat(job).isEqualTo(new WorkloadRef("Job", "asr-batch"));
    assertThat(OwningWorkload.key("ai-lab", job, "uid-1"))
        .isNotEqualTo(OwningWorkload.key("ai-lab", job, "uid-2"))
        .isEqualTo("ai-lab/Job/asr-batch/uid-1");
  }

  @Test
  void shouldMakeAPodWithoutControllerItsOwnWorkload() {
    WorkloadRef w = OwningWorkload.of(null, null, "debug", Map.of());
    assertThat(w).isEqualTo(new WorkloadRef("Pod", "debug"));
    assertThat(OwningWorkload.key("ai-lab", w, null)).isEqualTo("ai-lab/Pod/debug");
  }

  /**
   * Argo Rollouts' pods (testdata/controllers/argo-rollouts-canary-pod.yaml): one whose chain was
   * read names the Rollout with its UID, one whose ReplicaSet was not read finds it by the
   * rollouts-pod-template-hash; both are the one workload.
   */
  @Test
  void shouldKeyARolloutAlikeWhetherItsChainWasReadOrItsHashNamedIt() {
    WorkloadRef byHash =
        OwningWorkload.of(
            "ReplicaSet",
            "canary-demo-65fb5ffc84",
            "canary-demo-65fb5ffc84-9wf5r",
            Map.of("rollouts-pod-template-hash", "65fb5ffc84"));
    WorkloadRef byChain = new WorkloadRef("Rollout", "canary-demo");

    assertThat(byHash).isEqualTo(byChain);
    assertThat(OwningWorkload.key("ai-lab", byChain, "rollout-uid"))
        .isEqualTo(OwningWorkload.key("ai-lab", byHash, null))
        .isEqualTo("ai-lab/Rollout/canary-demo");
  }
}
