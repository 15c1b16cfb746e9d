package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void shouldReadTheExamplePoliciesOfTheDocs() {
    for (String f :
        new String[] {
          "interactive-first.yaml", "batch-quota.yaml", "no-preemption.yaml", "pool-classes.yaml"
        }) {
      Policy p = PolicyLoader.load(Path.of("../docs/operators/whatif/" + f));
      assertThat(p.name()).isNotBlank();
    }
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
