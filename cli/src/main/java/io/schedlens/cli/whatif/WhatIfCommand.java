package io.schedlens.cli.whatif;

import io.schedlens.base.Durations;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ReportWriter;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.runs.replay.ReplayForWhatIf;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.whatif.PolicyException;
import io.schedlens.whatif.PolicyLoader;
import io.schedlens.whatif.WhatIf;
import io.schedlens.whatif.WhatIfRun;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * {@code ./schedlens whatif --from DIR --policy FILE}: what the observed runs would have been under
 * another scheduling policy. The arrivals of one observed arm (a demo's or replay's {@code
 * timelines.jsonl} and {@code workloads.jsonl}, or a recording's, replayed first as {@code
 * ./schedlens replay} replays it) run again under the policy on the simulator's scheduler and
 * controllers, reduced by the streams app's topology; the answer as the report gives it, observed
 * against predicted, with a verdict, charts and the predicted timelines (arm {@code predicted}) for
 * the pages.
 */
public final class WhatIfCommand {

  public static final String FROM = "from";
  public static final String PODS = ReplayConfig.PODS;
  public static final String EVENTS = ReplayConfig.EVENTS;
  public static final String OBJECTS = ReplayConfig.OBJECTS;
  public static final String DCGM = ReplayConfig.DCGM;
  public static final String REQUESTS = ReplayConfig.REQUESTS;
  public static final String SLO = StreamsAppConfig.SLO;

  /** Where, under --out, a recording's replay writes the observed timelines. */
  public static final String OBSERVED_DIR = WhatIfRun.OBSERVED_DIR;

  public static final String POLICY = "policy";
  public static final String ARM = "arm";
  public static final String COMPARE_ARM = "compare.arm";
  public static final String RUN_LENGTH = "run.length";
  public static final String SEEDS = "seeds";
  public static final String ALLOW_UNMODELLED = "allow.unmodelled";
  public static final String OUT = "out";
  public static final String STARVATION_PENDING = "starvation.pending";
  public static final String STARVATION_PREEMPTIONS = "starvation.preemptions";

  /** Exit status of a run that could not start: a setting, the policy or the input is wrong. */
  public static final int BAD_INPUT = 2;

  public static final ConfigDef DEF =
      PagesServer.define(
          new ConfigDef()
              .define(
                  FROM,
                  Type.STRING,
                  "",
                  Importance.HIGH,
                  "The observed run: a demo's or replay's output directory (timelines.jsonl and workloads.jsonl), a timelines.jsonl file, or a Helios job log (cluster_log.csv: its jobs as Jobs, the application of each its virtual cluster). Required unless a recording is given (--pods, --events).")
              .define(
                  PODS,
                  Type.LIST,
                  List.of(),
                  Importance.HIGH,
                  "A recording instead of --from: files of recorded Pods, as ./schedlens replay reads them. The recording is replayed first (into OUT/observed, as ./schedlens replay writes it), then its timelines are the observed run.")
              .define(
                  EVENTS,
                  Type.LIST,
                  List.of(),
                  Importance.HIGH,
                  "A recording instead of --from: files of recorded Events, as ./schedlens replay reads them.")
              .define(
                  OBJECTS,
                  Type.LIST,
                  List.of(),
                  Importance.MEDIUM,
                  "A recording: files of recorded owner objects (ReplicaSets, Jobs, JobSets, RayClusters…), as ./schedlens replay reads them, so that pods group under the workloads they ran as.")
              .define(
                  DCGM,
                  Type.LIST,
                  List.of(),
                  Importance.MEDIUM,
                  "A recording: files of recorded dcgm-exporter scrapes, as ./schedlens replay reads them.")
              .define(
                  REQUESTS,
                  Type.LIST,
                  List.of(),
                  Importance.MEDIUM,
                  "A recording: files of request logs, as ./schedlens replay reads them.")
              .define(
                  SLO,
                  Type.LIST,
                  List.of(),
                  Importance.MEDIUM,
                  "A recording: latency SLOs of its applications, NAME=MILLIS, as ./schedlens replay takes them.")
              .define(
                  POLICY,
                  Type.STRING,
                  "",
                  Importance.HIGH,
                  "The policy to try: a YAML file with PriorityClasses, which workload gets which, GPU quotas, what a request with no Ready replica counts as (docs/operators/whatif.md). Required.")
              .define(
                  ARM,
                  Type.STRING,
                  "control",
                  Importance.MEDIUM,
                  "The observed arm whose arrivals are replayed (schedlens.io/arm). When the timelines have no such arm: all of them (a cluster outside an experiment).")
              .define(
                  COMPARE_ARM,
                  Type.STRING,
                  "",
                  Importance.MEDIUM,
                  "Another observed arm shown beside the prediction (e.g. the treatment that really ran), to see how close the prediction comes. Empty: none.")
              .define(
                  RUN_LENGTH,
                  Type.STRING,
                  "",
                  Importance.MEDIUM,
                  "How long each run lasts from its first pod's creation (an experiment's run length, e.g. 45m): what is still there then is deleted, as the observed run's end deleted it. Empty: until the run's last observed pod ended.")
              .define(
                  SEEDS,
                  Type.INT,
                  1,
                  ConfigDef.Range.between(1, 100),
                  Importance.MEDIUM,
                  "How many times to predict the runs, each time with its own random seed (the policy's seed, then the next ones): the first prediction gives the tables, the files and the pages; with more, every predicted figure of the verdict also says its range over all of them, how far the simulated cluster's own chance moves it. Each prediction takes as long as the first.")
              .define(
                  ALLOW_UNMODELLED,
                  Type.BOOLEAN,
                  false,
                  Importance.MEDIUM,
                  "false: a run with pods that held GPUs under a workload the what-if cannot replay (a bare pod, an unknown kind) is refused with exit code 2, naming them: a prediction without them would hand their GPUs to the others. true: predict without them; every verdict line then says what was left out.")
              .define(
                  OUT,
                  Type.STRING,
                  "whatif-out",
                  Importance.HIGH,
                  "Directory for report.md, report.json, the charts, whatif.json and the timelines (observed and predicted) for the pages.")
              .define(
                  STARVATION_PENDING,
                  Type.STRING,
                  "10m",
                  Importance.LOW,
                  "A pod pending longer is starving (as the streams app's setting of the same name).")
              .define(
                  STARVATION_PREEMPTIONS,
                  Type.INT,
                  3,
                  ConfigDef.Range.atLeast(1),
                  Importance.LOW,
                  "A workload preempted this often without completing is starving."));

  private static final class Config extends AppConfig {
    Config(Map<String, Object> values) {
      super(DEF, values, Map.of());
    }
  }

  private WhatIfCommand() {}

  /** Results to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(DEF, args, env, false);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens whatif (--from DIR | --pods FILE --events FILE [--objects FILE]"
              + " [--dcgm FILE] [--requests FILE] [--slo NAME=MILLIS]...) --policy FILE"
              + " [--arm control] [--compare-arm treatment] [--run-length 45m]"
              + " [--allow-unmodelled true] [--out DIR] [--serve true]\n");
      out.print(CommandLineSettings.helpText(DEF, false));
      return 0;
    }
    Config config = new Config(settings.values());
    WhatIfRun.Answer answer;
    try {
      answer = new WhatIfRun(settings(config, env, err), err).run();
    } catch (WhatIfRun.BadInput e) {
      err.println("whatif: " + e.getMessage());
      return BAD_INPUT;
    }
    print(answer, out);
    PagesServer.afterRun(config, Path.of(config.getString(OUT)), err);
    return 0;
  }

  /** The command line's choices, checked, and the policy file read. */
  private static WhatIfRun.Settings settings(
      Config config, Map<String, String> env, PrintStream err) throws WhatIfRun.BadInput {
    String from = config.getString(FROM);
    String policyFile = config.getString(POLICY);
    List<String> recording = new ArrayList<>();
    for (String key : List.of(PODS, EVENTS, OBJECTS, DCGM, REQUESTS, SLO)) {
      for (String v : config.getList(key)) {
        recording.addAll(List.of("--" + CommandLineSettings.flagName(key), v));
      }
    }
    boolean recorded = !config.getList(PODS).isEmpty() || !config.getList(EVENTS).isEmpty();
    if (recorded && !from.isEmpty()) {
      throw new WhatIfRun.BadInput(
          "give either --from (timelines) or a recording (--pods, --events), not both");
    }
    if ((from.isEmpty() && !recorded) || policyFile.isEmpty()) {
      throw new WhatIfRun.BadInput(
          "--from (a demo's or replay's output directory) or a recording (--pods, --events), and"
              + " --policy (a policy YAML file, see docs/operators/whatif.md) are required");
    }
    try {
      Duration runLength =
          config.getString(RUN_LENGTH).isEmpty()
              ? null
              : Durations.parse(config.getString(RUN_LENGTH));
      return new WhatIfRun.Settings(
          from,
          recorded ? new ReplayForWhatIf(recording, env, err) : null,
          PolicyLoader.load(Path.of(policyFile)),
          runLength,
          Durations.parse(config.getString(STARVATION_PENDING)),
          config.getInt(STARVATION_PREEMPTIONS),
          config.getString(ARM),
          config.getString(COMPARE_ARM),
          config.getInt(SEEDS),
          config.getBoolean(ALLOW_UNMODELLED),
          Path.of(config.getString(OUT)));
    } catch (IllegalArgumentException | PolicyException e) {
      throw new WhatIfRun.BadInput(e.getMessage());
    }
  }

  /** The answer as the report gives it, with the verdict, what was assumed and not replayed. */
  private static void print(WhatIfRun.Answer answer, PrintStream out) {
    out.printf(
        "%nwhatif: %s under policy %s, %d runs predicted%s in %.1f s (observed: arm %s; predicted:"
            + " arm %s)%n%n",
        answer.experiment(),
        answer.policy().name(),
        answer.runs(),
        answer.seeds() == 1 ? "" : String.format(Locale.ROOT, " with %d seeds", answer.seeds()),
        answer.seconds(),
        answer.observedArm(),
        WhatIf.PREDICTED);
    out.print(ReportWriter.table(answer.report()));
    out.println();
    answer.verdict().forEach(v -> out.println("  - " + v));
    if (!answer.assumed().isEmpty()) {
      out.println("\nassumed (not in the timelines):");
      answer.assumed().forEach(a -> out.println("  - " + a));
    }
    if (!answer.skipped().isEmpty()) {
      out.println("\nnot replayed:");
      answer.skipped().forEach(s -> out.println("  - " + s));
    }
    out.printf(
        "%nwhatif: wrote %s/report.md, report.json, whatif.json, the charts, timelines.jsonl and"
            + " workloads.jsonl (observed and predicted)%n",
        answer.dir().toAbsolutePath());
  }
}
