package io.schedlens.whatif;

import static io.schedlens.whatif.ObservedArrivalsTest.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
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

  @Test
  void shouldHoldPodsOverAQuotaBeforeTheSchedulerAsKueueDoes() {
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
    // the two held back waited for the first two to finish: about their 10 minutes
    List<Long> pending = bounded.stream().map(PodTimeline::getPendingMs).sorted().toList();
    assertThat(pending.get(1)).isLessThan(1_000L);
    assertThat(pending.get(2)).isBetween(600_000L, 660_000L);
    assertThat(bounded).allMatch(t -> "Succeeded".equals(t.getOutcome()));
    // the gate is Kueue's, not the scheduler's: no FailedScheduling for a held pod
    assertThat(bounded).allMatch(t -> t.getFailedSchedulingCount() == 0);
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
