package io.schedlens.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.cli.GroundTruth;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.runs.demo.Demo;
import io.schedlens.runs.demo.DemoConfig;
import io.schedlens.simulator.cluster.ClusterRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * day08 through the whole pipeline (simulator → mock API, dcgm-exporter, intake → collector → Kafka
 * → streams app → pod-timelines), held against the simulator's ground truth: it knows the true
 * times, links and waste. Tolerances are Kubernetes' own granularity: creationTimestamp, condition
 * and container times are whole seconds.
 */
class DemoIT {

  static final long SECOND = 1000;

  @TempDir static Path out;
  static Demo.Result result;
  static String console;

  @BeforeAll
  static void runDemo() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    DemoConfig config =
        DemoConfig.from(
            CommandLineSettings.load(
                DemoConfig.DEF,
                List.of(
                    "--out",
                    out.toString(),
                    "--streams-http-port",
                    "0",
                    "--collector-http-port",
                    "0",
                    "--record",
                    out.resolve("recording").toString(),
                    "--export",
                    out.resolve("warehouse").toString()),
                Map.of()));
    result = new Demo(config, print).run();
    console = buffer.toString(StandardCharsets.UTF_8);
    System.out.println(console);
  }

  /**
   * The live pipeline and a replay of the same cluster's recording make the same timelines: the
   * live demo's collector watched the API, scraped the exporter and took the shipped request logs
   * on an accelerated clock; the replay reads what the cluster wrote, in slices. What they say must
   * not depend on which way the inputs came, except where the inputs themselves differ: the live
   * collector samples the GPUs when its scrapes happen (wall-clock ticks), the recording every
   * scrape interval exactly, so the GPU-seconds measured from samples are compared within two
   * scrape intervals of the pod's GPUs (day08: 30 s per GPU; the differences seen were up to 14 s),
   * and so is the GPU part of the pod's series (see {@link #seriesDifferences}). Every other field
   * must be equal.
   */
  @Test
  void shouldWriteItsWarehouseTablesForDuckDbWithoutAKafkaOfOnesOwn() throws Exception {
    assertThat(result.gaps().isEmpty()).as("dead letters of the demo: %s", result.gaps()).isTrue();
    try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.Statement s = db.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT count(DISTINCT uid), count(*) FILTER (WHERE endedBy IS NOT NULL)"
                    + " FROM read_parquet('"
                    + out.resolve("warehouse")
                    + "/pod_timelines/**/*.parquet', hive_partitioning = true,"
                    + " union_by_name = true)")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(result.finals().size());
      assertThat(rs.getLong(2))
          .as("pods cut by an end of recording: the demo sees all end")
          .isZero();
    }
  }

  @Test
  void shouldEqualAReplayOfItsOwnRecording() throws Exception {
    Path rec = out.resolve("recording");
    List<String> args =
        io.schedlens.cli.replay.Recordings.replayArgs(
            rec, out.resolve("replay"), result.scenario());
    io.schedlens.runs.replay.Replay.Result replay =
        new io.schedlens.runs.replay.Replay(
                io.schedlens.runs.replay.ReplayConfig.from(
                    CommandLineSettings.load(
                        io.schedlens.runs.replay.ReplayConfig.DEF, args, Map.of())),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
            .run();
    assertThat(replay.timelines().keySet()).isEqualTo(result.finals().keySet());
    java.util.Set<String> sampled =
        java.util.Set.of(
            "busyGpuSeconds",
            "idleAllocatedGpuSeconds",
            "unsampledGpuSeconds",
            "wastedBusyGpuSeconds",
            "updatedAt");
    List<String> differences = new java.util.ArrayList<>();
    for (String uid : result.finals().keySet()) {
      PodTimeline live = result.finals().get(uid);
      PodTimeline replayed = replay.timelines().get(uid);
      for (org.apache.avro.Schema.Field f : PodTimeline.getClassSchema().getFields()) {
        Object a = live.get(f.pos());
        Object b = replayed.get(f.pos());
        if (f.name().equals("series")) {
          double tolerance =
              2 * result.scenario().scrapeInterval().toMillis() / 1000.0 * live.getGpus();
          differences.addAll(
              seriesDifferences(
                  uid + " " + live.getName(), live.getSeries(), replayed.getSeries(), tolerance));
        } else if (sampled.contains(f.name())) {
          if (a instanceof Double x && b instanceof Double y) {
            // a sample at each edge of a busy spell falls up to one scrape interval apart
            double tolerance =
                2 * result.scenario().scrapeInterval().toMillis() / 1000.0 * live.getGpus();
            if (Math.abs(x - y) > tolerance) {
              differences.add(uid + " " + live.getName() + " " + f.name() + ": " + a + " / " + b);
            }
          }
        } else if (!java.util.Objects.equals(String.valueOf(a), String.valueOf(b))) {
          differences.add(uid + " " + live.getName() + " " + f.name() + ": " + a + " / " + b);
        }
      }
    }
    assertThat(differences).as("live / replayed").isEmpty();
  }

  /**
   * A pod's series, live against replayed: its step, SLO and every point's requests, errors,
   * breaches and latency bins equal; its GPU samples, which the two ways sample at different
   * instants, in busy and sampled GPU-seconds within {@code tolerance} over the whole life.
   */
  static List<String> seriesDifferences(
      String pod, PodSeries live, PodSeries replayed, double tolerance) {
    List<String> d = new java.util.ArrayList<>();
    if (live == null || replayed == null) {
      if (live != replayed) {
        d.add(pod + " series: " + live + " / " + replayed);
      }
      return d;
    }
    // The step follows the span of the inputs: a GPU sample more or less at the edge of a life (the
    // live collector scrapes on wall-clock ticks) may double it. Compared at the coarser step.
    long step = Math.max(live.getStepMs(), replayed.getStepMs());
    if (step > 2 * Math.min(live.getStepMs(), replayed.getStepMs())
        || !java.util.Objects.equals(live.getSloMs(), replayed.getSloMs())) {
      d.add(
          pod
              + " series step or SLO: "
              + live.getStepMs()
              + " "
              + live.getSloMs()
              + " / "
              + replayed.getStepMs()
              + " "
              + replayed.getSloMs());
    }
    java.util.function.Function<PodSeries, Map<Long, String>> requests =
        s -> {
          Map<Long, long[]> counts = new java.util.TreeMap<>();
          Map<Long, Map<Integer, Long>> bins = new java.util.TreeMap<>();
          for (PodPoint p : s.getPoints()) {
            if (p.getRequests() > 0) {
              long at = Math.floorDiv(p.getAt(), step) * step;
              long[] c = counts.computeIfAbsent(at, k -> new long[3]);
              c[0] += p.getRequests();
              c[1] += p.getErrors();
              c[2] += p.getSloBreaches();
              p.getLatency()
                  .forEach(
                      b ->
                          bins.computeIfAbsent(at, k -> new java.util.TreeMap<>())
                              .merge(b.getBin(), b.getCount(), Long::sum));
            }
          }
          Map<Long, String> m = new java.util.TreeMap<>();
          counts.forEach((at, c) -> m.put(at, c[0] + " " + c[1] + " " + c[2] + " " + bins.get(at)));
          return m;
        };
    if (!requests.apply(live).equals(requests.apply(replayed))) {
      d.add(pod + " series requests: " + requests.apply(live) + " / " + requests.apply(replayed));
    }
    java.util.function.ToDoubleBiFunction<PodSeries, Boolean> gpuSeconds =
        (s, busy) ->
            s.getPoints().stream()
                    .mapToLong(p -> busy ? p.getBusyMicros() : p.getSampledMicros())
                    .sum()
                / 1e6;
    for (boolean busy : new boolean[] {true, false}) {
      double a = gpuSeconds.applyAsDouble(live, busy);
      double b = gpuSeconds.applyAsDouble(replayed, busy);
      if (Math.abs(a - b) > tolerance) {
        d.add(pod + " series " + (busy ? "busy" : "sampled") + " GPU-s: " + a + " / " + b);
      }
    }
    return d;
  }

  @Test
  void shouldGiveEveryPodOfTheSimulationAFinalTimeline() {
    assertThat(result.truth()).hasSizeGreaterThan(20);
    assertThat(result.missing()).isEmpty();
  }

  @Test
  void shouldMatchTheGroundTruthWithinKubernetesGranularity() {
    GroundTruth.assertMatches(result.truth(), result.finals());
  }

  /**
   * The collector watched the Deployment and the Jobs: the inference service's wanted replicas are
   * the Deployment's own (scaled 0 → 1 → 0 → 1 → 0 in every run), and the service was never
   * interrupted in day08 (nothing takes a Ready server away: interactive is never the victim), as
   * the simulator lived it.
   */
  @Test
  void shouldDescribeTheServiceFromTheWatchedWorkloadObjects() throws Exception {
    WorkloadTimeline inference =
        result.workloads().values().stream()
            .filter(w -> w.getKind().equals("Deployment"))
            .filter(w -> w.getName().equals("interactive-inference"))
            .findFirst()
            .orElseThrow();
    assertThat(inference.getDesiredSource()).isEqualTo("observed");
    assertThat(inference.getSeries())
        .extracting(p -> p.getDesired())
        .as("scaled up and down in every run")
        .contains(0, 1);
    List<ClusterRun.ServiceInterruption> lived = new java.util.ArrayList<>();
    result.runs().forEach(r -> lived.addAll(r.interruptions()));
    GroundTruth.assertServiceMatches(lived, result.truth(), result.workloads().values());
    assertThat(result.workloads().values())
        .as("the Jobs too, each run's by its own UID")
        .anyMatch(w -> w.getKind().equals("Job") && w.getControllerUid() != null);
    assertThat(Files.readAllLines(out.resolve("workloads.jsonl")))
        .hasSize(result.workloads().size());
  }

  /** The collector read the experiment's ConfigMap; the DCGM samples named the GPU. */
  @Test
  void shouldHeadTheReportWithTheStatedConditionsAndTheGpusSeen() throws Exception {
    String md = Files.readString(out.resolve("report.md"));
    assertThat(md)
        .contains("## Conditions")
        .contains("As stated in ConfigMap `ai-lab/day08-experiment`")
        .contains("- **change**: PriorityClasses for GPU work")
        .contains("- **repeats**: 3")
        .contains("- **GPUs seen**: NVIDIA H100 80GB HBM3 on 1 node (gpu-node-1)")
        .doesNotContain("WARNING");
    assertThat(out.resolve("conditions.json")).exists();
  }

  @Test
  void shouldReportWhatTheScenarioImplies() throws Exception {
    ExperimentReport r = result.report();
    assertThat(r.control()).isEqualTo("control");
    Row controlInteractive = r.row("control", "interactive-inference");
    Row treatmentInteractive = r.row("treatment", "interactive-inference");
    // Treatment: interactive pending far below control, in every repeat.
    for (String repeat : r.repeats()) {
      assertThat(treatmentInteractive.pendingMaxMs().byRepeat().get(repeat) * 10)
          .as("repeat " + repeat)
          .isLessThan(controlInteractive.pendingMaxMs().byRepeat().get(repeat));
    }
    assertThat(treatmentInteractive.timeToFirstOkP50Ms().mean())
        .isLessThan(controlInteractive.timeToFirstOkP50Ms().mean());
    // Victims and wasted work only in treatment.
    for (Row row : r.rows()) {
      if (row.arm().equals("control")) {
        assertThat(row.preemptions().max()).as(row.workload()).isZero();
        assertThat(row.wastedGpuSeconds().max()).as(row.workload()).isZero();
      }
    }
    assertThat(r.row("treatment", "embedding-batch").preemptions().min()).isPositive();
    assertThat(r.row("treatment", "embedding-batch").wastedGpuSeconds().min()).isPositive();
    assertThat(treatmentInteractive.preemptions().max()).isZero();
    // Whether a batch class starves: ASR gets no GPU time in treatment.
    assertThat(r.row("treatment", "asr-batch").starvingPods().min()).isPositive();
    assertThat(r.findings())
        .anyMatch(f -> f.startsWith("Starving in treatment") && f.contains("asr-batch"));

    assertThat(Files.readAllLines(out.resolve("timelines.jsonl"))).hasSize(result.finals().size());
    assertThat(Files.readString(out.resolve("report.md")))
        .contains("| treatment | interactive-inference |");
    assertThat(Files.readString(out.resolve("report.json"))).contains("\"findings\"");
    assertThat(console).contains("[run 6/6]").contains("interactive-inference");
  }
}
