package io.schedlens.whatif;

import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.base.Durations;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.PodFacts;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.timeline.TimelineSettings;
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
import org.apache.kafka.common.config.ConfigException;

/**
 * A what-if run ({@code ./schedlens whatif}): the observed timelines read (or a recording replayed
 * first), the chosen arm's runs predicted under the policy once per seed, and the answer, observed
 * against predicted, computed and written to the output directory ({@link WhatIfFiles}). Progress
 * goes to a stream as it goes; the answer is returned for the caller to print.
 */
public final class WhatIfRun {

  /** Where, under the output directory, a recording's replay writes the observed timelines. */
  public static final String OBSERVED_DIR = "observed";

  /**
   * What to run, read and checked by the caller.
   *
   * @param from a demo's or replay's output directory, a timelines file or a Helios job log; unused
   *     when {@code recording} is set
   * @param recording replays a recording into {@code out/observed} first; null: read {@code from}
   * @param runLength each run's length from its first pod's creation; null: until its last pod
   * @param arm the observed arm to predict (all pods when the timelines have no such arm)
   * @param compareArm another observed arm to show beside the prediction; empty: none
   * @param seeds how many predictions, each under the next seed
   * @param allowUnmodelled predict without the GPU pods of workloads no scenario can replay (else
   *     such a run is refused)
   */
  public record Settings(
      String from,
      RecordingReplay recording,
      Policy policy,
      Duration runLength,
      Duration starvation,
      int starvationPreemptions,
      String arm,
      String compareArm,
      int seeds,
      boolean allowUnmodelled,
      Path out) {}

  /** What the command line or its input got wrong. */
  public static final class BadInput extends Exception {
    public BadInput(String message) {
      super(message);
    }
  }

  /**
   * The answer, as the report gives it: observed (and the compared arm) against predicted.
   *
   * @param observedArm the arm the observed pods are shown as
   * @param seeds how many predictions the verdict's ranges rest on
   * @param seconds how long the predictions took
   * @param assumed what the prediction assumed that the timelines do not say
   * @param skipped what was not replayed
   */
  public record Answer(
      String experiment,
      Policy policy,
      int runs,
      int seeds,
      double seconds,
      String observedArm,
      ExperimentReport report,
      List<String> verdict,
      Set<String> assumed,
      Set<String> skipped,
      Path dir) {}

  /**
   * The observed side: every pod timeline of the input, the arm's runs to predict, and the policy
   * with what a recording adds to it.
   *
   * @param armLabel "arm control", or "the timelines" when they carry no such arm
   * @param filledCheckpoints the checkpoint intervals a recording shows where the policy names none
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
   * One further prediction, reduced to the predicted pods' facts, the unserved requests and the
   * gangs' wait.
   */
  private record Again(
      List<PodFacts> facts, WhatIfAnswer.Unserved unserved, WhatIfAnswer.GangWait gangWait) {}

  /** Wall time between two lines about one run's progress (a long run's): 5 s. */
  private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;

  private final Settings settings;
  private final PrintStream progress;

  /**
   * @param progress what the run is doing, as it goes (the launcher: standard error)
   */
  public WhatIfRun(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Reads, predicts, answers and writes the answer's files; returns the answer. */
  public Answer run() throws Exception {
    Observed observed = observed();
    List<String> unmodelled = ObservedArrivals.unmodelledGpuPods(observed.runs());
    if (!unmodelled.isEmpty() && !settings.allowUnmodelled()) {
      throw new BadInput(
          unmodelled.size()
              + " pod(s) held GPUs under workloads the what-if cannot replay: "
              + String.join(", ", unmodelled.subList(0, Math.min(10, unmodelled.size())))
              + (unmodelled.size() > 10 ? ", …" : "")
              + ". A prediction without them would give their GPUs to the others. Record their"
              + " owners too (--objects) if they run under a controller, or give"
              + " --allow-unmodelled true to predict without them");
    }
    progress.printf(
        "whatif: %d observed runs of %s (%d pods) under policy %s%n",
        observed.runs().size(), observed.armLabel(), observed.pods(), settings.policy().name());
    long t0 = System.nanoTime();
    List<WhatIf.Prediction> first;
    List<Again> others = new ArrayList<>();
    Path state = settings.out().resolve(".state");
    try {
      first = predict(observed, state, others);
    } catch (PolicyException e) {
      throw new BadInput(e.getMessage());
    } finally {
      Files.deleteIfExists(state);
    }
    return answer(observed, first, others, (System.nanoTime() - t0) / 1e9);
  }

  /**
   * The observed timelines: a recording replayed first (into {@code out/observed}), or the file or
   * directory {@code from} names; the runs of the chosen arm.
   */
  private Observed observed() throws Exception {
    String from = settings.from();
    Policy policy = settings.policy();
    Map<String, RecordedCheckpoints.Interval> filled = new TreeMap<>();
    if (settings.recording() != null) {
      Path dir = settings.out().resolve(OBSERVED_DIR);
      Map<String, RecordedCheckpoints.Interval> recorded = replayed(dir);
      recorded.forEach(
          (application, interval) -> {
            if (settings.policy().rule(application).checkpointEvery() == null) {
              filled.put(application, interval);
            }
          });
      policy = RecordedCheckpoints.fill(policy, recorded);
      from = dir.toString();
    }
    Path input = Path.of(from);
    Path timelinesFile = Files.isDirectory(input) ? input.resolve(TimelinesFile.NAME) : input;
    if (!Files.isRegularFile(timelinesFile)) {
      throw new BadInput(
          timelinesFile
              + " not found; give --from the output directory of ./schedlens demo or replay");
    }
    List<PodTimeline> all = new ArrayList<>();
    List<WorkloadTimeline> workloads = read(timelinesFile, all);
    String arm = settings.arm();
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
        filled);
  }

  /**
   * The recording replayed into {@code dir}; the checkpoint interval each application's recorded
   * Pods show ({@link RecordedCheckpoints}), each said.
   */
  private Map<String, RecordedCheckpoints.Interval> replayed(Path dir) throws Exception {
    List<PodObservation> checkpointed = new ArrayList<>();
    progress.printf("whatif: replaying the recording into %s first (./schedlens replay)%n", dir);
    RecordingReplay.Replayed replayed;
    try {
      replayed = settings.recording().replay(dir, checkpointed);
    } catch (ConfigException | IllegalArgumentException e) {
      throw new BadInput("the recording: " + e.getMessage());
    }
    if (replayed.timelines().isEmpty()) {
      throw new BadInput("the recording holds no pod to replay (see " + dir + ")");
    }
    if (!replayed.gaps().isEmpty()) {
      progress.printf(
          "whatif: the observed timelines rest on incomplete inputs (%s); %s says which and what"
              + " to do; the prediction uses what could be read%n",
          replayed.gaps().describe(), dir.resolve("report.md"));
    }
    Map<String, RecordedCheckpoints.Interval> recorded =
        RecordedCheckpoints.of(
            checkpointed, replayed.timelines(), TimelineSettings.defaults().checkpointAnnotation());
    recorded.forEach(
        (application, interval) ->
            progress.printf(
                "whatif: the recording shows %s checkpointing every %s (median of %d gaps)%n",
                application, Durations.format(interval.median()), interval.gaps()));
    return recorded;
  }

  /**
   * The pod timelines of {@code file} into {@code pods}; returns the workload timelines beside it
   * (none for a Helios job log, whose jobs are Jobs only).
   */
  private List<WorkloadTimeline> read(Path file, List<PodTimeline> pods) throws Exception {
    if (file.getFileName().toString().endsWith(".csv")) {
      // a Helios job log: Jobs only, the whole file (cut a window out of it first)
      try (Reader in = Files.newBufferedReader(file)) {
        HeliosTrace.Read trace = HeliosTrace.read(in, file.toString(), null, null);
        pods.addAll(trace.pods());
        progress.printf(
            "whatif: %s: %,d jobs that ran on GPUs as %,d pods; left out: %s%n",
            file, trace.jobs(), pods.size(), trace.skipped());
      } catch (IllegalArgumentException e) {
        throw new BadInput(e.getMessage());
      }
      return List.of();
    }
    pods.addAll(TimelinesFile.read(file));
    Path workloadsFile = file.resolveSibling(WorkloadsFile.NAME);
    List<WorkloadTimeline> workloads =
        Files.isRegularFile(workloadsFile) ? WorkloadsFile.read(workloadsFile) : List.of();
    if (workloads.isEmpty()) {
      progress.println(
          "whatif: no "
              + WorkloadsFile.NAME
              + " beside "
              + file
              + ": the desired replicas of Deployments and StatefulSets are inferred from their"
              + " pods");
    }
    return workloads;
  }

  /**
   * Every observed run under the policy, a progress line each; with more than one seed, all of them
   * again under the next seeds, a line per seed, into {@code others}. Returns the first.
   */
  private List<WhatIf.Prediction> predict(Observed observed, Path state, List<Again> others)
      throws Exception {
    Policy policy = observed.policy();
    List<ObservedRun> runs = observed.runs();
    TimelineSettings timeline =
        TimelineSettings.defaults()
            .withStarvation(settings.starvation(), settings.starvationPreemptions());
    List<WhatIf.Prediction> first =
        new WhatIf(policy, timeline, settings.runLength())
            .workDir(state)
            .predict(runs, progress("", true));
    int seeds = settings.seeds();
    for (int k = 1; k < seeds; k++) {
      long t0 = System.nanoTime();
      List<WhatIf.Prediction> again =
          new WhatIf(policy.withSeed(policy.seed() + k), timeline, settings.runLength())
              .workDir(state)
              .predict(
                  runs, progress(String.format(Locale.ROOT, "seed %d/%d, ", k + 1, seeds), false));
      progress.printf(
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
          new Again(
              WhatIf.facts(List.of(), again, "observed"),
              WhatIfAnswer.unserved(again),
              WhatIfAnswer.gangWait(again)));
    }
    return first;
  }

  /**
   * The answer: observed (and the compared arm) against predicted as the report gives it, with the
   * verdict, what was assumed and what was not replayed; written to the output directory.
   */
  private Answer answer(
      Observed observed, List<WhatIf.Prediction> first, List<Again> others, double seconds)
      throws IOException {
    Policy policy = observed.policy();
    List<ObservedRun> runs = observed.runs();
    String compare = settings.compareArm();
    List<PodTimeline> compared =
        compare.isEmpty()
            ? List.of()
            : observed.all().stream().filter(t -> compare.equals(t.getArm())).toList();
    if (!compare.isEmpty() && compared.isEmpty()) {
      progress.println("whatif: no pod of arm " + compare + " to compare with (--compare-arm)");
    }
    String experiment = runs.get(0).experiment() == null ? "whatif" : runs.get(0).experiment();
    List<PodFacts> observedFacts = new ArrayList<>(WhatIf.facts(runs, List.of(), "observed"));
    compared.forEach(t -> observedFacts.add(WhatIf.relabel(PodFacts.of(t), compare)));
    List<Again> all = new ArrayList<>();
    all.add(
        new Again(
            WhatIf.facts(List.of(), first, "observed"),
            WhatIfAnswer.unserved(first),
            WhatIfAnswer.gangWait(first)));
    all.addAll(others);
    List<ExperimentReport> reports = new ArrayList<>();
    for (Again a : all) {
      List<PodFacts> facts = new ArrayList<>(observedFacts);
      facts.addAll(a.facts());
      reports.add(ExperimentReport.of(experiment, facts, settings.starvation().toMillis()));
    }
    List<WhatIfAnswer.Unserved> unserved = all.stream().map(Again::unserved).toList();
    List<String> verdict =
        leftOut(
            WhatIfAnswer.verdict(
                reports, unserved, all.stream().map(Again::gangWait).toList(), policy, "observed"),
            ObservedArrivals.unmodelledGpuPods(runs));
    Set<String> assumed = new LinkedHashSet<>();
    observed
        .filledCheckpoints()
        .forEach(
            (application, interval) ->
                assumed.add(
                    String.format(
                        Locale.ROOT,
                        "%s checkpoints every %s: the median of %d gaps between its pods' recorded"
                            + " checkpoints, where the policy says none",
                        application,
                        Durations.format(interval.median()),
                        interval.gaps())));
    Set<String> skipped = new LinkedHashSet<>();
    first.forEach(
        p -> {
          assumed.addAll(p.scenario().assumptions());
          skipped.addAll(p.scenario().skipped());
        });
    Answer answer =
        new Answer(
            experiment,
            policy,
            runs.size(),
            reports.size(),
            seconds,
            observed.observedArm(),
            reports.get(0),
            verdict,
            assumed,
            skipped,
            settings.out());
    WhatIfFiles.write(answer, runs, first, compared, unserved.get(0));
    return answer;
  }

  /** Each verdict line with what it leaves out: the GPU pods no scenario could replay. */
  private static List<String> leftOut(List<String> verdict, List<String> unmodelled) {
    if (unmodelled.isEmpty()) {
      return verdict;
    }
    String note = " (without " + unmodelled.size() + " unmodelled GPU pod(s), see Not replayed)";
    return verdict.stream().map(v -> v + note).toList();
  }

  /**
   * A line per run predicted (when {@code perRun}); within a run that takes long (a week), a line
   * at each tenth of its virtual time, at most one per 5 s.
   *
   * @param prefix before "run i/n" in every line (which seed)
   */
  private WhatIf.Progress progress(String prefix, boolean perRun) {
    PrintStream err = progress;
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
}
