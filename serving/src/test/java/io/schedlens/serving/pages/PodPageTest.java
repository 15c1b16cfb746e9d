package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.LatencyBin;
import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /**
   * A Job's pod Kueue admitted after 40 minutes in its queue: the wait before the pod existed is
   * drawn before its creation; a gated pod's gated part of Pending is drawn apart.
   */
  @Test
  void shouldDrawTheQueueWaitBeforeThePodAndTheGatedPartOfPending() {
    PodTimeline t = victim();
    t.setQueue("team-b-queue");
    t.setAdmittedAt(T - 1_000);
    t.setQueueWaitMs(2_400_000L);

    assertThat(PodPage.phases(t, t.getTerminatedAt()))
        .extracting(PodPage.Phase::name, PodPage.Phase::from, PodPage.Phase::to)
        .startsWith(tuple("queued", T - 2_401_000, T - 1_000), tuple("pending", T, T + 120_000));
    assertThat(PodPage.start(t)).isEqualTo(T - 2_401_000);
    String html = PodPage.render(t, Map.of(), T + 800_000);
    assertThat(html)
        .contains("data-phase=\"queued\"")
        .contains("Admitted by Kueue from queue team-b-queue")
        .contains("band-queued");

    PodTimeline gated = victim();
    gated.setGatedMs(30_000L);
    gated.setAdmittedAt(T + 30_000);
    gated.setQueueWaitMs(30_000L);
    assertThat(PodPage.phases(gated, gated.getTerminatedAt()))
        .extracting(PodPage.Phase::name, PodPage.Phase::from, PodPage.Phase::to)
        .startsWith(tuple("gated", T, T + 30_000), tuple("pending", T + 30_000, T + 120_000));
    assertThat(PodPage.render(victim(), Map.of(), T + 800_000))
        .as("no queue, no queue in the legend")
        .doesNotContain("band-queued\"");
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

  /** The page says which slice or share of a GPU the pod held, and shades wasted time by it. */
  @Test
  void shouldSayWhichSliceOrShareOfAGpuThePodHeld() {
    PodTimeline whole = victim();
    PodTimeline slice =
        PodTimeline.newBuilder(victim())
            .setGpuResource("nvidia.com/mig-1g.10gb")
            .setGpuShare(1.0 / 7)
            .setGpuShared(false)
            .setWastedGpuSeconds(90.0) // 630 s of a seventh of a GPU
            .build();
    PodTimeline replica =
        PodTimeline.newBuilder(victim())
            .setGpuResource("nvidia.com/gpu.shared")
            .setGpuShare(1.0)
            .setGpuShared(true)
            .build();

    assertThat(PodCharts.held(whole)).isEqualTo("1 GPU(s)");
    assertThat(PodCharts.held(slice)).isEqualTo("1 × nvidia.com/mig-1g.10gb, 1/7 of a GPU each");
    assertThat(PodCharts.held(replica))
        .isEqualTo(
            "1 × nvidia.com/gpu.shared, all of a GPU each, shared with other pods (replicas per"
                + " GPU not known)");
    String html = PodPage.render(slice, Map.of(), T + 800_000);
    assertThat(html)
        .contains("Held: 1 × nvidia.com/mig-1g.10gb, 1/7 of a GPU each")
        // the wasted span is the 630 s since the start of running, not 90 s
        .contains("data-from=\"" + (T + 140_000) + "\" data-to=\"" + (T + 770_000) + "\"");
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

  /** A running-then-done inference pod of {@code lifeMs} with a series of {@code stepMs} steps. */
  static PodTimeline served(long lifeMs, long stepMs) {
    List<PodPoint> points = new ArrayList<>();
    for (long at = Math.floorDiv(T, stepMs) * stepMs; at < T + lifeMs; at += stepMs) {
      points.add(
          PodPoint.newBuilder()
              .setAt(at)
              .setBusyMicros(stepMs * 500)
              .setSampledMicros(stepMs * 1000)
              .setRequests(10)
              .setLatency(List.of(new LatencyBin(20, 10L)))
              .build());
    }
    return PodTimeline.newBuilder(victim())
        .setUid("u-" + lifeMs)
        .setCreatedAt(T)
        .setScheduledAt(T)
        .setRunningAt(T)
        .setReadyAt(T)
        .setPreemptedAt(null)
        .setDisruption(null)
        .setPreemptor(null)
        .setWastedGpuSeconds(null)
        .setTerminatedAt(T + lifeMs)
        .setUpdatedAt(T + lifeMs)
        .setOutcome("Succeeded")
        .setRequests(10L * points.size())
        .setSeries(new PodSeries(stepMs, 800.0, points))
        .build();
  }

  /** The x of every vertex of the page's lines of {@code cls}. */
  static List<Double> xs(String page, String cls) {
    List<Double> out = new ArrayList<>();
    Matcher m =
        Pattern.compile("<polyline class=\"" + cls + "\" points=\"([^\"]*)\"").matcher(page);
    while (m.find()) {
      for (String xy : m.group(1).trim().split(" ")) {
        out.add(Double.parseDouble(xy.split(",")[0]));
      }
    }
    return out;
  }

  @Test
  void shouldDrawAShortAndALongLifesLinesWithinTheLife() {
    // 10 s with 15 s steps (the sample interval), 7 days with 4.3-hour steps: both epoch-aligned,
    // so the first and last steps stick out of the life.
    for (PodTimeline t : List.of(served(10_000, 15_000), served(7 * 86_400_000L, 60_000L << 8))) {
      String page = PodPage.render(t, Map.of(), T + 30L * 86_400_000L);
      TimeAxis axis = TimeAxis.of(t.getCreatedAt(), t.getTerminatedAt());
      double from = axis.x(t.getCreatedAt());
      double to = axis.x(t.getTerminatedAt());
      for (String cls : List.of("busy", "rate", "p50", "p99")) {
        List<Double> xs = xs(page, cls);
        assertThat(xs).as(cls + " of a life of " + t.getUpdatedAt()).isNotEmpty();
        assertThat(xs)
            .as(cls + " drawn within the life, " + t.getUid())
            .allSatisfy(x -> assertThat(x).isBetween(from - 0.01, to + 0.01));
      }
      assertThat(xs(page, "busy")).hasSizeLessThanOrEqualTo(64);
    }
  }

  @Test
  void shouldCountARateOverThePartOfAStepThePodLived() {
    // T is 13 s into a 15-second step: a pod born at T lived 2 s of that step, 8 s of the next.
    StepInLife first = StepInLife.of(T - 13_000, 15_000, T, T + 10_000);
    StepInLife second = StepInLife.of(T + 2_000, 15_000, T, T + 10_000);

    assertThat(first.seconds()).isEqualTo(2.0);
    assertThat(second.seconds()).isEqualTo(8.0);
    assertThat(first.from()).isEqualTo(T);
    assertThat(second.to()).isEqualTo(T + 10_000);
    // a step the life does not reach is drawn where it is
    assertThat(StepInLife.of(T + 60_000, 15_000, T, T + 10_000).seconds()).isEqualTo(15.0);
  }
}
