package io.schedlens.streams.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineApiFilterTest {

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
        TimelineApi.filter(
            "pending", Map.of("priorityClass", "interactive", "arm", "treatment", "namespace", ""));
    assertThat(byClassAndArm.test(chat)).isTrue();
    assertThat(byClassAndArm.test(timeline("ai-lab", "interactive", "control", "2"))).isFalse();
    assertThat(TimelineApi.filter("all", Map.of("repeat", "1")).test(chat)).isFalse();
    assertThat(TimelineApi.filter("all", Map.of("repeat", "2")).test(chat)).isTrue();
    assertThat(TimelineApi.filter("preempted", Map.of()).test(chat)).isFalse();
    assertThat(TimelineApi.filter("bogus", Map.of())).isNull();
  }
}
