package io.schedlens.cli.report;

import io.schedlens.avro.PodTimeline;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReports;
import io.schedlens.report.Guardrails;
import io.schedlens.report.InputGaps;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.Verdict;
import io.schedlens.runs.ReportInputs;
import io.schedlens.schemas.Topics;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code ./schedlens report --from DIR|kafka [--out DIR]}: the experiment report from timelines
 * already computed, a demo's or replay's {@code timelines.jsonl} or the {@code
 * schedlens.pod-timelines} topic. Groups by experiment, arm, repeat and workload (with its priority
 * class per arm); per group the demo's numbers, over repeats their mean and range; a verdict per
 * arm; two charts as PNG next to report.md.
 */
public final class ReportCommand {

  public static final String FROM = "from";
  public static final String OUT = "out";
  public static final String EXPERIMENT = "experiment";
  public static final String STARVATION_PENDING = "starvation.pending";
  public static final String TOPIC_PREFIX = "topic.prefix";
  public static final String GUARDRAILS = "guardrails";
  public static final String ALLOW_DEAD_LETTERS = "allow.dead.letters";

  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              FROM,
              Type.STRING,
              "",
              Importance.HIGH,
              "Where the timelines are: a directory with timelines.jsonl (or the file itself), or 'kafka' for the pod-timelines topic (KAFKA_BOOTSTRAP_SERVERS and other KAFKA_* settings).")
          .define(
              OUT,
              Type.STRING,
              "report-out",
              Importance.HIGH,
              "Directory for report.md, report.json and the charts (one subdirectory per experiment when there are several).")
          .define(
              EXPERIMENT,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "Only this experiment (the schedlens.io/experiment label). Empty: every experiment found.")
          .define(
              GUARDRAILS,
              Type.LIST,
              Guardrails.DEFAULT,
              Importance.MEDIUM,
              "Rollback conditions, each PASS or FAIL per arm: slo-breach-ratio<=control, no-starving, interruption<=control, batch-pending-p95<=DURATION, wasted-gpu-hours<=NUMBER.")
          .define(
              ALLOW_DEAD_LETTERS,
              Type.BOOLEAN,
              false,
              Importance.MEDIUM,
              "false: when the timelines rest on incomplete inputs (a replay's unusable input or dead letters in its replay-summary.json; with --from kafka, the dead-letter topic), the report says so at its top and the command exits with code 4. true: partial results are acceptable, exit 0.")
          .define(
              STARVATION_PENDING,
              Type.STRING,
              "10m",
              Importance.LOW,
              "The starvation threshold the timelines were computed with (for the wording).")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              Topics.DEFAULT_PREFIX,
              Importance.LOW,
              "Prefix of the topic names, as the streams app's.");

  private static final class Config extends AppConfig {
    Config(Map<String, Object> values, Map<String, Object> kafka) {
      super(DEF, values, kafka);
    }
  }

  private ReportCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out)
      throws Exception {
    return run(args, env, out, out);
  }

  /** The report to {@code out}, what went wrong to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(DEF, args, env);
    if (settings.help()) {
      out.println("usage: ./schedlens report --from DIR|kafka [--out DIR] [--experiment NAME]\n");
      out.print(CommandLineSettings.helpText(DEF));
      return 0;
    }
    Config config = new Config(settings.values(), settings.kafka());
    String from = config.getString(FROM);
    if (from.isEmpty()) {
      throw new ConfigException("give --from DIR (with timelines.jsonl) or --from kafka");
    }
    long starvationMs = config.getDuration(STARVATION_PENDING).toMillis();
    List<String> guardrails = config.getList(GUARDRAILS);
    try {
      Guardrails.validate(guardrails);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    ReportInputs inputs =
        from.equals("kafka")
            ? ReportInputs.fromKafka(
                config.kafkaClientSettings(), Topics.withPrefix(config.getString(TOPIC_PREFIX)))
            : ReportInputs.fromFiles(from);
    String only = config.getString(EXPERIMENT);
    Map<String, List<PodTimeline>> byExperiment =
        ExperimentReports.byExperiment(inputs.timelines(), only);
    if (byExperiment.isEmpty()) {
      err.println(
          "report: no timelines"
              + (only.isEmpty() ? "" : " of experiment " + only)
              + " in "
              + from
              + "; nothing written");
      return 1;
    }
    ExperimentReports.Request request =
        new ExperimentReports.Request(
            from, only, starvationMs, guardrails, Path.of(config.getString(OUT)).toAbsolutePath());
    for (ExperimentReports.Written w :
        ExperimentReports.write(
            request, byExperiment, inputs.workloads(), inputs::conditions, inputs.gaps())) {
      print(w, out);
    }
    if (!inputs.gaps().isEmpty() && !config.getBoolean(ALLOW_DEAD_LETTERS)) {
      err.println(inputs.gaps().oneLine("report"));
      return InputGaps.EXIT_CODE;
    }
    return 0;
  }

  /** One experiment's report: its tables, verdicts and guardrails, and where it was written. */
  private static void print(ExperimentReports.Written w, PrintStream out) {
    out.println();
    out.print(ReportWriter.table(w.report()));
    out.print(ReportWriter.continuityTable(w.report()));
    out.println();
    for (Verdict v : Verdict.of(w.report())) {
      out.println("  verdict: " + v.summary());
      v.answers().forEach(a -> out.println("    - " + a));
    }
    for (Guardrails.Result g : w.guardrails()) {
      out.println(
          "  guardrail "
              + (g.pass() ? "PASS" : "FAIL")
              + " "
              + g.arm()
              + " "
              + g.rule()
              + ": "
              + g.detail());
    }
    out.println(
        "\nreport: wrote "
            + w.dir()
            + "/report.md, report.json, "
            + ReportWriter.PENDING_PNG
            + ", "
            + ReportWriter.WASTED_PNG);
  }
}
