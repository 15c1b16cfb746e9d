package io.schedlens.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.simulator.cluster.PodTruth;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * day08 through the whole pipeline (simulator → mock API, dcgm-exporter, intake → collector → Kafka
 * → streams app → pod-timelines), held against the simulator's ground truth: it knows the true
 * times, links and waste. Tolerances are Kubernetes' own granularity: creationTimestamp, condition
 * and container times are whole seconds.
 */
class DemoIT {

  static final long SECOND = 1000;

  @TempDir static Path out;
  static Demo.Result result;
  static String console;

  @BeforeAll
  static void runDemo() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    DemoConfig config =
        DemoConfig.from(
            CommandLineSettings.load(
                DemoConfig.DEF,
                List.of(
                    "--out", out.toString(),
                    "--streams-http-port", "0",
                    "--collector-http-port", "0"),
                Map.of()));
    result = new Demo(config, print).run();
    console = buffer.toString(StandardCharsets.UTF_8);
    System.out.println(console);
  }

  @Test
  void shouldGiveEveryPodOfTheSimulationAFinalTimeline() {
    assertThat(result.truth()).hasSizeGreaterThan(20);
    assertThat(result.missing()).isEmpty();
  }

  @Test
  void shouldMatchTheGroundTruthWithinKubernetesGranularity() {
    SoftAssertions soft = new SoftAssertions();
    for (PodTruth truth : result.truth()) {
      PodTimeline t = result.finals().get(truth.uid());
      String pod = truth.name() + " (" + truth.arm() + " r" + truth.repeat() + ")";
      soft.assertThat(t.getArm()).as(pod + " arm").isEqualTo(truth.arm());
      soft.assertThat(t.getRepeat())
          .as(pod + " repeat")
          .isEqualTo(Integer.toString(truth.repeat()));
      soft.assertThat(t.getPriorityClass()).as(pod + " class").isEqualTo(truth.priorityClass());
      soft.assertThat(t.getOutcome()).as(pod + " outcome").isEqualTo(truth.outcome());
      soft.assertThat(t.getNeverScheduled())
          .as(pod + " neverScheduled")
          .isEqualTo(truth.scheduledAt() == null);
      if (truth.scheduledAt() != null) {
        // createdAt is whole seconds; the Scheduled event is microsecond-precise.
        soft.assertThat(t.getPendingMs() - truth.pendingMs())
            .as(pod + " pending")
            .isBetween(0L, SECOND);
      }
      if (truth.readyAt() != null) {
        soft.assertThat(t.getTimeToReadyMs() - (truth.readyAt() - truth.createdAt()))
            .as(pod + " time to Ready")
            .isBetween(-SECOND, SECOND);
      } else {
        soft.assertThat(t.getReadyAt()).as(pod + " readyAt").isNull();
      }
      if (truth.firstOkRequestAt() != null) {
        soft.assertThat(t.getTimeToFirstOkMs() - (truth.firstOkRequestAt() - truth.createdAt()))
            .as(pod + " time to first OK request")
            .isBetween(0L, SECOND);
      } else {
        soft.assertThat(t.getFirstOkRequestAt()).as(pod + " firstOkRequestAt").isNull();
      }
      soft.assertThat(t.getRequests()).as(pod + " requests").isEqualTo(truth.requests());
      soft.assertThat(t.getErrors()).as(pod + " errors").isEqualTo(truth.errors());
      soft.assertThat(t.getSloBreaches()).as(pod + " SLO breaches").isEqualTo(truth.sloBreaches());
      soft.assertThat(t.getFailedSchedulingCount())
          .as(pod + " FailedScheduling count")
          .isEqualTo(truth.failedSchedulingCount());
      // Preemptor and victims, linked both ways.
      if (truth.preemptorUid() != null) {
        soft.assertThat(t.getPreemptor()).as(pod + " preemptor").isNotNull();
        if (t.getPreemptor() != null) {
          soft.assertThat(t.getPreemptor().getUid())
              .as(pod + " preemptor")
              .isEqualTo(truth.preemptorUid());
        }
        soft.assertThat(t.getPreemptedAt() - truth.preemptedAt())
            .as(pod + " preemptedAt (event time, µs)")
            .isBetween(-1L, 1L);
      } else {
        soft.assertThat(t.getPreemptor()).as(pod + " preemptor").isNull();
      }
      soft.assertThat(Set.copyOf(t.getVictims()))
          .as(pod + " victims")
          .isEqualTo(Set.copyOf(truth.victims()));
      // Wasted GPU-seconds: both ends are whole seconds on the API.
      if (truth.wastedGpuSeconds() != null) {
        soft.assertThat(t.getWastedGpuSeconds()).as(pod + " wasted").isNotNull();
        if (t.getWastedGpuSeconds() != null) {
          soft.assertThat(Math.abs(t.getWastedGpuSeconds() - truth.wastedGpuSeconds()))
              .as(
                  pod
                      + " wasted GPU-seconds "
                      + t.getWastedGpuSeconds()
                      + " vs "
                      + truth.wastedGpuSeconds())
              .isLessThanOrEqualTo(truth.gpus() * 2.0);
        }
      } else {
        soft.assertThat(t.getWastedGpuSeconds()).as(pod + " wasted").isNull();
      }
      if (t.getAllocatedGpuSeconds() != null && t.getBusyGpuSeconds() != null) {
        soft.assertThat(t.getBusyGpuSeconds())
            .as(pod + " busy ≤ allocated (allocation is not utilisation)")
            .isLessThanOrEqualTo(t.getAllocatedGpuSeconds() + 15 * truth.gpus());
      }
    }
    soft.assertAll();
  }

  @Test
  void shouldReportWhatTheScenarioImplies() throws Exception {
    ExperimentReport r = result.report();
    assertThat(r.control()).isEqualTo("control");
    Row controlInteractive = r.row("control", "interactive-inference");
    Row treatmentInteractive = r.row("treatment", "interactive-inference");
    // Treatment: interactive pending far below control, in every repeat.
    for (String repeat : r.repeats()) {
      assertThat(treatmentInteractive.pendingMaxMs().byRepeat().get(repeat) * 10)
          .as("repeat " + repeat)
          .isLessThan(controlInteractive.pendingMaxMs().byRepeat().get(repeat));
    }
    assertThat(treatmentInteractive.timeToFirstOkP50Ms().mean())
        .isLessThan(controlInteractive.timeToFirstOkP50Ms().mean());
    // Victims and wasted work only in treatment.
    for (Row row : r.rows()) {
      if (row.arm().equals("control")) {
        assertThat(row.preemptions().max()).as(row.workload()).isZero();
        assertThat(row.wastedGpuSeconds().max()).as(row.workload()).isZero();
      }
    }
    assertThat(r.row("treatment", "embedding-batch").preemptions().min()).isPositive();
    assertThat(r.row("treatment", "embedding-batch").wastedGpuSeconds().min()).isPositive();
    assertThat(treatmentInteractive.preemptions().max()).isZero();
    // Whether a batch class starves: ASR gets no GPU time in treatment.
    assertThat(r.row("treatment", "asr-batch").starvingPods().min()).isPositive();
    assertThat(r.findings())
        .anyMatch(f -> f.startsWith("Starving in treatment") && f.contains("asr-batch"));

    assertThat(Files.readAllLines(out.resolve("timelines.jsonl"))).hasSize(result.finals().size());
    assertThat(Files.readString(out.resolve("report.md")))
        .contains("| treatment | interactive-inference |");
    assertThat(Files.readString(out.resolve("report.json"))).contains("\"findings\"");
    assertThat(console).contains("[run 6/6]").contains("interactive-inference");
  }
}
