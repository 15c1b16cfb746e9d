package io.schedlens.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.report.ExperimentReport.Row;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExperimentReportTest {

  static PodFacts server(String arm, String repeat, long pendingMs, Long firstOkMs, long breaches) {
    return new PodFacts(
        arm,
        repeat,
        "chat",
        "Deployment",
        arm.equals("control") ? null : "interactive",
        pendingMs,
        false,
        firstOkMs,
        firstOkMs,
        false,
        0,
        100,
        breaches,
        false,
        "Deleted",
        0,
        null,
        false);
  }

  static PodFacts job(
      String arm,
      String repeat,
      long pendingMs,
      boolean preempted,
      double wasted,
      boolean starving) {
    return new PodFacts(
        arm,
        repeat,
        "asr",
        "Job",
        arm.equals("control") ? null : "batch",
        pendingMs,
        false,
        null,
        null,
        preempted,
        wasted,
        0,
        0,
        starving,
        preempted ? "Preempted" : "Succeeded",
        0,
        null,
        false);
  }

  static List<PodFacts> experiment() {
    List<PodFacts> pods = new ArrayList<>();
    pods.add(server("control", "1", 600_000, 700_000L, 5));
    pods.add(server("control", "1", 100_000, 200_000L, 5));
    pods.add(server("control", "2", 300_000, 400_000L, 5));
    pods.add(server("treatment", "1", 2_000, 100_000L, 1));
    pods.add(server("treatment", "2", 3_000, 101_000L, 1));
    pods.add(server("treatment", "2", 4_000, 102_000L, 1));
    pods.add(job("control", "1", 0, false, 0, false));
    pods.add(job("control", "2", 0, false, 0, false));
    pods.add(job("treatment", "1", 0, true, 120, false));
    pods.add(job("treatment", "1", 900_000, false, 0, true));
    pods.add(job("treatment", "2", 0, true, 60, false));
    return pods;
  }

  @Test
  void shouldComputeEachNumberPerRepeatThenOverRepeats() {
    ExperimentReport r = ExperimentReport.of("day08", experiment(), 600_000);
    assertThat(r.control()).isEqualTo("control");
    assertThat(r.arms()).containsExactly("control", "treatment");
    assertThat(r.repeats()).containsExactly("1", "2");
    assertThat(r.rows()).extracting(Row::workload).containsExactly("chat", "asr", "chat", "asr");

    Row chat = r.row("control", "chat");
    // repeat 1: pending {100 s, 600 s}: nearest-rank p50 = 100 s; repeat 2: 300 s.
    assertThat(chat.pendingP50Ms().byRepeat())
        .containsEntry("1", 100_000.0)
        .containsEntry("2", 300_000.0);
    assertThat(chat.pendingP50Ms().mean()).isCloseTo(200_000, within(1e-9));
    assertThat(chat.pendingMaxMs().max()).isEqualTo(600_000);
    assertThat(chat.pods().byRepeat()).containsEntry("1", 2.0).containsEntry("2", 1.0);
    assertThat(chat.priorityClasses()).containsExactly("(none)");
    assertThat(r.row("treatment", "chat").priorityClasses()).containsExactly("interactive");

    Row asr = r.row("treatment", "asr");
    assertThat(asr.preemptions().mean()).isEqualTo(1.0);
    assertThat(asr.wastedGpuSeconds().byRepeat())
        .containsEntry("1", 120.0)
        .containsEntry("2", 60.0);
    assertThat(asr.starvingPods().byRepeat()).containsEntry("1", 1.0).containsEntry("2", 0.0);
  }

  /** Batch Jobs under Kueue: the queue wait (no pod exists while it lasts) per arm. */
  @Test
  void shouldCompareTheQueueWaitBetweenArmsWhereKueueAdmittedThePods() {
    List<PodFacts> pods = new ArrayList<>(experiment());
    pods.replaceAll(
        p ->
            p.workload().equals("asr")
                ? new PodFacts(
                    p.arm(),
                    p.repeat(),
                    p.workload(),
                    p.workloadKind(),
                    p.priorityClass(),
                    p.pendingMs(),
                    p.neverScheduled(),
                    p.timeToReadyMs(),
                    p.timeToFirstOkMs(),
                    p.preempted(),
                    p.wastedGpuSeconds(),
                    p.requests(),
                    p.sloBreaches(),
                    p.starving(),
                    p.outcome(),
                    p.restarts(),
                    p.arm().equals("control") ? 3_600_000L : 600_000L,
                    p.preempted())
                : p);
    ExperimentReport r = ExperimentReport.of("kueue", pods, 600_000);

    assertThat(r.queued()).isTrue();
    assertThat(r.row("control", "asr").queueWaitP95Ms().mean()).isEqualTo(3_600_000.0);
    assertThat(r.row("treatment", "asr").queueWaitP95Ms().mean()).isEqualTo(600_000.0);
    assertThat(r.row("treatment", "chat").queued()).as("outside Kueue").isFalse();
    assertThat(ReportWriter.table(r)).contains("queue wait p95");
    assertThat(ReportWriter.table(ExperimentReport.of("day08", experiment(), 600_000)))
        .as("no queue, no queue columns")
        .doesNotContain("queue wait");
    assertThat(r.findings())
        .contains(
            "asr: queue wait p50 10 min 00 s in treatment against 1 h 00 min in control (mean over"
                + " repeats: lower); lower in 2 of 2 repeats.");
    // The asr pods preempted in treatment were Kueue's victims here.
    assertThat(r.findings())
        .contains(
            "asr: Kueue preempted 1 running pods per repeat in treatment (each its Workload's,"
                + " evicted to give quota to another); work lost: 0.03 GPU-hours per repeat.")
        .noneMatch(f -> f.contains("Kueue preempted") && f.contains("in control"));
  }

  @Test
  void shouldSayWhatTheNumbersMeanRepeatByRepeat() {
    ExperimentReport r = ExperimentReport.of("day08", experiment(), 600_000);
    assertThat(r.findings())
        .contains(
            "chat: Pending p50 3 s in treatment against 3 min 20 s in control (mean over repeats: lower); lower in 2 of 2 repeats.")
        .anyMatch(
            f -> f.startsWith("asr: preempted 1 times per repeat in treatment (0 in control)"))
        .contains("No workload starves in control.")
        .anyMatch(
            f -> f.startsWith("Starving in treatment") && f.contains("asr (0.5 pods per repeat)"));
  }

  @Test
  void shouldNotNameAnArmWhenThePodsBelongToNoExperiment() {
    List<PodFacts> cluster =
        List.of(job("", "", 900_000, false, 0, true), job("", "", 0, false, 0, false));
    ExperimentReport r = ExperimentReport.of("cluster", cluster, 600_000);
    assertThat(r.findings())
        .anyMatch(f -> f.startsWith("Starving (pending over 10 min") && f.contains("asr"))
        .noneMatch(f -> f.contains(" in  ") || f.contains(" in (") || f.contains(" in :"));
  }

  @Test
  void shouldWriteTheTableMarkdownAndJson() {
    ExperimentReport r = ExperimentReport.of("day08", experiment(), 600_000);
    assertThat(ReportWriter.table(r)).contains("treatment").contains("3m20s [1m40s–5m00s]");
    assertThat(ReportWriter.markdown(r, "intro"))
        .contains("# Experiment day08")
        .contains("| arm | application | kind | priority class |")
        .contains("| control | chat | Deployment | (none) |");
    assertThat(ReportWriter.json(r)).contains("\"pendingP50Ms\"").contains("\"byRepeat\"");
  }

  @Test
  void shouldGroupTheJobsOfOneApplicationTogether() {
    PodTimeline t =
        PodTimeline.newBuilder()
            .setUid("u")
            .setNamespace("ai-lab")
            .setName("asr-batch-3-x7k2p")
            .setWorkload(new WorkloadRef("Job", "asr-batch-3"))
            .setApplication("asr-batch")
            .setArm("treatment")
            .setRepeat("1")
            .setUpdatedAt(0L)
            .build();
    assertThat(PodFacts.of(t).workload()).isEqualTo("asr-batch");
    t.setApplication(null);
    assertThat(PodFacts.of(t).workload()).isEqualTo("asr-batch-3");
  }
}
