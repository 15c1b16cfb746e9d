package io.schedlens.whatif;

import static io.schedlens.whatif.ObservedArrivalsTest.T0;
import static io.schedlens.whatif.ObservedArrivalsTest.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.base.KubeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Checkpoint intervals read from the recorded Pods' annotation, filled into a policy. */
class RecordedCheckpointsTest {

  static final String ANNOTATION = "schedlens.io/last-checkpoint";

  /** A recorded Pod of {@code uid}, its last checkpoint {@code checkpointAt} s after T0 or none. */
  static PodObservation observed(String uid, Long checkpointAt) {
    return PodObservation.newBuilder()
        .setUid(uid)
        .setNamespace("ai-lab")
        .setName("pod-" + uid)
        .setChangeType(ChangeType.MODIFIED)
        .setObservedAt(T0)
        .setCreatedAt(T0)
        .setAnnotations(
            checkpointAt == null
                ? Map.of()
                : Map.of(ANNOTATION, KubeTime.seconds(T0 + checkpointAt * 1000)))
        .build();
  }

  @Test
  void shouldTakeTheMedianGapBetweenOnePodsSuccessiveCheckpointsPerApplication() {
    List<PodObservation> recorded = new ArrayList<>();
    // pod a: checkpoints at 100, 340, 580 s (each written in several Pod updates, as a watch
    // shows the annotation again on every later change); pod b: 700, 1000 s
    for (long at : new long[] {100, 100, 340, 340, 340, 580}) {
      recorded.add(observed("a", at));
    }
    recorded.add(observed("a", null)); // before its first checkpoint
    recorded.add(observed("b", 1000L)); // out of order: the order of the gaps is the times'
    recorded.add(observed("b", 700L));
    // pod c of another Job: a single checkpoint, no gap; pod d: none
    recorded.add(observed("c", 50L));
    recorded.add(observed("d", null));
    List<PodTimeline> timelines =
        List.of(
            pod("a", "train", 0, 10L, 600L, "Preempted"),
            pod("b", "train", 600L, 620L, 1200L, "Succeeded"),
            pod("c", "embed", 0, 5L, 60L, "Succeeded"),
            pod("d", "embed", 0, 5L, 60L, "Succeeded"));

    Map<String, RecordedCheckpoints.Interval> intervals =
        RecordedCheckpoints.of(recorded, timelines, ANNOTATION);

    // gaps 240, 240, 300 s: median 240 s
    assertThat(intervals)
        .containsOnly(
            Map.entry("train", new RecordedCheckpoints.Interval(Duration.ofSeconds(240), 3)));
  }

  @Test
  void shouldFillOnlyTheRulesThatSayNoInterval() {
    Policy policy =
        PolicyLoader.parse(
            "p.yaml",
            """
            name: p
            priorityClasses:
              - {name: high, value: 1000}
            workloads:
              train: {priorityClass: high, setup: 30s}
              embed: {setup: 10s, checkpointEvery: 2m}
            """);

    Policy filled =
        RecordedCheckpoints.fill(
            policy,
            Map.of(
                "train", new RecordedCheckpoints.Interval(Duration.ofMinutes(4), 3),
                "embed", new RecordedCheckpoints.Interval(Duration.ofMinutes(9), 5),
                "asr", new RecordedCheckpoints.Interval(Duration.ofMinutes(5), 2)));

    assertThat(filled.rule("train"))
        .isEqualTo(new Policy.WorkloadRule("high", Duration.ofSeconds(30), Duration.ofMinutes(4)));
    assertThat(filled.rule("embed")).isEqualTo(policy.rule("embed")); // the policy's own stays
    assertThat(filled.rule("asr"))
        .isEqualTo(new Policy.WorkloadRule(null, Duration.ZERO, Duration.ofMinutes(5)));
    assertThat(filled.name()).isEqualTo("p");
    assertThat(filled.priorityClasses()).isEqualTo(policy.priorityClasses());
  }
}
