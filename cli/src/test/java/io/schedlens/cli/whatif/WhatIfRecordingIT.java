package io.schedlens.cli.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.cli.replay.Recordings;
import io.schedlens.report.TimelinesFile;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./schedlens whatif} on a recording (the files {@code ./schedlens replay} reads: Pods and
 * Events as kubectl's watch prints them, DCGM scrapes, request logs), not on timelines: day08
 * recorded as from a real cluster, replayed on an embedded broker into {@code OUT/observed}, then
 * its control arm predicted under a policy. The recording also shows how often each Job
 * checkpointed, which timelines do not: day08's Jobs checkpoint every 4 (embedding) and 3 (ASR)
 * minutes of productive work, and the policy here leaves embedding-batch's interval out.
 */
class WhatIfRecordingIT {

  @TempDir Path dir;

  @Test
  void shouldReplayTheRecordingAndAnswerFromItsTimelines() throws Exception {
    Scenario scenario = ScenarioLoader.load("day08");
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording"));
    Path out = dir.resolve("whatif");
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(
        policy,
        Files.readString(Path.of("../docs/operators/whatif/interactive-first.yaml"))
            .replace(
                "embedding-batch: {priorityClass: embedding-batch, setup: 30s, checkpointEvery: 4m}",
                "embedding-batch: {priorityClass: embedding-batch, setup: 30s}"));
    assertThat(policy).content().doesNotContain("checkpointEvery: 4m");
    List<String> args = new ArrayList<>(Recordings.replayArgs(rec.dir(), out, scenario));
    args.addAll(
        List.of(
            "--policy", policy.toString(),
            "--run-length", "45m",
            "--compare-arm", "treatment"));

    Answer a = whatif(args);
    String err = a.err();
    String answer = a.out();

    assertThat(a.code()).as(err).isZero();
    assertThat(err)
        .contains("replaying the recording into " + out.resolve("observed"))
        .contains("3 observed runs of arm control")
        .containsPattern(
            "the recording shows embedding-batch checkpointing every 4m \\(median of \\d+ gaps\\)")
        .containsPattern(
            "the recording shows asr-batch checkpointing every 3m \\(median of \\d+ gaps\\)");
    List<PodTimeline> observed = TimelinesFile.read(out.resolve("observed"));
    assertThat(observed).hasSize(rec.truth().size());
    assertThat(answer)
        .doesNotContain("replay:") // the replay's own report went to the progress stream
        .contains("predicted  interactive-inference  Deployment  interactive")
        .contains("treatment  interactive-inference  Deployment  interactive")
        .containsPattern("interactive-inference \\(interactive\\): first OK request after")
        .containsPattern(
            "embedding-batch checkpoints every 4m: the median of \\d+ gaps between its pods'"
                + " recorded checkpoints, where the policy says none")
        .doesNotContain("asr-batch checkpoints every") // the policy says 3m
        .doesNotContain("embedding-batch never checkpoints");
    List<PodTimeline> written = TimelinesFile.read(out);
    assertThat(written).anyMatch(t -> "predicted".equals(t.getArm()) && t.getFinal$());
    assertThat(written).anyMatch(t -> "control".equals(t.getArm()));
  }

  /**
   * The kueue scenario recorded with its Workloads ({@code --objects}): the observed Jobs carry
   * their queue waits, and its control arm under the treatment's WorkloadPriorityClasses predicts
   * the queue waits and the Kueue preemptions the treatment really had.
   */
  @Test
  void shouldObserveQueueWaitFromTheRecordedWorkloadsAndPredictIt() throws Exception {
    Scenario scenario = ScenarioLoader.load("kueue");
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording"));
    Path out = dir.resolve("whatif");
    List<String> args = new ArrayList<>(Recordings.replayArgs(rec.dir(), out, scenario));
    args.addAll(
        List.of(
            "--policy", "../docs/operators/whatif/kueue-priorities.yaml",
            "--run-length", "30m",
            "--compare-arm", "treatment"));
    Answer a = whatif(args);
    String answer = a.out();

    assertThat(a.code()).as(a.err()).isZero();
    List<PodTimeline> observed = TimelinesFile.read(out.resolve("observed"));
    assertThat(observed)
        .filteredOn(t -> t.getName().startsWith("embedding-routine"))
        .isNotEmpty()
        .allMatch(t -> "embed".equals(t.getQueue()) && t.getQueueWaitMs() != null);
    List<PodTimeline> predicted =
        TimelinesFile.read(out).stream().filter(t -> "predicted".equals(t.getArm())).toList();
    assertThat(predicted)
        .filteredOn(t -> t.getName().startsWith("embedding-routine"))
        .isNotEmpty()
        .allMatch(t -> "embed".equals(t.getQueue()) && t.getQueueWaitMs() != null);
    // the treatment's urgent embedding Job preempts routine ones: Kueue's victims, predicted
    assertThat(predicted)
        .anyMatch(
            t ->
                t.getDisruption() != null
                    && "queue-preemption".equals(t.getDisruption().getCause()));
    assertThat(answer)
        // the treatment really had embedding-routine wait 7 min 03 s (p95) and lose 4 pods
        .containsPattern(
            "embedding-routine \\(\\(none\\)\\): queue wait p95 7 min \\d+ s instead of 10 min"
                + " 03 s, then pending p95 [^;]+; 4 preemptions per run instead of 2")
        .contains("Jobs wait suspended in their Kueue queue until admitted");
  }

  /** What {@code ./schedlens whatif} exited with and printed. */
  private record Answer(int code, String out, String err) {}

  private static Answer whatif(List<String> args) throws Exception {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int code =
        WhatIfCommand.run(
            args,
            Map.of(),
            new PrintStream(stdout, true, StandardCharsets.UTF_8),
            new PrintStream(stderr, true, StandardCharsets.UTF_8));
    return new Answer(
        code, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
  }

  @Test
  void shouldRefuseTimelinesAndARecordingTogether() throws Exception {
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int code =
        WhatIfCommand.run(
            List.of(
                "--from", dir.toString(),
                "--pods", "pods.json",
                "--policy", "../docs/operators/whatif/interactive-first.yaml"),
            Map.of(),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(stderr, true, StandardCharsets.UTF_8));

    assertThat(code).isEqualTo(WhatIfCommand.BAD_INPUT);
    assertThat(stderr.toString(StandardCharsets.UTF_8))
        .contains("give either --from (timelines) or a recording (--pods, --events), not both");
  }
}
