package io.schedlens.cli.report;

import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.report.Conditions;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.Guardrails;
import io.schedlens.report.InputGaps;
import io.schedlens.report.PodFacts;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.Verdict;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.runs.ConditionsReader;
import io.schedlens.runs.DeadLetterReader;
import io.schedlens.runs.WorkloadTimelineReader;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
    List<PodTimeline> timelines =
        from.equals("kafka")
            ? fromTopic(config, Topics.withPrefix(config.getString(TOPIC_PREFIX)))
            : fromFile(from);
    List<WorkloadTimeline> workloads =
        from.equals("kafka")
            ? workloadsFromTopic(config, Topics.withPrefix(config.getString(TOPIC_PREFIX)))
            : workloadsFromFile(from);
    // The experiments' conditions: conditions.json beside the files (with the GPUs a demo or
    // replay saw), or the experiment ConfigMaps the collector wrote to Kafka.
    Conditions fileConditions = from.equals("kafka") ? null : conditionsFromFile(from);
    List<ExperimentConfig> configMaps =
        from.equals("kafka")
            ? ConditionsReader.configMaps(
                config.kafkaClientSettings(), Topics.withPrefix(config.getString(TOPIC_PREFIX)))
            : List.of();
    InputGaps gaps =
        from.equals("kafka")
            ? gapsOnTopic(config, Topics.withPrefix(config.getString(TOPIC_PREFIX)))
            : InputGaps.read(dirOf(from));
    Map<String, List<PodTimeline>> byExperiment = new TreeMap<>();
    String only = config.getString(EXPERIMENT);
    for (PodTimeline t : timelines) {
      String e = t.getExperiment() == null ? "(no experiment)" : t.getExperiment();
      if (only.isEmpty() || only.equals(e)) {
        byExperiment.computeIfAbsent(e, x -> new ArrayList<>()).add(t);
      }
    }
    if (byExperiment.isEmpty()) {
      err.println(
          "report: no timelines"
              + (only.isEmpty() ? "" : " of experiment " + only)
              + " in "
              + from
              + "; nothing written");
      return 1;
    }
    Path outDir = Path.of(config.getString(OUT)).toAbsolutePath();
    for (var e : byExperiment.entrySet()) {
      Path dir = byExperiment.size() == 1 ? outDir : outDir.resolve(safe(e.getKey()));
      List<PodTimeline> mine = e.getValue();
      long notFinal = mine.stream().filter(t -> !t.getFinal$()).count();
      long cut = mine.stream().filter(t -> t.getEndedBy() != null).count();
      ExperimentReport report =
          ExperimentReport.of(
                  e.getKey(),
                  mine.stream().map(PodFacts::of).toList(),
                  starvationMs,
                  workloads.stream()
                      .filter(
                          w ->
                              e.getKey()
                                  .equals(
                                      w.getExperiment() == null
                                          ? "(no experiment)"
                                          : w.getExperiment()))
                      .toList())
              .withConditions(
                  fileConditions != null
                      ? fileConditions
                      : Conditions.of(e.getKey(), configMaps, List.of()));
      String intro =
          gaps.markdown()
              + (gaps.isEmpty() ? "" : "\n")
              + "From "
              + mine.size()
              + " pod timelines of "
              + from
              + (notFinal > 0
                  ? " (" + notFinal + " not final: pods still running or waiting when read)."
                  : ".")
              + (cut > 0
                  ? " "
                      + cut
                      + " of them were closed where their recording ended (endedBy), their numbers"
                      + " as of their latest recorded input."
                  : "");
      List<Guardrails.Result> checked = ReportWriter.writeAll(dir, report, intro, guardrails);
      out.println();
      out.print(ReportWriter.table(report));
      out.print(ReportWriter.continuityTable(report));
      out.println();
      for (Verdict v : Verdict.of(report)) {
        out.println("  verdict: " + v.summary());
        v.answers().forEach(a -> out.println("    - " + a));
      }
      for (Guardrails.Result g : checked) {
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
              + dir
              + "/report.md, report.json, "
              + ReportWriter.PENDING_PNG
              + ", "
              + ReportWriter.WASTED_PNG);
    }
    if (!gaps.isEmpty() && !config.getBoolean(ALLOW_DEAD_LETTERS)) {
      err.println(gaps.oneLine("report"));
      return InputGaps.EXIT_CODE;
    }
    return 0;
  }

  /** The directory of {@code --from}: itself, or the directory of the file. */
  private static Path dirOf(String from) {
    Path p = Path.of(from);
    return Files.isDirectory(p) ? p : p.toAbsolutePath().getParent();
  }

  /** The dead letters on the topic, as gaps of the timelines read beside them. */
  static InputGaps gapsOnTopic(Config config, Topics topics) {
    DeadLetterReader d = DeadLetterReader.read(config.kafkaClientSettings(), topics);
    return new InputGaps(Map.of(), d.reasons(), d.pods());
  }

  static List<PodTimeline> fromFile(String from) throws IOException {
    Path p = Path.of(from);
    if (Files.isDirectory(p)
        && !Files.exists(p.resolve(TimelinesFile.NAME))
        && Files.exists(p.resolve("simulator-truth.jsonl"))) {
      throw new ConfigException(
          p
              + " is the --out of simulate: it holds the simulator's ground truth"
              + " (simulator-truth.jsonl) and the report made from it (report.md, report.json), not"
              + " pipeline timelines; report reads a demo's or replay's --out (timelines.jsonl)");
    }
    if (!Files.isReadable(Files.isDirectory(p) ? p.resolve(TimelinesFile.NAME) : p)) {
      throw new ConfigException(
          "cannot read "
              + p
              + ": give a directory with timelines.jsonl (a demo's or replay's --out) or the file");
    }
    try {
      return TimelinesFile.read(p);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  static Conditions conditionsFromFile(String from) throws IOException {
    Path p = Path.of(from);
    return Conditions.read(Files.isDirectory(p) ? p : p.toAbsolutePath().getParent());
  }

  /** The workload timelines beside the pod timelines: none when the file is not there. */
  static List<WorkloadTimeline> workloadsFromFile(String from) throws IOException {
    Path p = Path.of(from);
    Path dir = Files.isDirectory(p) ? p : p.toAbsolutePath().getParent();
    try {
      return WorkloadsFile.read(dir.resolve(WorkloadsFile.NAME));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The latest timeline of every workload on its topic, read to its current end. */
  static List<WorkloadTimeline> workloadsFromTopic(Config config, Topics topics) {
    return new ArrayList<>(
        WorkloadTimelineReader.readAll(config.kafkaClientSettings(), topics).values());
  }

  /** The latest timeline of every pod on the topic (read_committed), read to its current end. */
  static List<PodTimeline> fromTopic(Config config, Topics topics) {
    KafkaReachability.require(config.kafkaClientSettings(), Duration.ofSeconds(10));
    Map<String, PodTimeline> latest = new LinkedHashMap<>();
    try (KafkaConsumer<String, PodTimeline> consumer =
        TopicConsumers.fromBeginning(config.kafkaClientSettings(), topics.podTimelines)) {
      TopicConsumers.readToEnd(
          consumer,
          r -> {
            if (r.value() == null) {
              latest.remove(r.key());
            } else {
              latest.put(r.key(), r.value());
            }
          });
    }
    return new ArrayList<>(latest.values());
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
