package io.schedlens.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's header (the experiment's stated conditions) and its service-continuity table. */
class ConditionsAndContinuityTest {

  @TempDir Path dir;

  static ExperimentConfig configMap(
      String name, String experiment, long at, Map<String, String> data) {
    return ExperimentConfig.newBuilder()
        .setNamespace("ai-lab")
        .setName(name)
        .setExperiment(experiment)
        .setChangeType(ChangeType.ADDED)
        .setObservedAt(at)
        .setData(data)
        .build();
  }

  static GpuSample sample(String node, String model) {
    return GpuSample.newBuilder().setTime(0L).setNode(node).setModelName(model).build();
  }

  @Test
  void shouldHeadTheReportWithTheLatestConfigMapOfItsExperimentAndTheGpusSeen() throws Exception {
    Conditions c =
        Conditions.of(
            "day08",
            List.of(
                configMap("other", "day09", 5, Map.of("change", "something else")),
                configMap("day08-experiment", "day08", 1, Map.of("change", "old wording")),
                configMap(
                    "day08-experiment",
                    "day08",
                    2,
                    Map.of(
                        "repeats", "3",
                        "change", "PriorityClasses",
                        "owner", "platform team",
                        "fixed", "one H100",
                        "metrics", "time to first OK"))),
            List.of(
                sample("gpu-node-1", "NVIDIA H100 80GB HBM3"),
                sample("gpu-node-2", "NVIDIA H100 80GB HBM3"),
                sample("gpu-node-9", "NVIDIA L4")));

    assertThat(c.source()).isEqualTo("ai-lab/day08-experiment");
    assertThat(c.stated().keySet())
        .as("the conventional keys first, then the rest")
        .containsExactly("change", "fixed", "metrics", "repeats", "owner");
    assertThat(c.stated()).containsEntry("change", "PriorityClasses");
    assertThat(c.gpuNodes())
        .containsEntry("NVIDIA H100 80GB HBM3", List.of("gpu-node-1", "gpu-node-2"))
        .containsEntry("NVIDIA L4", List.of("gpu-node-9"));

    ExperimentReport r =
        ExperimentReport.of("day08", ExperimentReportTest.experiment(), 600_000).withConditions(c);
    String md = ReportWriter.markdown(r, "intro");
    assertThat(md)
        .contains("## Conditions")
        .contains("As stated in ConfigMap `ai-lab/day08-experiment`")
        .contains("- **change**: PriorityClasses")
        .contains("- **GPUs seen**: NVIDIA H100 80GB HBM3 on 2 nodes (gpu-node-1, gpu-node-2)");
    assertThat(ReportWriter.json(r)).contains("\"source\" : \"ai-lab/day08-experiment\"");

    c.write(dir);
    assertThat(Conditions.read(dir)).isEqualTo(c);
  }

  @Test
  void shouldSayWhenTheStatedRepeatsAreNotTheRepeatsInTheData() {
    Conditions c =
        Conditions.of(
            "day08", List.of(configMap("e", "day08", 1, Map.of("repeats", "5"))), List.of());
    ExperimentReport r =
        ExperimentReport.of("day08", ExperimentReportTest.experiment(), 600_000).withConditions(c);

    assertThat(ReportWriter.markdown(r, "")).contains("**WARNING**: 5 repeats stated, ");
  }

  @Test
  void shouldSayWhenNoConditionsWereStated() {
    ExperimentReport r = ExperimentReport.of("day08", ExperimentReportTest.experiment(), 600_000);

    assertThat(ReportWriter.markdown(r, ""))
        .contains("the conditions of this comparison are not stated");
  }

  static ServiceInterval interval(String arm, String repeat, long start, long ms, long errors) {
    return ServiceInterval.newBuilder()
        .setStart(start)
        .setEnd(start + ms)
        .setDurationMs(ms)
        .setCause("eviction-api")
        .setArm(arm)
        .setRepeat(repeat)
        .setErrors(errors)
        .build();
  }

  @Test
  void shouldSumInterruptionsAndAverageRecoveriesPerArmAndRepeat() {
    WorkloadTimeline chat =
        WorkloadTimeline.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Deployment")
            .setName("chat")
            .setDesiredSource("observed")
            .setDesired(1)
            .setReady(1)
            .setUpdatedAt(0)
            .setInterruptions(
                List.of(
                    interval("treatment", "1", 0, 60_000, 2),
                    interval("treatment", "1", 100_000, 30_000, 0),
                    interval("treatment", "2", 0, 120_000, 1),
                    interval("control", "1", 0, 300_000, 0)))
            .setRecoveries(
                List.of(
                    Recovery.newBuilder()
                        .setPod("a")
                        .setCause("eviction-api")
                        .setAt(0)
                        .setArm("treatment")
                        .setRepeat("1")
                        .setToReadyMs(60_000L)
                        .build(),
                    Recovery.newBuilder()
                        .setPod("b")
                        .setCause("eviction-api")
                        .setAt(0)
                        .setArm("treatment")
                        .setRepeat("1")
                        .setToReadyMs(30_000L)
                        .build()))
            .build();
    ExperimentReport r =
        ExperimentReport.of("day08", ExperimentReportTest.experiment(), 600_000, List.of(chat));

    ServiceContinuity.Row treatment = r.continuity("treatment", "chat");
    assertThat(treatment.interruptionSeconds().byRepeat())
        .containsEntry("1", 90.0)
        .containsEntry("2", 120.0);
    assertThat(treatment.recoveryToReadySeconds().byRepeat()).containsEntry("1", 45.0);
    assertThat(treatment.disruptions().byRepeat()).containsEntry("1", 2.0).containsEntry("2", 0.0);
    assertThat(treatment.errorsInInterruptions().byRepeat()).containsEntry("1", 2.0);
    assertThat(r.continuity("control", "chat").interruptionSeconds().byRepeat())
        .as("per repeat the row ran in: none in repeat 2")
        .containsEntry("1", 300.0)
        .containsEntry("2", 0.0);
    assertThat(r.continuity("treatment", "asr").interruptionSeconds().mean())
        .as("a row with no interval had none")
        .isZero();
    assertThat(ReportWriter.markdown(r, ""))
        .contains("## Service continuity per arm and application");
    assertThat(ReportWriter.continuityTable(r)).contains("recovery to Ready");
  }

  static WorkloadTimeline jobSet(String name, String arm, String repeat, double gangWait) {
    return WorkloadTimeline.newBuilder()
        .setNamespace("ai-lab")
        .setKind("JobSet")
        .setName(name)
        .setApplication("asr")
        .setArm(arm)
        .setRepeat(repeat)
        .setDesiredSource("inferred")
        .setDesired(0)
        .setReady(0)
        .setUpdatedAt(0)
        .setGangRunningAt(60_000L)
        .setGangWaitGpuSeconds(gangWait)
        .build();
  }

  @Test
  void shouldSumTheGpuSecondsGangsHeldWaitingPerArmAndRepeat() {
    ExperimentReport r =
        ExperimentReport.of(
            "day08",
            ExperimentReportTest.experiment(),
            600_000,
            List.of(
                jobSet("asr-r1-a", "treatment", "1", 100),
                jobSet("asr-r1-b", "treatment", "1", 20),
                jobSet("asr-r2", "treatment", "2", 60),
                jobSet("asr-c1", "control", "1", 10)));

    ServiceContinuity.Row treatment = r.continuity("treatment", "asr");
    assertThat(treatment.gangWaitGpuSeconds().byRepeat())
        .containsEntry("1", 120.0)
        .containsEntry("2", 60.0);
    assertThat(r.continuity("control", "asr").gangWaitGpuSeconds().byRepeat())
        .as("a repeat whose gangs did not wait")
        .containsEntry("1", 10.0)
        .containsEntry("2", 0.0);
    assertThat(r.continuity("treatment", "chat").gangWaitGpuSeconds())
        .as("no gang: no figure")
        .isNull();
    assertThat(ReportWriter.markdown(r, "")).contains("gang wait GPU-s").contains("90 [60–120]");
    assertThat(ReportWriter.json(r)).contains("\"gangWaitGpuSeconds\"");
  }

  @Test
  void shouldFailTheInterruptionGuardrailWhenUsersLoseTheirServerLongerThanInTheControl() {
    WorkloadTimeline chat =
        WorkloadTimeline.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Deployment")
            .setName("chat")
            .setDesiredSource("observed")
            .setDesired(1)
            .setReady(1)
            .setUpdatedAt(0)
            .setInterruptions(
                List.of(
                    interval("control", "1", 0, 60_000, 0),
                    interval("control", "2", 0, 90_000, 0),
                    interval("treatment", "2", 0, 120_000, 0)))
            .build();
    ExperimentReport r =
        ExperimentReport.of("day08", ExperimentReportTest.experiment(), 600_000, List.of(chat));

    List<Guardrails.Result> results = Guardrails.evaluate(r, List.of("interruption<=control"));

    assertThat(results)
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.pass()).isFalse();
              assertThat(g.detail()).startsWith("rose: chat 2 min 00 s");
            });
    WorkloadTimeline calmer =
        WorkloadTimeline.newBuilder(chat)
            .setInterruptions(
                List.of(
                    interval("control", "1", 0, 60_000, 0),
                    interval("treatment", "1", 0, 30_000, 0)))
            .build();
    assertThat(
            Guardrails.evaluate(
                ExperimentReport.of(
                    "day08", ExperimentReportTest.experiment(), 600_000, List.of(calmer)),
                List.of("interruption<=control")))
        .singleElement()
        .satisfies(g -> assertThat(g.pass()).isTrue());
  }
}
