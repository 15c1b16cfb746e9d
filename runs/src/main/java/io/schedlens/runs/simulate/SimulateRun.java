package io.schedlens.runs.simulate;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ReportWriter;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.scenario.Scenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code ./schedlens simulate}: a scenario on the simulator alone, its ground truth as the report
 * gives it (no pipeline involved); with a recording directory, the cluster recorded as {@code
 * ./schedlens replay} reads it.
 */
public final class SimulateRun {

  /** What the simulator did, as the report gives it. */
  public record Result(List<PodTruth> truth, ExperimentReport report, double seconds) {}

  private final Scenario scenario;
  private final PrintStream progress;

  /**
   * @param progress a line per run as it finishes (the launcher: standard error)
   */
  public SimulateRun(Scenario scenario, PrintStream progress) {
    this.scenario = scenario;
    this.progress = progress;
  }

  /**
   * Runs the scenario.
   *
   * @param recordDir where to record the cluster; null: not recorded
   */
  public Result run(Path recordDir) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    long origin = ((System.currentTimeMillis() - Simulator.span(scenario)) / 60_000) * 60_000;
    Simulator sim = new Simulator(scenario, origin);
    ClusterRecorder recorder =
        recordDir == null
            ? null
            : new ClusterRecorder(
                recordDir, sim.gpus(), sim.nodes(), origin, scenario.scrapeInterval().toMillis());
    List<PodTruth> truth =
        sim.run(
            recorder == null ? ClusterWriter.NONE : recorder,
            recorder == null ? RequestSink.NONE : recorder,
            recorder == null ? Simulator.Pacer.NONE : recorder,
            new Simulator.Progress() {
              @Override
              public void runStarted(ClusterRun run, int index, int total) {}

              @Override
              public void runFinished(ClusterRun run, int index, int total, List<PodTruth> t) {
                progress.printf(
                    "simulate: [run %d/%d] %s, repeat %d: %d pods, %d preempted%n",
                    index,
                    total,
                    run.arm().name(),
                    run.repeat(),
                    t.size(),
                    t.stream().filter(x -> x.preemptedAt() != null).count());
              }
            });
    if (recorder != null) {
      recorder.close();
      recorded(recordDir);
    }
    ExperimentReport report =
        ExperimentReport.of(
            scenario.experiment(),
            TruthFacts.of(truth, Duration.ofMinutes(10).toMillis(), 3),
            Duration.ofMinutes(10).toMillis());
    return new Result(truth, report, (System.nanoTime() - t0) / 1e9);
  }

  /** Where the recording is and the replay command that reads it. */
  private void recorded(Path dir) {
    progress.printf(
        "simulate: recorded the cluster in %s (%s, %s, %s, %s, %s); replay it with%n"
            + "  ./schedlens replay --pods %2$s --events %3$s --dcgm %4$s --requests %5$s"
            + " --objects %6$s%7$s --out replay-out%n",
        dir.toAbsolutePath(),
        dir.resolve(ClusterRecorder.PODS),
        dir.resolve(ClusterRecorder.EVENTS),
        dir.resolve(ClusterRecorder.DCGM),
        dir.resolve(ClusterRecorder.REQUESTS),
        dir.resolve(ClusterRecorder.OBJECTS),
        scenario.slos().entrySet().stream()
            .map(e -> " --slo " + e.getKey() + "=" + Math.round(e.getValue()))
            .collect(Collectors.joining()));
  }

  /** simulator-truth.jsonl, report.md and report.json in {@code dir}. */
  public void write(Result result, Path dir) throws IOException {
    Files.createDirectories(dir);
    ObjectMapper json = new ObjectMapper();
    StringBuilder lines = new StringBuilder();
    for (PodTruth t : result.truth()) {
      lines.append(json.writeValueAsString(t)).append('\n');
    }
    Files.writeString(dir.resolve("simulator-truth.jsonl"), lines.toString());
    ReportWriter.writeAll(
        dir,
        result.report(),
        "What-if run of scenario `"
            + scenario.name()
            + "` from the simulator's ground truth (`./schedlens simulate`).");
  }
}
