package io.schedlens.whatif;

import static io.schedlens.whatif.ObservedArrivalsTest.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.ExperimentReport;
import io.schedlens.timeline.TimelineSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Predictions through the simulator and the streams app's topology. */
class WhatIfTest {

  /** Four one-GPU Jobs of 10 minutes' work, all created at T0, on a node with four GPUs. */
  static List<ObservedRun> fourJobs() {
    List<PodTimeline> pods = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      PodTimeline t = pod("p" + i, "batch-" + i, 0, 20L, 620L, "Succeeded");
      t.setApplication("batch");
      t.setNode("gpu-node-1");
      pods.add(t);
    }
    return ObservedRun.of(pods, List.of());
  }

  static final String CLASSES =
      """
      name: %s
      priorityClasses:
        - {name: batch, value: 100}
      workloads:
        batch: {priorityClass: batch}
      nodes: [{name: gpu-node, count: 1, gpus: 4}]
      """;

  /**
   * A quota holds the Jobs it covers suspended in its Kueue queue, as Kueue's Job integration does:
   * the two Jobs over it have no pod until the first two finish, so their wait is queue wait, not
   * Pending.
   */
  @Test
  void shouldHoldJobsOverAQuotaSuspendedInItsQueueAsKueueDoes() {
    Policy free = PolicyLoader.parse("free", CLASSES.formatted("free"));
    Policy quota =
        PolicyLoader.parse(
            "quota",
            CLASSES.formatted("quota")
                + "quotas:\n  - {name: batch-queue, priorityClasses: [batch], nominalGpus: 2}\n");

    List<PodTimeline> unbounded = predicted(free);
    List<PodTimeline> bounded = predicted(quota);

    assertThat(mostRunningAtOnce(unbounded)).isEqualTo(4);
    assertThat(mostRunningAtOnce(bounded)).isEqualTo(2);
    // the two held back waited, suspended and without pods, for the first two to finish
    assertThat(bounded).allMatch(t -> "batch-queue".equals(t.getQueue()));
    List<Long> waits = bounded.stream().map(PodTimeline::getQueueWaitMs).sorted().toList();
    assertThat(waits.get(1)).isLessThan(1_000L);
    assertThat(waits.get(2)).isBetween(600_000L, 660_000L);
    assertThat(bounded).allMatch(t -> t.getPendingMs() < 1_000L, "Pending: seconds at most");
    assertThat(bounded).allMatch(t -> "Succeeded".equals(t.getOutcome()));
    assertThat(unbounded).allMatch(t -> t.getQueue() == null && t.getQueueWaitMs() == null);
    // the gate is Kueue's, not the scheduler's: no FailedScheduling for a held pod
    assertThat(bounded).allMatch(t -> t.getFailedSchedulingCount() == 0);
  }

  /** The verdict tells the queue wait a quota makes, against none observed. */
  @Test
  void shouldTellTheQueueWaitAQuotaMakesInTheVerdict() {
    Policy quota =
        PolicyLoader.parse(
            "quota",
            CLASSES.formatted("quota")
                + "quotas:\n  - {name: batch-queue, priorityClasses: [batch], nominalGpus: 2}\n");
    List<ObservedRun> runs = fourJobs();
    List<WhatIf.Prediction> p =
        new WhatIf(quota, TimelineSettings.defaults(), Duration.ofMinutes(30))
            .predict(runs, WhatIf.Progress.NONE);
    ExperimentReport r =
        ExperimentReport.of(
            "quota", WhatIf.facts(runs, p, "observed"), Duration.ofMinutes(10).toMillis());
    List<String> verdict =
        WhatIfAnswer.verdict(
            List.of(r),
            List.of(WhatIfAnswer.unserved(p)),
            List.of(WhatIfAnswer.gangWait(p)),
            quota,
            "observed");
    assertThat(verdict)
        .as(String.join("\n", verdict))
        .anyMatch(
            s ->
                s.startsWith("batch (batch): queue wait p95 10 min")
                    && s.contains("instead of none, then pending p95"));
  }

  @Test
  void shouldPredictTheSameTimelinesByteForByte() {
    Policy quota =
        PolicyLoader.parse(
            "quota",
            CLASSES.formatted("quota")
                + "quotas:\n  - {name: batch-queue, priorityClasses: [batch], nominalGpus: 3}\n");

    String first = text(predicted(quota));
    String second = text(predicted(quota));

    assertThat(second).isEqualTo(first);
    assertThat(first).contains("\"arm\": \"predicted\"");
  }

  @Test
  void shouldTellHowFarARunsSimulationHasComeAtEachTenthOfIt() {
    // checkpoints every minute: the pods write while they run
    Policy free =
        PolicyLoader.parse(
            "free",
            CLASSES
                .formatted("free")
                .replace("{priorityClass: batch}", "{priorityClass: batch, checkpointEvery: 1m}"));
    List<Duration> done = new ArrayList<>();
    List<Long> given = new ArrayList<>();
    List<WhatIf.Prediction> p =
        new WhatIf(free, TimelineSettings.defaults(), Duration.ofMinutes(30))
            .predict(
                fourJobs(),
                new WhatIf.Progress() {
                  @Override
                  public void runPredicted(
                      int index, int total, ObservedRun run, WhatIf.Prediction prediction) {}

                  @Override
                  public void simulated(
                      int index,
                      int total,
                      ObservedRun run,
                      Duration simulated,
                      Duration of,
                      long inputs) {
                    assertThat(of).isEqualTo(Duration.ofMinutes(30));
                    assertThat(index).isEqualTo(1);
                    done.add(simulated);
                    given.add(inputs);
                  }
                });

    // the Jobs write from their creation until they end, about 11 minutes in: each tenth (3
    // minutes) is told once, at the first write after it began
    assertThat(done).hasSizeGreaterThanOrEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(done.get(i))
          .isBetween(Duration.ofMinutes(3L * (i + 1)), Duration.ofMinutes(3L * (i + 1) + 1));
    }
    assertThat(done).isSorted().allMatch(d -> d.toMinutes() < 30);
    for (int i = 1; i < done.size(); i++) {
      assertThat(done.get(i).toMillis() / 180_000)
          .isGreaterThan(done.get(i - 1).toMillis() / 180_000);
    }
    assertThat(given).isSorted().allMatch(n -> n > 0 && n <= p.get(0).inputs());
  }

  /**
   * A JobSet of four one-GPU workers of 20 minutes' work each arrives a minute after a ten-minute
   * Job took one of the node's four GPUs: three workers run at once and hold their GPUs until the
   * fourth gets the Job's, about nine minutes later. The prediction is a gang: its workload
   * timeline says when all ran and the GPU-seconds the three held waiting.
   */
  @Test
  void shouldPredictAJobSetAsAGangWhoseFirstWorkersWaitForItsLast() {
    List<PodTimeline> pods = new ArrayList<>();
    PodTimeline filler = pod("f", "filler", 0, 20L, 620L, "Succeeded");
    pods.add(filler);
    for (int i = 1; i <= 4; i++) {
      PodTimeline w = pod("w" + i, "train", 60, 80L, 1280L, "Succeeded");
      w.setWorkload(new WorkloadRef("JobSet", "train"));
      pods.add(w);
    }
    pods.forEach(t -> t.setNode("gpu-node-1"));
    Policy p =
        PolicyLoader.parse(
            "free",
            """
            name: free
            priorityClasses: []
            nodes: [{name: gpu-node, count: 1, gpus: 4}]
            """);

    WhatIf.Prediction predicted =
        new WhatIf(p, TimelineSettings.defaults(), Duration.ofMinutes(45))
            .predict(ObservedRun.of(pods, List.of()), WhatIf.Progress.NONE)
            .get(0);

    WorkloadTimeline train =
        predicted.workloads().stream()
            .filter(w -> w.getKind().equals("JobSet"))
            .findFirst()
            .orElseThrow();
    assertThat(train.getName()).isEqualTo("train");
    List<PodTimeline> workers =
        predicted.timelines().values().stream()
            .filter(t -> t.getWorkload().getKind().equals("JobSet"))
            .sorted(Comparator.comparing(PodTimeline::getRunningAt))
            .toList();
    assertThat(workers).hasSize(4);
    long last = workers.get(3).getRunningAt();
    assertThat(train.getGangRunningAt()).isEqualTo(last);
    double held = 0;
    for (PodTimeline w : workers.subList(0, 3)) {
      held += (last - w.getRunningAt()) / 1000.0;
    }
    assertThat(held).as("three workers held a GPU about nine minutes").isBetween(1400.0, 1800.0);
    assertThat(train.getGangWaitGpuSeconds()).isCloseTo(held, within(3.0 * 4));
  }

  private static List<PodTimeline> predicted(Policy p) {
    List<ObservedRun> runs = fourJobs();
    // the runs last 30 minutes: long enough for the held pods too
    return new WhatIf(p, TimelineSettings.defaults(), Duration.ofMinutes(30))
        .predict(runs, WhatIf.Progress.NONE).get(0).timelines().values().stream()
            .sorted(
                Comparator.comparing(PodTimeline::getCreatedAt).thenComparing(PodTimeline::getName))
            .toList();
  }

  private static String text(List<PodTimeline> timelines) {
    StringBuilder sb = new StringBuilder();
    timelines.forEach(t -> sb.append(t).append('\n'));
    return sb.toString();
  }

  private static int mostRunningAtOnce(List<PodTimeline> pods) {
    TreeMap<Long, Integer> d = new TreeMap<>();
    for (PodTimeline t : pods) {
      d.merge(t.getRunningAt(), 1, Integer::sum);
      d.merge(t.getTerminatedAt(), -1, Integer::sum);
    }
    int n = 0;
    int max = 0;
    for (int delta : d.values()) {
      n += delta;
      max = Math.max(max, n);
    }
    return max;
  }
}
