package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodPageTest {

  static final long T = 1_796_108_838_000L;

  /** A batch victim: pending 2 min, scheduled, running 20 s later, preempted 10 min later. */
  static PodTimeline victim() {
    return PodTimeline.newBuilder()
        .setUid("u-victim")
        .setNamespace("ai-lab")
        .setName("embedding-batch-abcde")
        .setWorkload(new WorkloadRef("Job", "embedding-batch"))
        .setPriorityClass("embedding-batch")
        .setPriority(1000)
        .setCreatedAt(T)
        .setScheduledAt(T + 120_000)
        .setRunningAt(T + 140_000)
        .setReadyAt(T + 140_000) // a Job without a readiness probe: Ready when running
        .setPreemptedAt(T + 740_000)
        .setTerminatedAt(T + 770_000)
        .setPendingMs(120_000L)
        .setFailedSchedulingCount(4)
        .setPendingReasons(Map.of("Insufficient nvidia.com/gpu", 1, "<b>odd</b> reason", 2))
        .setPreemptor(new PodRef("u-chat", "ai-lab", "chat-1", "interactive", 100_000, false))
        .setGpus(1)
        .setWastedGpuSeconds(630.0)
        .setOutcome("Preempted")
        .setDisruption(new Disruption("preemption", T + 740_000, "ai-lab/chat-1"))
        .setUpdatedAt(T + 770_000)
        .setFinal$(true)
        .build();
  }

  @Test
  void shouldGiveThePhasesInOrderEachUntilTheNextLeavingOutThoseOfNoLength() {
    List<PodPage.Phase> phases = PodPage.phases(victim(), T + 770_000);

    assertThat(phases)
        .containsExactly(
            new PodPage.Phase("pending", "Pending (unscheduled)", T, T + 120_000),
            new PodPage.Phase(
                "starting", "Scheduled, containers starting", T + 120_000, T + 140_000),
            new PodPage.Phase("ready", "Ready", T + 140_000, T + 770_000));
  }

  @Test
  void shouldShowANeverScheduledPodAsPendingUntilItWentAway() {
    PodTimeline t = victim();
    t.setScheduledAt(null);
    t.setRunningAt(null);
    t.setReadyAt(null);
    t.setNeverScheduled(true);

    assertThat(PodPage.phases(t, t.getTerminatedAt()))
        .extracting(PodPage.Phase::name)
        .containsExactly("pending");
  }

  @Test
  void shouldLinkThePreemptorAndTheWorkloadAndEscapeWhatCameFromTheCluster() {
    String html = PodPage.render(victim(), Map.of(), T + 800_000);

    assertThat(html)
        .contains("href=\"/pods/u-chat\"")
        .contains("href=\"/workloads/ai-lab/Job/embedding-batch\"")
        .contains("Insufficient nvidia.com/gpu</span> (1 node)")
        .contains("&lt;b&gt;odd&lt;/b&gt; reason")
        .doesNotContain("<b>odd</b>")
        .contains("id=\"wasted\"");
  }

  @Test
  void shouldDefineEveryNumberWithThePublishedSchemasDocumentation() {
    String table = PodPage.numbers(victim());

    for (String field :
        List.of(
            "pendingMs",
            "timeToFirstOkMs",
            "allocatedGpuSeconds",
            "wastedGpuSeconds",
            "latencyP99Ms",
            "outcome",
            "preemptionsOfWorkload",
            "starving")) {
      String doc = PodTimeline.getClassSchema().getField(field).doc();
      assertThat(table).contains("data-field=\"" + field + "\"").contains(Html.esc(doc));
    }
    assertThat(table).as("an unknown duration is a dash, not 0").contains("—");
  }

  @Test
  void shouldDrawAFinishedPodTheSameAtAnyTime() {
    assertThat(PodPage.render(victim(), Map.of(), T + 800_000))
        .isEqualTo(PodPage.render(victim(), Map.of(), T + 86_400_000L * 30));
  }
}
