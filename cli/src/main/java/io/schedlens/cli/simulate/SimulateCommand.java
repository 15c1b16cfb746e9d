package io.schedlens.cli.simulate;

import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ReportWriter;
import io.schedlens.runs.ScenarioSetting;
import io.schedlens.runs.simulate.SimulateRun;
import io.schedlens.simulator.scenario.Scenario;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
              "Directory to record the simulated cluster in, as from a real one, for ./schedlens replay: pods.json and events.json (kubectl watch events), dcgm.prom (a timestamped scrape every scrape interval of the scenario, 15 s in most), requests.jsonl, objects.json (the workload objects, for --objects). Empty: no recording.");

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
    String recordDir = config.getString(RECORD);
    SimulateRun run = new SimulateRun(scenario, err);
    SimulateRun.Result result = run.run(recordDir.isEmpty() ? null : Path.of(recordDir));
    out.printf(
        "simulate: %s, %d pods in %.1f s (ground truth of the simulator; the pipeline is not involved)%n%n",
        scenario.name(), result.truth().size(), result.seconds());
    out.print(ReportWriter.table(result.report()));
    out.println();
    result.report().findings().forEach(f -> out.println("  - " + f));
    String dir = config.getString(OUT);
    if (!dir.isEmpty()) {
      Path outDir = Path.of(dir);
      run.write(result, outDir);
      out.println(
          "\nsimulate: wrote "
              + outDir.toAbsolutePath()
              + "/report.md, report.json, simulator-truth.jsonl");
    }
    return 0;
  }
}
