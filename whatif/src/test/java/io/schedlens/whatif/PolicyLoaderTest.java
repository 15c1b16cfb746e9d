package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyLoaderTest {

  @Test
  void shouldReadEveryFieldOfAPolicy() {
    Policy p =
        PolicyLoader.parse(
            "p.yaml",
            """
            name: batch-quota
            priorityClasses:
              - {name: interactive, value: 100000}
              - {name: batch, value: 500, preemptionPolicy: Never}
            workloads:
              chat: {priorityClass: interactive}
              embedding-batch: {priorityClass: batch, setup: 30s, checkpointEvery: 4m}
              legacy: {priorityClass: none}
            quotas:
              - {name: batch-queue, priorityClasses: [batch], nominalGpus: 4}
              - {name: team-a, namespaces: [team-a], nominalGpus: 8}
            unservedRequests: queued
            nodes:
              - {name: gpu-node, count: 4, gpus: 8}
            seed: 7
            """);
    assertThat(p.name()).isEqualTo("batch-quota");
    assertThat(p.priorityClass("batch").preemptionPolicy()).isEqualTo("Never");
    assertThat(p.priorityClass("interactive").preemptionPolicy()).isEqualTo("PreemptLowerPriority");
    assertThat(p.rule("embedding-batch").checkpointEvery()).isEqualTo(Duration.ofMinutes(4));
    assertThat(p.rule("embedding-batch").setup()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.rule("legacy").priorityClass()).isEqualTo(Policy.NO_CLASS);
    assertThat(p.rule("not-named").priorityClass()).isNull();
    assertThat(p.quotas().get(0).covers("batch", "x")).isTrue();
    assertThat(p.quotas().get(1).covers(null, "team-a")).isTrue();
    assertThat(p.quotas().get(1).covers("interactive", "team-b")).isFalse();
    assertThat(p.unserved()).isEqualTo(Policy.Unserved.QUEUED);
    assertThat(p.nodes()).containsExactly(new Policy.Node("gpu-node", 4, 8));
    assertThat(p.seed()).isEqualTo(7);
  }

  @Test
  void shouldReadNodesWithMigSlicesAndTimeSlicedReplicas() {
    Policy p =
        PolicyLoader.parse(
            "p.yaml",
            """
            name: shared
            priorityClasses: [{name: interactive, value: 100000}]
            nodes:
              - name: mig-pool
                count: 2
                gpus: 8
                gpuModel: NVIDIA A30
                mig: {profile: 1g.6gb, gpus: 2}
                timeSlicing: {replicas: 2}
            """);
    Policy.Node n = p.nodes().get(0);
    assertThat(n.layout()).isEqualTo(new GpuLayout("1g.6gb", 2, 2));
    assertThat(n.layout().devices("nvidia.com/mig-1g.6gb", n.gpus(), n.gpuModel())).isEqualTo(8);
    assertThat(n.layout().devices("nvidia.com/gpu", n.gpus(), n.gpuModel())).isEqualTo(12);
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml",
                    "name: x\nnodes: [{name: n, gpus: 2, mig: {profile: 1g.10gb, gpus: 3}}]\n"))
        .hasMessageContaining("nodes[0].mig.gpus: more GPUs partitioned than the node has (2)");
  }

  @Test
  void shouldReadTheExamplePoliciesOfTheDocs() {
    for (String f :
        new String[] {
          "interactive-first.yaml",
          "batch-quota.yaml",
          "no-preemption.yaml",
          "pool-classes.yaml",
          "kueue-priorities.yaml"
        }) {
      Policy p = PolicyLoader.load(Path.of("../docs/operators/whatif/" + f));
      assertThat(p.name()).isNotBlank();
    }
  }

  /** A policy's kueue section is a scenario's, and its Jobs' rules name its queues and classes. */
  @Test
  void shouldReadKueueAndTheQueuesJobsWaitIn() {
    Policy p = PolicyLoader.load(Path.of("../docs/operators/whatif/kueue-priorities.yaml"));
    assertThat(p.kueue().clusterQueueOf("embed").cohort()).isEqualTo("batch");
    assertThat(p.kueue().clusterQueueOf("asr").reclaimWithinCohort()).isEqualTo("Any");
    assertThat(p.kueue().workloadPriorityClass("embedding-urgent").value()).isEqualTo(2000);
    assertThat(p.rule("embedding-urgent").workloadPriorityClass()).isEqualTo("embedding-urgent");
    assertThat(p.rule("embedding-urgent").queue()).isNull(); // the queue it was observed in
    assertThat(p.rule("embedding-routine").checkpointEvery()).isEqualTo(Duration.ofMinutes(3));

    String kueue =
        """
        name: x
        kueue:
          clusterQueues: [{name: cq, nominalGpus: 4}]
          localQueues: [{name: lq, clusterQueue: cq}]
          workloadPriorityClasses: [{name: high, value: 10}]
        """;
    assertThat(
            PolicyLoader.parse("p.yaml", kueue + "workloads:\n  a: {queue: none}\n")
                .rule("a")
                .queue())
        .isEqualTo(Policy.NO_CLASS);
    assertThatThrownBy(
            () -> PolicyLoader.parse("p.yaml", kueue + "workloads:\n  a: {queue: elsewhere}\n"))
        .hasMessageContaining(
            "p.yaml: workloads.a.queue: 'elsewhere' is not one of kueue.localQueues [lq]");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml", kueue + "workloads:\n  a: {workloadPriorityClass: low}\n"))
        .hasMessageContaining(
            "workloads.a.workloadPriorityClass: 'low' is not one of"
                + " kueue.workloadPriorityClasses [high]");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml", kueue + "quotas:\n  - {name: lq, namespaces: [a], nominalGpus: 2}\n"))
        .hasMessageContaining("quotas[0].name: 'lq' is also a ClusterQueue or LocalQueue of kueue");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml",
                    "name: x\nkueue:\n  clusterQueues: [{name: cq, nominalGpus: 4}]\n"
                        + "  localQueues: [{name: lq, clusterQueue: gone}]\n"))
        .hasMessageContaining("p.yaml: kueue.localQueues[0].clusterQueue: 'gone' is not one of");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml",
                    "name: x\nkueue:\n  clusterQueues:\n"
                        + "    - {name: cq, nominalGpus: 4, withinClusterQueue: Always}\n"))
        .hasMessageContaining("kueue.clusterQueues[0].withinClusterQueue: must be one of");
  }

  @Test
  void shouldSayWhereAndWhatIsWrong() {
    assertThatThrownBy(() -> PolicyLoader.parse("p.yaml", "name: x\nprioritClasses: []\n"))
        .hasMessageContaining("p.yaml: prioritClasses: unknown field");
    assertThatThrownBy(() -> PolicyLoader.parse("p.yaml", "priorityClasses: []\n"))
        .hasMessageContaining("p.yaml: name: required");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml", "name: x\nworkloads:\n  chat: {priorityClass: interactive}\n"))
        .hasMessageContaining("workloads.chat.priorityClass: 'interactive' is not one of");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml", "name: x\npriorityClasses:\n  - {name: a, value: 2000000000}\n"))
        .hasMessageContaining("priorityClasses[0].value: at most 1000000000");
    assertThatThrownBy(
            () ->
                PolicyLoader.parse(
                    "p.yaml",
                    "name: x\npriorityClasses:\n  - {name: a, value: 1, preemptionPolicy: Sometimes}\n"))
        .hasMessageContaining("must be PreemptLowerPriority or Never");
    assertThatThrownBy(
            () -> PolicyLoader.parse("p.yaml", "name: x\nquotas:\n  - {name: q, nominalGpus: 4}\n"))
        .hasMessageContaining("quotas[0]: a quota covers priorityClasses, namespaces or both");
    assertThatThrownBy(() -> PolicyLoader.parse("p.yaml", "name: x\nunservedRequests: lost\n"))
        .hasMessageContaining("unservedRequests: must be failed or queued");
    assertThatThrownBy(
            () -> PolicyLoader.parse("p.yaml", "name: x\nworkloads:\n  chat: {setup: soon}\n"))
        .hasMessageContaining("workloads.chat.setup");
    assertThatThrownBy(() -> PolicyLoader.parse("p.yaml", "name: Not_A_Name\n"))
        .hasMessageContaining("is not a Kubernetes name");
    assertThatThrownBy(() -> PolicyLoader.load(Path.of("no-such-policy.yaml")))
        .hasMessageContaining("does not exist");
  }
}
