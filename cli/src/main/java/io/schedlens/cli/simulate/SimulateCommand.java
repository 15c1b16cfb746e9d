package io.schedlens.cli.simulate;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ReportWriter;
import io.schedlens.runs.ScenarioSetting;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.scenario.Scenario;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * {@code ./schedlens simulate --scenario FILE}: a what-if run. The simulator alone, as fast as the
 * CPU goes (no Kafka, no API), and the report from its ground truth: try a policy (PriorityClass
 * values, preemptionPolicy, arrivals) in seconds before touching a cluster. {@code ./schedlens
 * demo} runs the same scenario through the whole pipeline.
 */
public final class SimulateCommand {

  public static final String SCENARIO = "scenario";
  public static final String OUT = "out";
  public static final String SEED = "seed";
  public static final String RECORD = "record";

  public static final ConfigDef DEF =
      new ConfigDef()
          .define(SCENARIO, Type.STRING, "day08", Importance.HIGH, ScenarioSetting.doc())
          .define(
              OUT,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "Directory for report.md, report.json and simulator-truth.jsonl. Empty: print only.")
          .define(SEED, Type.LONG, -1L, Importance.LOW, "Random seed; -1: the scenario's own.")
          .define(
              RECORD,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "Directory to record the simulated cluster in, as from a real one, for ./schedlens replay: pods.json and events.json (kubectl watch events), dcgm.prom (a timestamped scrape every scrape interval of the scenario, 15 s in most), requests.jsonl. Empty: no recording.");

  private static final class Config extends AppConfig {
    Config(Map<String, Object> values) {
      super(DEF, values, Map.of());
    }
  }

  private SimulateCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out)
      throws Exception {
    return run(args, env, out, out);
  }

  /** Results to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(DEF, args, env, false);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens simulate [--scenario "
              + ScenarioSetting.choices()
              + "] [--seed N] [--out DIR] [--record DIR]\n");
      out.print(CommandLineSettings.helpText(DEF, false));
      return 0;
    }
    Config config = new Config(settings.values());
    Scenario scenario = ScenarioSetting.load(config.getString(SCENARIO));
    long seed = config.getLong(SEED);
    if (seed >= 0) {
      scenario = scenario.withSeed(seed);
    }
    long t0 = System.nanoTime();
    long origin = ((System.currentTimeMillis() - Simulator.span(scenario)) / 60_000) * 60_000;
    Simulator sim = new Simulator(scenario, origin);
    String recordDir = config.getString(RECORD);
    ClusterRecorder recorder =
        recordDir.isEmpty()
            ? null
            : new ClusterRecorder(
                Path.of(recordDir),
                sim.gpus(),
                sim.nodes(),
                origin,
                scenario.scrapeInterval().toMillis());
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
                err.printf(
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
      err.printf(
          "simulate: recorded the cluster in %s (%s, %s, %s, %s); replay it with%n"
              + "  ./schedlens replay --pods %2$s --events %3$s --dcgm %4$s --requests %5$s%s --out replay-out%n",
          Path.of(recordDir).toAbsolutePath(),
          Path.of(recordDir, ClusterRecorder.PODS),
          Path.of(recordDir, ClusterRecorder.EVENTS),
          Path.of(recordDir, ClusterRecorder.DCGM),
          Path.of(recordDir, ClusterRecorder.REQUESTS),
          scenario.slos().entrySet().stream()
              .map(e -> " --slo " + e.getKey() + "=" + Math.round(e.getValue()))
              .collect(Collectors.joining()));
    }
    ExperimentReport report =
        ExperimentReport.of(
            scenario.experiment(),
            TruthFacts.of(truth, Duration.ofMinutes(10).toMillis(), 3),
            Duration.ofMinutes(10).toMillis());
    out.printf(
        "simulate: %s, %d pods in %.1f s (ground truth of the simulator; the pipeline is not involved)%n%n",
        scenario.name(), truth.size(), (System.nanoTime() - t0) / 1e9);
    out.print(ReportWriter.table(report));
    out.println();
    report.findings().forEach(f -> out.println("  - " + f));
    String dir = config.getString(OUT);
    if (!dir.isEmpty()) {
      Path outDir = Path.of(dir);
      Files.createDirectories(outDir);
      ObjectMapper json = new ObjectMapper();
      Files.writeString(
          outDir.resolve("simulator-truth.jsonl"),
          truth.stream()
              .map(
                  t -> {
                    try {
                      return json.writeValueAsString(t);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  })
              .collect(Collectors.joining("\n", "", "\n")));
      ReportWriter.writeAll(
          outDir,
          report,
          "What-if run of scenario `"
              + scenario.name()
              + "` from the simulator's ground truth (`./schedlens simulate`).");
      out.println(
          "\nsimulate: wrote "
              + outDir.toAbsolutePath()
              + "/report.md, report.json, simulator-truth.jsonl");
    }
    return 0;
  }
}
