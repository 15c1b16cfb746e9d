package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.report.ExperimentReport;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.timeline.TimelineSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The verdict's sentences, from one prediction and from several with other seeds. */
class WhatIfAnswerTest {

  @Test
  void shouldGiveAFigureItsRangeOverThePredictionsOnlyWhenThereAreSeveral() {
    assertThat(WhatIfAnswer.figure(List.of(12.0), v -> Long.toString(Math.round(v))))
        .isEqualTo("12");
    assertThat(WhatIfAnswer.figure(List.of(12.0, 9.0, 14.0), v -> Long.toString(Math.round(v))))
        .isEqualTo("12 (9 to 14 over 3 seeds)");
    assertThat(WhatIfAnswer.figure(List.of(12.0, 12.2), v -> Long.toString(Math.round(v))))
        .as("a range the format cannot tell apart is no range")
        .isEqualTo("12 (the same over 2 seeds)");
    assertThat(
            WhatIfAnswer.figure(
                List.of(12.0, Double.NaN, 14.0), v -> String.format(Locale.ROOT, "%.0f", v)))
        .as("a prediction without the workload does not stretch the range")
        .isEqualTo("12 (12 to 14 over 3 seeds)");
  }

  @Test
  void shouldSayHowFarTheSimulatedClustersOwnChanceMovesEachPredictedFigure() throws Exception {
    Scenario day08 = ScenarioLoader.load("day08");
    SimulatedExperiment seen = new SimulatedExperiment(day08, 1_796_236_020_000L);
    List<ObservedRun> control = seen.runs("control");
    Policy treatment =
        ScenarioPolicy.of(
            day08,
            day08.arms().stream().filter(a -> a.name().equals("treatment")).findFirst().get());
    TimelineSettings settings = TimelineSettings.defaults().withSlos(day08.slos());
    List<ExperimentReport> reports = new ArrayList<>();
    List<WhatIfAnswer.Unserved> unserved = new ArrayList<>();
    List<WhatIfAnswer.GangWait> gangWaits = new ArrayList<>();
    List<Double> breaches = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      List<WhatIf.Prediction> p =
          new WhatIf(treatment.withSeed(treatment.seed() + k), settings, Duration.ofMinutes(45))
              .predict(control, WhatIf.Progress.NONE);
      ExperimentReport r =
          ExperimentReport.of(
              "day08", WhatIf.facts(control, p, "observed"), Duration.ofMinutes(10).toMillis());
      reports.add(r);
      unserved.add(WhatIfAnswer.unserved(p));
      gangWaits.add(WhatIfAnswer.gangWait(p));
      breaches.add(r.row(WhatIf.PREDICTED, "interactive-inference").sloBreaches().mean());
    }

    List<String> one =
        WhatIfAnswer.verdict(
            List.of(reports.get(0)),
            List.of(unserved.get(0)),
            List.of(gangWaits.get(0)),
            treatment,
            "observed");
    List<String> three = WhatIfAnswer.verdict(reports, unserved, gangWaits, treatment, "observed");

    assertThat(three).hasSameSizeAs(one);
    assertThat(one).noneMatch(s -> s.contains("seeds"));
    for (int i = 0; i < one.size(); i++) {
      // the same sentence, each predicted figure followed by its range
      assertThat(three.get(i).replaceAll(" \\((the same|[^()]* to [^()]*) over 3 seeds\\)", ""))
          .isEqualTo(one.get(i));
    }
    String interactive =
        three.stream().filter(s -> s.startsWith("interactive-inference")).findFirst().orElseThrow();
    Matcher m =
        Pattern.compile("([\\d.]+) \\(([\\d.]+) to ([\\d.]+) over 3 seeds\\) SLO breaches")
            .matcher(interactive);
    assertThat(m.find()).as(interactive).isTrue();
    double low = breaches.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double high = breaches.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    assertThat(Double.parseDouble(m.group(1))).isCloseTo(breaches.get(0), within());
    assertThat(Double.parseDouble(m.group(2))).isCloseTo(low, within());
    assertThat(Double.parseDouble(m.group(3))).isCloseTo(high, within());
  }

  /**
   * A JobSet is told as the batch it is: its pending and preemptions, not requests it never got.
   */
  @Test
  void shouldTellAJobSetAsBatchNotAsAService() throws Exception {
    Scenario gangs = ScenarioLoader.load("gangs");
    SimulatedExperiment seen = new SimulatedExperiment(gangs, 1_796_236_020_000L);
    List<ObservedRun> control = seen.runs("control");
    Policy treatment =
        ScenarioPolicy.of(
            gangs,
            gangs.arms().stream().filter(a -> a.name().equals("treatment")).findFirst().get());
    List<WhatIf.Prediction> p =
        new WhatIf(
                treatment,
                TimelineSettings.defaults().withSlos(gangs.slos()),
                Duration.ofMinutes(30))
            .predict(control, WhatIf.Progress.NONE);
    ExperimentReport r =
        ExperimentReport.of(
            "gangs", WhatIf.facts(control, p, "observed"), Duration.ofMinutes(10).toMillis());

    WhatIfAnswer.GangWait gangWait = WhatIfAnswer.gangWait(p);
    List<String> verdict =
        WhatIfAnswer.verdict(
            List.of(r),
            List.of(WhatIfAnswer.unserved(p)),
            List.of(gangWait),
            treatment,
            "observed");

    assertThat(r.row("observed", "training").workloadKind()).isEqualTo("JobSet");
    // both JobSets' gang waits of the control run, as its workload timelines say
    double observed =
        control.get(0).workloads().stream()
            .filter(w -> w.getGangWaitGpuSeconds() != null)
            .mapToDouble(w -> w.getGangWaitGpuSeconds())
            .sum();
    assertThat(observed).isPositive();
    assertThat(gangWait.observed()).containsOnlyKeys("training");
    assertThat(gangWait.observed().get("training")).isEqualTo(observed);
    double predicted =
        p.get(0).workloads().stream()
            .filter(w -> w.getGangWaitGpuSeconds() != null)
            .mapToDouble(w -> w.getGangWaitGpuSeconds())
            .sum();
    assertThat(gangWait.predicted()).containsEntry("training", predicted);
    assertThat(verdict)
        .filteredOn(s -> s.startsWith("training "))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s)
                    .contains("pending p95")
                    .doesNotContain("first OK request")
                    .contains(
                        String.format(
                            Locale.ROOT,
                            "its gangs held %.0f GPU-seconds idle waiting for their last pods"
                                + " instead of %.0f.",
                            predicted,
                            observed)));
    assertThat(verdict)
        .filteredOn(s -> s.startsWith("embedding-batch "))
        .singleElement()
        .satisfies(s -> assertThat(s).doesNotContain("gang"));
  }

  private static Offset<Double> within() {
    return Offset.offset(0.051);
  }
}
