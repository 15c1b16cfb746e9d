package io.schedlens.cli.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.whatif.SimulatedExperiment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./schedlens whatif} on day08 as the pipeline observes it, both arms. */
class WhatIfCommandTest {

  @TempDir static Path observed;

  @BeforeAll
  static void observe() throws Exception {
    SimulatedExperiment day08 =
        new SimulatedExperiment(ScenarioLoader.load("day08"), 1_796_236_020_000L);
    List<PodTimeline> both = new ArrayList<>(day08.arm("control"));
    both.addAll(day08.arm("treatment"));
    TimelinesFile.write(observed, both);
    WorkloadsFile.write(observed, day08.workloads());
  }

  record Run(int code, String out, String err) {}

  static Run whatif(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        WhatIfCommand.run(
            List.of(args),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void shouldAnswerObservedAgainstPredictedAndWriteThePagesInput(@TempDir Path out)
      throws Exception {
    Run r =
        whatif(
            "--from", observed.toString(),
            "--policy", "../docs/operators/whatif/interactive-first.yaml",
            "--run-length", "45m",
            "--compare-arm", "treatment",
            "--out", out.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("3 observed runs of arm control").contains("[run 3/3]");
    assertThat(r.out())
        .contains("predicted  interactive-inference  Deployment  interactive")
        .contains("treatment  interactive-inference  Deployment  interactive")
        .containsPattern(
            "interactive-inference \\(interactive\\): first OK request after 1 min \\d\\d s instead of 4 min \\d\\d s")
        .contains("embedding-batch (embedding-batch): pending p95")
        .contains("Starving pods per run");
    assertThat(out.resolve("report.md"))
        .content()
        .contains("What-if of policy `interactive-first`");
    assertThat(out.resolve("whatif.json")).content().contains("\"policy\" : \"interactive-first\"");
    List<PodTimeline> written = TimelinesFile.read(out);
    assertThat(written).anyMatch(t -> "predicted".equals(t.getArm()) && t.getFinal$());
    assertThat(written).anyMatch(t -> "control".equals(t.getArm()));
    assertThat(written).anyMatch(t -> "treatment".equals(t.getArm()));
    assertThat(WorkloadsFile.read(out.resolve(WorkloadsFile.NAME)))
        .anyMatch(w -> "predicted".equals(w.getArm()));
    assertThat(out.resolve(".state")).doesNotExist();
  }

  @Test
  void shouldPredictAgainWithOtherSeedsAndKeepTheFirstPredictionsOutputs(@TempDir Path dir)
      throws Exception {
    List<String> args =
        List.of(
            "--from", observed.toString(),
            "--policy", "../docs/operators/whatif/interactive-first.yaml",
            "--run-length", "45m");
    List<String> once = new ArrayList<>(args);
    once.addAll(List.of("--out", dir.resolve("once").toString()));
    List<String> thrice = new ArrayList<>(args);
    thrice.addAll(List.of("--out", dir.resolve("thrice").toString(), "--seeds", "3"));

    Run one = whatif(once.toArray(String[]::new));
    Run three = whatif(thrice.toArray(String[]::new));

    assertThat(three.code()).as(three.err()).isZero();
    assertThat(three.err())
        .contains("[seed 2/3] 3 runs predicted again with seed 2")
        .contains("[seed 3/3] 3 runs predicted again with seed 3");
    assertThat(three.out())
        .contains("3 runs predicted with 3 seeds")
        .containsPattern("Starving pods per run: \\S+ \\((the same|.+ to .+) over 3 seeds\\)");
    assertThat(one.out()).doesNotContain("seeds");
    // the tables, the timelines and the pages are the first prediction's, the policy's own seed
    for (String file : List.of("report.json", TimelinesFile.NAME, WorkloadsFile.NAME)) {
      assertThat(dir.resolve("thrice").resolve(file))
          .hasSameTextualContentAs(dir.resolve("once").resolve(file));
    }
    assertThat(dir.resolve("thrice/whatif.json")).content().contains("\"seeds\" : 3");
  }

  @Test
  void shouldPredictAHeliosJobLog(@TempDir Path dir) throws Exception {
    // rows in the format of HeliosData's cluster_log.csv, not rows of the trace
    Path log = dir.resolve("cluster_log.csv");
    Files.writeString(
        log,
        """
        job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
        j1,u1,vcA,8,48,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:30,2020-04-01 00:30:30,1800,30
        j2,u2,vcB,8,48,1,COMPLETED,2020-04-01 00:01:00,2020-04-01 00:30:40,2020-04-01 00:50:40,1200,1780
        j3,u1,vcA,0,4,1,COMPLETED,2020-04-01 00:02:00,2020-04-01 00:02:01,2020-04-01 00:03:01,60,1
        """);
    Path policy = dir.resolve("p.yaml");
    Files.writeString(
        policy,
        """
        name: vcb-first
        priorityClasses: [{name: high, value: 1000}, {name: low, value: 10, preemptionPolicy: Never}]
        workloads:
          vcA: {priorityClass: low}
          vcB: {priorityClass: high}
        nodes: [{name: gpu, count: 1, gpus: 8}]
        """);

    Run r =
        whatif(
            "--from", log.toString(),
            "--policy", policy.toString(),
            "--out", dir.resolve("out").toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("2 jobs that ran on GPUs as 2 pods; left out: {no GPU=1}");
    assertThat(r.out()).contains("predicted").contains("vcA").contains("vcB");
  }

  @Test
  void shouldRefuseAPolicyThatDoesNotValidateSayingWhere(@TempDir Path dir) throws Exception {
    Path policy = dir.resolve("p.yaml");
    Files.writeString(policy, "name: p\nworkloads:\n  chat: {priorityClass: gold}\n");

    Run r = whatif("--from", observed.toString(), "--policy", policy.toString());

    assertThat(r.code()).isEqualTo(WhatIfCommand.BAD_INPUT);
    assertThat(r.err()).contains("workloads.chat.priorityClass: 'gold' is not one of");
  }

  @Test
  void shouldSayWhatIsMissing(@TempDir Path dir) throws Exception {
    assertThat(whatif("--policy", "x.yaml").err()).contains("--from").contains("required");
    Run r =
        whatif(
            "--from",
            dir.toString(),
            "--policy",
            "../docs/operators/whatif/interactive-first.yaml");
    assertThat(r.code()).isEqualTo(WhatIfCommand.BAD_INPUT);
    assertThat(r.err()).contains("timelines.jsonl not found");
  }
}
