package io.schedlens.cli.whatif;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.base.Durations;
import io.schedlens.cli.common.PagesServer;
import io.schedlens.cli.replay.Replay;
import io.schedlens.cli.replay.ReplayConfig;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.PodFacts;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.whatif.HeliosTrace;
import io.schedlens.whatif.ObservedRun;
import io.schedlens.whatif.Policy;
import io.schedlens.whatif.PolicyException;
import io.schedlens.whatif.PolicyLoader;
import io.schedlens.whatif.RecordedCheckpoints;
import io.schedlens.whatif.WhatIf;
import io.schedlens.whatif.WhatIfAnswer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

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
  public static final String DCGM = ReplayConfig.DCGM;
  public static final String REQUESTS = ReplayConfig.REQUESTS;
  public static final String SLO = StreamsAppConfig.SLO;

  /** Where, under --out, a recording's replay writes the observed timelines. */
  public static final String OBSERVED_DIR = "observed";

  public static final String POLICY = "policy";
  public static final String ARM = "arm";
  public static final String COMPARE_ARM = "compare.arm";
  public static final String RUN_LENGTH = "run.length";
  public static final String SEEDS = "seeds";
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
                  "The policy to try: a YAML file with PriorityClasses, which workload gets which, GPU quotas, what a request with no Ready replica counts as (docs/whatif.md). Required.")
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

  /** What a command line asks for, read and checked. */
  private record Request(
      String from, boolean recording, Policy policy, Duration runLength, Duration starvation) {}

  /**
   * The observed side: every pod timeline of the input, the arm's runs to predict, and the policy
   * with what a recording adds to it.
   *
   * @param armLabel "arm control", or "the timelines" when they carry no such arm
   * @param observedArm the arm the observed pods are shown as
   * @param policy the policy, with the checkpoint intervals a recording shows where it names none
   * @param filledCheckpoints those intervals, per application
   */
  private record Observed(
      List<PodTimeline> all,
      List<ObservedRun> runs,
      int pods,
      String armLabel,
      String observedArm,
      Policy policy,
      Map<String, RecordedCheckpoints.Interval> filledCheckpoints) {}

  /**
   * The predictions: the first (the policy's seed) whole, for the tables, files and pages; of the
   * others (successive seeds, {@code --seeds}) only what the verdict's ranges need.
   *
   * @param others per further seed, the predicted pods' facts and the unserved requests
   */
  private record Predicted(List<WhatIf.Prediction> first, List<Again> others) {}

  /** One further prediction, reduced to the predicted pods' facts and the unserved requests. */
  private record Again(List<PodFacts> facts, WhatIfAnswer.Unserved unserved) {}

  /** What a command line or its input got wrong, said as {@code whatif: <message>}. */
  private static final class BadInput extends Exception {
    BadInput(String message) {
      super(message);
    }
  }

  /** Results to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(DEF, args, env, false);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens whatif (--from DIR | --pods FILE --events FILE [--dcgm FILE]"
              + " [--requests FILE] [--slo NAME=MILLIS]...) --policy FILE [--arm control]"
              + " [--compare-arm treatment] [--run-length 45m] [--out DIR] [--serve true]\n");
      out.print(CommandLineSettings.helpText(DEF, false));
      return 0;
    }
    Config config = new Config(settings.values());
    Request request;
    Observed observed;
    Predicted predictions;
    long t0;
    try {
      request = request(config);
      observed = observed(config, env, request, err);
      err.printf(
          "whatif: %d observed runs of %s (%d pods) under policy %s%n",
          observed.runs().size(), observed.armLabel(), observed.pods(), request.policy().name());
      t0 = System.nanoTime();
      predictions = predict(config, request, observed, err);
    } catch (BadInput e) {
      err.println("whatif: " + e.getMessage());
      return BAD_INPUT;
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    answer(config, request, observed, predictions, seconds, out, err);
    PagesServer.afterRun(config, Path.of(config.getString(OUT)), err);
    return 0;
  }

  /** The command line's choices, checked, and the policy file read. */
  private static Request request(Config config) throws BadInput {
    String from = config.getString(FROM);
    String policyFile = config.getString(POLICY);
    boolean recording = !config.getList(PODS).isEmpty() || !config.getList(EVENTS).isEmpty();
    if (recording && !from.isEmpty()) {
      throw new BadInput(
          "give either --from (timelines) or a recording (--pods, --events), not both");
    }
    if ((from.isEmpty() && !recording) || policyFile.isEmpty()) {
      throw new BadInput(
          "--from (a demo's or replay's output directory) or a recording (--pods, --events), and"
              + " --policy (a policy YAML file, see docs/whatif.md) are required");
    }
    try {
      Duration runLength =
          config.getString(RUN_LENGTH).isEmpty()
              ? null
              : Durations.parse(config.getString(RUN_LENGTH));
      Duration starvation = Durations.parse(config.getString(STARVATION_PENDING));
      return new Request(
          from, recording, PolicyLoader.load(Path.of(policyFile)), runLength, starvation);
    } catch (IllegalArgumentException | PolicyException e) {
      throw new BadInput(e.getMessage());
    }
  }

  /**
   * The observed timelines: a recording replayed first (into {@code OUT/observed}), or the file or
   * directory {@code --from} names; the runs of the chosen arm.
   */
  private static Observed observed(
      Config config, Map<String, String> env, Request request, PrintStream err) throws Exception {
    String from = request.from();
    Policy policy = request.policy();
    Map<String, RecordedCheckpoints.Interval> filledCheckpoints = new TreeMap<>();
    if (request.recording()) {
      Path observed = Path.of(config.getString(OUT), OBSERVED_DIR);
      Replay.Result replayed;
      List<PodObservation> recordedPods = new ArrayList<>();
      try {
        replayed = replay(config, env, observed, recordedPods, err);
      } catch (ConfigException | IllegalArgumentException e) {
        throw new BadInput("the recording: " + e.getMessage());
      }
      if (replayed.timelines().isEmpty()) {
        throw new BadInput("the recording holds no pod to replay (see " + observed + ")");
      }
      if (!replayed.gaps().isEmpty()) {
        err.printf(
            "whatif: the observed timelines rest on incomplete inputs (%s); %s says which and"
                + " what to do; the prediction uses what could be read%n",
            replayed.gaps().describe(), observed.resolve("report.md"));
      }
      from = observed.toString();
      Map<String, RecordedCheckpoints.Interval> recorded = checkpoints(recordedPods, replayed, err);
      for (Map.Entry<String, RecordedCheckpoints.Interval> e : recorded.entrySet()) {
        if (policy.rule(e.getKey()).checkpointEvery() == null) {
          filledCheckpoints.put(e.getKey(), e.getValue());
        }
      }
      policy = RecordedCheckpoints.fill(policy, recorded);
    }
    Path input = Path.of(from);
    Path timelinesFile = Files.isDirectory(input) ? input.resolve(TimelinesFile.NAME) : input;
    if (!Files.isRegularFile(timelinesFile)) {
      throw new BadInput(
          timelinesFile
              + " not found; give --from the output directory of ./schedlens demo or replay");
    }
    List<PodTimeline> all;
    List<WorkloadTimeline> workloads;
    if (timelinesFile.getFileName().toString().endsWith(".csv")) {
      // a Helios job log: Jobs only, the whole file (cut a window out of it first)
      try (Reader in = Files.newBufferedReader(timelinesFile)) {
        HeliosTrace.Read trace = HeliosTrace.read(in, timelinesFile.toString(), null, null);
        all = trace.pods();
        err.printf(
            "whatif: %s: %,d jobs that ran on GPUs as %,d pods; left out: %s%n",
            timelinesFile, trace.jobs(), all.size(), trace.skipped());
      } catch (IllegalArgumentException e) {
        throw new BadInput(e.getMessage());
      }
      workloads = List.of();
    } else {
      all = TimelinesFile.read(timelinesFile);
      Path workloadsFile = timelinesFile.resolveSibling(WorkloadsFile.NAME);
      workloads =
          Files.isRegularFile(workloadsFile) ? WorkloadsFile.read(workloadsFile) : List.of();
      if (workloads.isEmpty()) {
        err.println(
            "whatif: no "
                + WorkloadsFile.NAME
                + " beside "
                + timelinesFile
                + ": the desired replicas of Deployments and StatefulSets are inferred from their"
                + " pods");
      }
    }
    String arm = config.getString(ARM);
    Set<String> arms = new LinkedHashSet<>();
    all.forEach(t -> arms.add(t.getArm() == null ? "" : t.getArm()));
    List<PodTimeline> chosen =
        arms.contains(arm) ? all.stream().filter(t -> arm.equals(t.getArm())).toList() : all;
    if (chosen.isEmpty()) {
      throw new BadInput(timelinesFile + " has no pod timeline");
    }
    return new Observed(
        all,
        ObservedRun.of(chosen, workloads),
        chosen.size(),
        arms.contains(arm) ? "arm " + arm : "the timelines",
        arms.contains(arm) ? arm : "observed",
        policy,
        filledCheckpoints);
  }

  /**
   * Every observed run under the policy, a progress line each; with {@code --seeds N}, all of them
   * again under the next N - 1 seeds, a line per seed.
   */
  private static Predicted predict(
      Config config, Request request, Observed observed, PrintStream err) throws Exception {
    TimelineSettings timeline =
        TimelineSettings.defaults()
            .withStarvation(request.starvation(), config.getInt(STARVATION_PREEMPTIONS));
    Path state = Path.of(config.getString(OUT), ".state");
    int seeds = config.getInt(SEEDS);
    Policy policy = observed.policy();
    List<Again> others = new ArrayList<>();
    try {
      List<WhatIf.Prediction> first =
          new WhatIf(policy, timeline, request.runLength())
              .workDir(state)
              .predict(observed.runs(), progress(err, "", true));
      for (int k = 1; k < seeds; k++) {
        long t0 = System.nanoTime();
        List<WhatIf.Prediction> again =
            new WhatIf(policy.withSeed(policy.seed() + k), timeline, request.runLength())
                .workDir(state)
                .predict(
                    observed.runs(),
                    progress(err, String.format(Locale.ROOT, "seed %d/%d, ", k + 1, seeds), false));
        err.printf(
            "whatif: [seed %d/%d] %d runs predicted again with seed %d: %d pods (%d preempted),"
                + " %.1f s%n",
            k + 1,
            seeds,
            again.size(),
            policy.seed() + k,
            again.stream().mapToInt(p -> p.timelines().size()).sum(),
            again.stream()
                .flatMap(p -> p.timelines().values().stream())
                .filter(t -> t.getPreemptedAt() != null)
                .count(),
            (System.nanoTime() - t0) / 1e9);
        others.add(
            new Again(WhatIf.facts(List.of(), again, "observed"), WhatIfAnswer.unserved(again)));
      }
      return new Predicted(first, others);
    } catch (PolicyException e) {
      throw new BadInput(e.getMessage());
    } finally {
      Files.deleteIfExists(state);
    }
  }

  /**
   * The answer: observed (and the compared arm) against predicted as the report gives it, with the
   * verdict, what was assumed and what was not replayed; printed to {@code out} and written to the
   * output directory.
   */
  private static void answer(
      Config config,
      Request request,
      Observed observed,
      Predicted predicted,
      double seconds,
      PrintStream out,
      PrintStream err)
      throws IOException {
    Policy policy = observed.policy();
    List<ObservedRun> runs = observed.runs();
    List<WhatIf.Prediction> predictions = predicted.first();
    String compare = config.getString(COMPARE_ARM);
    List<PodTimeline> compared =
        compare.isEmpty()
            ? List.of()
            : observed.all().stream().filter(t -> compare.equals(t.getArm())).toList();
    if (!compare.isEmpty() && compared.isEmpty()) {
      err.println("whatif: no pod of arm " + compare + " to compare with (--compare-arm)");
    }
    String experiment = runs.get(0).experiment() == null ? "whatif" : runs.get(0).experiment();
    List<PodFacts> observedFacts = new ArrayList<>(WhatIf.facts(runs, List.of(), "observed"));
    compared.forEach(t -> observedFacts.add(WhatIf.relabel(PodFacts.of(t), compare)));
    List<ExperimentReport> reports = new ArrayList<>();
    List<WhatIfAnswer.Unserved> unservedBySeed = new ArrayList<>();
    List<List<PodFacts>> predictedFacts = new ArrayList<>();
    predictedFacts.add(WhatIf.facts(List.of(), predictions, "observed"));
    unservedBySeed.add(WhatIfAnswer.unserved(predictions));
    for (Again again : predicted.others()) {
      predictedFacts.add(again.facts());
      unservedBySeed.add(again.unserved());
    }
    for (List<PodFacts> p : predictedFacts) {
      List<PodFacts> facts = new ArrayList<>(observedFacts);
      facts.addAll(p);
      reports.add(ExperimentReport.of(experiment, facts, request.starvation().toMillis()));
    }
    ExperimentReport report = reports.get(0);
    WhatIfAnswer.Unserved unserved = unservedBySeed.get(0);
    List<String> verdict = WhatIfAnswer.verdict(reports, unservedBySeed, policy, "observed");
    Set<String> assumptions = new LinkedHashSet<>();
    observed
        .filledCheckpoints()
        .forEach(
            (application, interval) ->
                assumptions.add(
                    String.format(
                        Locale.ROOT,
                        "%s checkpoints every %s: the median of %d gaps between its pods' recorded"
                            + " checkpoints, where the policy says none",
                        application,
                        Durations.format(interval.median()),
                        interval.gaps())));
    Set<String> skipped = new LinkedHashSet<>();
    predictions.forEach(
        p -> {
          assumptions.addAll(p.scenario().assumptions());
          skipped.addAll(p.scenario().skipped());
        });
    out.printf(
        "%nwhatif: %s under policy %s, %d runs predicted%s in %.1f s (observed: arm %s; predicted:"
            + " arm %s)%n%n",
        experiment,
        policy.name(),
        runs.size(),
        reports.size() == 1 ? "" : String.format(Locale.ROOT, " with %d seeds", reports.size()),
        seconds,
        observed.observedArm(),
        WhatIf.PREDICTED);
    out.print(ReportWriter.table(report));
    out.println();
    verdict.forEach(v -> out.println("  - " + v));
    if (!assumptions.isEmpty()) {
      out.println("\nassumed (not in the timelines):");
      assumptions.forEach(a -> out.println("  - " + a));
    }
    if (!skipped.isEmpty()) {
      out.println("\nnot replayed:");
      skipped.forEach(s -> out.println("  - " + s));
    }
    Path dir = Path.of(config.getString(OUT));
    write(
        dir,
        report,
        policy,
        verdict,
        assumptions,
        skipped,
        runs,
        predictions,
        compared,
        unserved,
        reports.size());
    out.printf(
        "%nwhatif: wrote %s/report.md, report.json, whatif.json, the charts, timelines.jsonl and"
            + " workloads.jsonl (observed and predicted)%n",
        dir.toAbsolutePath());
  }

  /** Wall time between two lines about one run's progress (a long run's): 5 s. */
  private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;

  /**
   * A line per run predicted (when {@code perRun}); within a run that takes long (a week), a line
   * at each tenth of its virtual time, at most one per 5 s.
   *
   * @param prefix before "run i/n" in every line (which seed)
   */
  private static WhatIf.Progress progress(PrintStream err, String prefix, boolean perRun) {
    long[] last = {System.nanoTime()};
    return new WhatIf.Progress() {
      @Override
      public void runPredicted(int i, int n, ObservedRun run, WhatIf.Prediction p) {
        if (!perRun) {
          return;
        }
        err.printf(
            "whatif: [%srun %d/%d] %s: %d pods observed, %d predicted (%d preempted), %,d inputs"
                + " through the topology%n",
            prefix,
            i,
            n,
            run.label(),
            run.pods().size(),
            p.timelines().size(),
            p.timelines().values().stream().filter(t -> t.getPreemptedAt() != null).count(),
            p.inputs());
        last[0] = System.nanoTime();
      }

      @Override
      public void simulated(
          int i, int n, ObservedRun run, Duration done, Duration of, long inputs) {
        if (System.nanoTime() - last[0] >= PROGRESS_EVERY_NANOS) {
          err.printf(
              "whatif: [%srun %d/%d] %s: %s of %s simulated (%d %%), %,d inputs through the"
                  + " topology so far%n",
              prefix,
              i,
              n,
              run.label(),
              Durations.format(done.truncatedTo(ChronoUnit.MINUTES)),
              Durations.format(of.truncatedTo(ChronoUnit.MINUTES)),
              done.toMillis() * 100 / Math.max(1, of.toMillis()),
              inputs);
          last[0] = System.nanoTime();
        }
      }
    };
  }

  /**
   * The recording replayed as {@code ./schedlens replay} replays it (the collector's parsing, the
   * streams app on an embedded broker), its outputs in {@code observed}; its report to the progress
   * stream, so that the standard output holds the what-if's answer alone. The recorded Pods that
   * carry a checkpoint go to {@code pods} as they are read (no timeline keeps their checkpoints).
   */
  private static Replay.Result replay(
      Config config,
      Map<String, String> env,
      Path observed,
      List<PodObservation> pods,
      PrintStream err)
      throws Exception {
    List<String> args = new ArrayList<>();
    for (String key : List.of(PODS, EVENTS, DCGM, REQUESTS, SLO)) {
      for (String v : config.getList(key)) {
        args.addAll(List.of("--" + CommandLineSettings.flagName(key), v));
      }
    }
    args.addAll(
        List.of("--" + CommandLineSettings.flagName(ReplayConfig.OUT), observed.toString()));
    ReplayConfig replay =
        ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, env, false));
    Topic<String, PodObservation> podsTopic = Topics.defaults().pods;
    String checkpoint = TimelineSettings.defaults().checkpointAnnotation();
    err.printf("whatif: replaying the recording into %s first (./schedlens replay)%n", observed);
    return new Replay(replay, err, err)
        .onInputsRead(
            inputs -> {
              for (Outgoing o : inputs) {
                if (o.topic().equals(podsTopic.name()) && o.value() != null) {
                  PodObservation p =
                      podsTopic.valueSerde().deserializer().deserialize(o.topic(), o.value());
                  if (p.getAnnotations().containsKey(checkpoint)) {
                    pods.add(p); // only what RecordedCheckpoints reads is kept
                  }
                }
              }
            })
        .run();
  }

  /**
   * The checkpoint interval each application's recorded Pods show ({@link RecordedCheckpoints}),
   * each said on {@code err}.
   */
  private static Map<String, RecordedCheckpoints.Interval> checkpoints(
      List<PodObservation> pods, Replay.Result replayed, PrintStream err) {
    Map<String, RecordedCheckpoints.Interval> recorded =
        RecordedCheckpoints.of(
            pods,
            replayed.timelines().values(),
            TimelineSettings.defaults().checkpointAnnotation());
    recorded.forEach(
        (application, interval) ->
            err.printf(
                "whatif: the recording shows %s checkpointing every %s (median of %d gaps)%n",
                application, Durations.format(interval.median()), interval.gaps()));
    return recorded;
  }

  private static void write(
      Path dir,
      ExperimentReport report,
      Policy policy,
      List<String> verdict,
      Set<String> assumptions,
      Set<String> skipped,
      List<ObservedRun> runs,
      List<WhatIf.Prediction> predictions,
      List<PodTimeline> compared,
      WhatIfAnswer.Unserved unserved,
      int seeds)
      throws IOException {
    Files.createDirectories(dir);
    StringBuilder intro = new StringBuilder();
    intro
        .append("What-if of policy `")
        .append(policy.name())
        .append("` on the observed runs (`./schedlens whatif`): arm `observed` is what happened,")
        .append(" arm `predicted` what the simulator's scheduler and controllers, fed the same")
        .append(
            " arrivals and reduced by the pipeline's own topology, predict under the policy.\n\n");
    verdict.forEach(v -> intro.append("- ").append(v).append('\n'));
    if (!assumptions.isEmpty()) {
      intro.append("\nAssumed (not in the timelines):\n\n");
      assumptions.forEach(a -> intro.append("- ").append(a).append('\n'));
    }
    if (!skipped.isEmpty()) {
      intro.append("\nNot replayed:\n\n");
      skipped.forEach(s -> intro.append("- ").append(s).append('\n'));
    }
    ReportWriter.writeAll(dir, report, intro.toString());
    List<PodTimeline> timelines = new ArrayList<>();
    runs.forEach(r -> timelines.addAll(r.pods()));
    timelines.addAll(compared);
    List<WorkloadTimeline> workloads = new ArrayList<>();
    Set<WorkloadTimeline> seen = new LinkedHashSet<>();
    runs.forEach(r -> seen.addAll(r.workloads()));
    workloads.addAll(seen);
    for (WhatIf.Prediction p : predictions) {
      timelines.addAll(p.timelines().values());
      workloads.addAll(p.workloads());
    }
    TimelinesFile.write(dir, timelines);
    WorkloadsFile.write(dir, workloads);
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    root.put("policy", policy.name());
    root.put("seed", policy.seed());
    root.put("seeds", seeds);
    root.put("unservedRequests", policy.unserved().name().toLowerCase(Locale.ROOT));
    verdict.forEach(root.putArray("verdict")::add);
    ArrayNode a = root.putArray("assumptions");
    assumptions.forEach(a::add);
    ArrayNode s = root.putArray("notReplayed");
    skipped.forEach(s::add);
    root.set("unservedObserved", json.valueToTree(unserved.observed()));
    root.set("unservedPredicted", json.valueToTree(unserved.predicted()));
    ArrayNode rs = root.putArray("runs");
    for (WhatIf.Prediction p : predictions) {
      ObjectNode r = rs.addObject();
      r.put("arm", p.observed().arm());
      r.put("repeat", p.observed().repeat());
      r.put("start", p.observed().start());
      r.put("end", p.observed().end());
      r.put("observedPods", p.observed().pods().size());
      r.put("predictedPods", p.timelines().size());
      r.put("inputs", p.inputs());
    }
    Files.writeString(
        dir.resolve("whatif.json"),
        json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
  }
}
