package io.schedlens.serving.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineFiltersTest {

  private static PodTimeline timeline(String ns, String cls, String arm, String repeat) {
    PodTimeline t = new PodTimeline();
    t.setNamespace(ns);
    t.setPriorityClass(cls);
    t.setArm(arm);
    t.setRepeat(repeat);
    t.setOutcome("Pending");
    t.setFinal$(false);
    return t;
  }

  @Test
  void shouldMatchEveryGivenAttributeAndIgnoreEmptyOnes() {
    PodTimeline chat = timeline("ai-lab", "interactive", "treatment", "2");
    var byClassAndArm =
        TimelineFilters.pods(
            "pending", Map.of("priorityClass", "interactive", "arm", "treatment", "namespace", ""));
    assertThat(byClassAndArm.test(chat)).isTrue();
    assertThat(byClassAndArm.test(timeline("ai-lab", "interactive", "control", "2"))).isFalse();
    assertThat(TimelineFilters.pods("all", Map.of("repeat", "1")).test(chat)).isFalse();
    assertThat(TimelineFilters.pods("all", Map.of("repeat", "2")).test(chat)).isTrue();
    assertThat(TimelineFilters.pods("preempted", Map.of()).test(chat)).isFalse();
    assertThat(TimelineFilters.pods("bogus", Map.of())).isNull();
  }

  @Test
  void shouldSelectWorkloadsByNamespaceKindArmAndWhetherInterruptedNow() {
    WorkloadTimeline chat =
        WorkloadTimeline.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Deployment")
            .setName("chat")
            .setArm("treatment")
            .setDesiredSource("observed")
            .setDesired(1)
            .setReady(0)
            .setUpdatedAt(0)
            .build();

    assertThat(TimelineFilters.workloadMatches(chat, Map.of("kind", "Deployment", "arm", "")))
        .isTrue();
    assertThat(TimelineFilters.workloadMatches(chat, Map.of("kind", "Job"))).isFalse();
    assertThat(TimelineFilters.workloadMatches(chat, Map.of("interrupted", "true"))).isTrue();
    chat.setReady(1);
    assertThat(TimelineFilters.workloadMatches(chat, Map.of("interrupted", "true"))).isFalse();
    assertThat(TimelineFilters.workloadMatches(chat, Map.of("namespace", "other"))).isFalse();
  }
}
