package io.schedlens.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.cli.GroundTruth;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Same input, same numbers. A recorded scenario is replayed again and again through the collector's
 * parsing, a real broker and the streams app, each time with what differs between deployments and
 * between runs varied at random: partitions (1, 3, 6), stream threads, commit interval, the slice
 * of event time between two progress marks, the order of the records within a slice (across topics
 * and partitions, as collectors and shippers may deliver them), and a thread that keeps a core busy
 * beside the app. Every replay must give the same pod timelines, workload timelines, preemptions
 * and dead letters as the first ({@code updatedAt} aside), and the first must match the simulator's
 * ground truth.
 *
 * <p>{@code mvn verify} runs it scaled down: the dense scenario and day08, two replays each. The
 * full suite (README, "Determinism"):
 *
 * <pre>
 * mvn -B -q install -DskipTests
 * mvn -B -pl cli verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=DeterminismIT \
 *     -Ddeterminism.runs=10 -Ddeterminism.scenarios=day08,day08-disruptions,pool,dense
 * </pre>
 *
 * {@code -Ddeterminism.seed=N} repeats the settings of an earlier run (each run prints its seed).
 */
class DeterminismIT {

  static final int RUNS = Integer.getInteger("determinism.runs", 2);
  static final List<String> SCENARIOS =
      List.of(System.getProperty("determinism.scenarios", "dense,day08").split(","));
  static final long SEED = Long.getLong("determinism.seed", System.nanoTime());

  @TempDir Path dir;

  /** What one replay said, as text to compare: updatedAt (the latest input's time) left out. */
  record Outputs(
      Map<String, String> pods,
      Map<String, String> workloads,
      Map<String, String> preemptions,
      List<String> deadLetters) {

    static Outputs of(Replay.Result r) {
      Map<String, String> pods = new TreeMap<>();
      r.timelines()
          .forEach(
              (k, t) -> pods.put(k, PodTimeline.newBuilder(t).setUpdatedAt(0).build().toString()));
      Map<String, String> workloads = new TreeMap<>();
      r.workloads()
          .forEach(
              (k, w) ->
                  workloads.put(
                      k, WorkloadTimeline.newBuilder(w).setUpdatedAt(0).build().toString()));
      Map<String, String> preemptions = new TreeMap<>();
      r.preemptions().forEach((k, p) -> preemptions.put(k, String.valueOf(p)));
      return new Outputs(pods, workloads, preemptions, r.deadLetterKeys());
    }

    /** The keys whose values differ, each with both values, for the failure message. */
    static List<String> differences(Map<String, String> a, Map<String, String> b) {
      Set<String> keys = new TreeSet<>(a.keySet());
      keys.addAll(b.keySet());
      List<String> out = new ArrayList<>();
      for (String k : keys) {
        if (!String.valueOf(a.get(k)).equals(String.valueOf(b.get(k)))) {
          out.add(k + "\n    first: " + a.get(k) + "\n    this:  " + b.get(k));
        }
      }
      return out;
    }
  }

  /** The settings one replay varies. */
  record Settings(
      int partitions, int threads, String commit, String slice, long shuffle, boolean hog) {

    static Settings draw(SplittableRandom r, Scenario s) {
      // Slices of a quarter, one or four grace periods (2 min), but not so small that a long
      // recording takes hundreds of slices (each waits for the app to catch up).
      long span = Simulator.span(s);
      List<String> slices = new ArrayList<>();
      for (String slice : List.of("30s", "2m", "8m")) {
        long ms = io.schedlens.base.Durations.parse(slice).toMillis();
        if (span / ms <= 200) {
          slices.add(slice);
        }
      }
      if (slices.isEmpty()) {
        slices.add("8m");
      }
      return new Settings(
          List.of(1, 3, 6).get(r.nextInt(3)),
          1 + r.nextInt(3),
          List.of("20ms", "100ms", "1s").get(r.nextInt(3)),
          slices.get(r.nextInt(slices.size())),
          1 + r.nextLong(Long.MAX_VALUE - 1),
          r.nextBoolean());
    }

    List<String> args() {
      return List.of(
          "--partitions", Integer.toString(partitions),
          "--num-stream-threads", Integer.toString(threads),
          "--commit-interval", commit,
          "--slice", slice,
          "--shuffle-seed", Long.toString(shuffle));
    }
  }

  @TestFactory
  Stream<DynamicTest> shouldGiveTheSameNumbersWhateverTheTiming() {
    System.out.printf(
        "determinism: scenarios %s, %d replays each, seed %d (-Ddeterminism.seed=%d repeats)%n",
        SCENARIOS, RUNS, SEED, SEED);
    return SCENARIOS.stream()
        .map(name -> DynamicTest.dynamicTest(name, () -> replayAgainAndAgain(name.trim())));
  }

  void replayAgainAndAgain(String name) throws Exception {
    Scenario scenario = ScenarioLoader.load(name);
    Recordings.Recorded recorded = Recordings.record(scenario, dir.resolve("recording-" + name));
    List<PodTruth> truth = recorded.truth();
    if (name.equals("dense")) {
      assertThat(truth)
          .as("servers answering less than a second after they were created")
          .anyMatch(
              t -> t.firstOkRequestAt() != null && t.firstOkRequestAt() - t.createdAt() < 1000);
      assertThat(truth.stream().collect(Collectors.groupingBy(PodTruth::name)).values())
          .as("a StatefulSet's pod name held by several pods in turn")
          .anyMatch(uids -> uids.size() > 1);
    }
    SplittableRandom random = new SplittableRandom(SEED ^ name.hashCode());
    Outputs first = null;
    for (int run = 1; run <= RUNS; run++) {
      Settings s = Settings.draw(random, scenario);
      System.out.printf("determinism: %s replay %d of %d: %s%n", name, run, RUNS, s);
      List<String> args =
          Recordings.replayArgs(recorded.dir(), dir.resolve("out-" + name + "-" + run), scenario);
      args.addAll(List.of("--timeout", "30m"));
      args.addAll(s.args());
      Replay.Result result = withCpuHog(s.hog(), () -> replay(args));
      Outputs outputs = Outputs.of(result);
      if (first == null) {
        first = outputs;
        GroundTruth.assertMatches(truth, result.timelines());
        assertThat(result.deadLetters()).as("dead letters of a clean recording").isEmpty();
        assertThat(outputs.pods()).hasSize(truth.size());
        continue;
      }
      String which = name + " replay " + run + " (" + s + ") against replay 1";
      assertThat(Outputs.differences(first.pods(), outputs.pods()))
          .as("pod timelines that differ, " + which)
          .isEmpty();
      assertThat(Outputs.differences(first.workloads(), outputs.workloads()))
          .as("workload timelines that differ, " + which)
          .isEmpty();
      assertThat(Outputs.differences(first.preemptions(), outputs.preemptions()))
          .as("preemptions that differ, " + which)
          .isEmpty();
      assertThat(outputs.deadLetters()).as("dead letters, " + which).isEqualTo(first.deadLetters());
    }
  }

  static Replay.Result replay(List<String> args) throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Replay.Result r =
        new Replay(
                ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, Map.of())),
                new PrintStream(console, true, StandardCharsets.UTF_8))
            .run();
    String text = console.toString(StandardCharsets.UTF_8);
    // the replay's own summary lines; its report tables are the ReplayIT's business
    text.lines().filter(l -> l.startsWith("replay:")).forEach(System.out::println);
    return r;
  }

  interface Run<T> {
    T run() throws Exception;
  }

  /** Runs {@code body} with, when asked, a thread beside it that keeps one core busy. */
  static <T> T withCpuHog(boolean hog, Run<T> body) throws Exception {
    AtomicBoolean running = new AtomicBoolean(hog);
    Thread t =
        new Thread(
            () -> {
              long x = 1;
              while (running.get()) {
                for (int i = 0; i < 1_000_000; i++) {
                  x = x * 6364136223846793005L + 1442695040888963407L;
                }
              }
              if (x == 42) {
                System.out.print("");
              }
            },
            "cpu-hog");
    if (hog) {
      t.start();
    }
    try {
      return body.run();
    } finally {
      running.set(false);
      if (hog) {
        t.join();
      }
    }
  }
}
