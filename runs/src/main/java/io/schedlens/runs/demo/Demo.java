package io.schedlens.runs.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.report.Conditions;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.InputGaps;
import io.schedlens.report.PodFacts;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.runs.ConditionsReader;
import io.schedlens.runs.DeadLetterReader;
import io.schedlens.runs.RunExport;
import io.schedlens.runs.ScenarioSetting;
import io.schedlens.runs.WorkloadTimelineReader;
import io.schedlens.schemas.Topics;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.live.DcgmExporterServer;
import io.schedlens.simulator.live.KubernetesClusterWriter;
import io.schedlens.simulator.live.RecordingTee;
import io.schedlens.simulator.live.RequestShipper;
import io.schedlens.simulator.live.SimClock;
import io.schedlens.simulator.live.SimulatedApiServer;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.streams.KafkaStreams;

/**
 * {@code ./schedlens demo}: the whole pipeline on one machine. An embedded Kafka broker, the
 * simulator's Kubernetes API (fabric8's mock server), the simulated cluster's dcgm-exporter, the
 * real collector (watching that API, scraping that exporter, taking the servers' request logs), the
 * real streams app; the simulator runs the scenario's arms and repeats on one accelerated clock
 * shared with the collector; then every pod's final timeline is read back from {@code
 * schedlens.pod-timelines} and the experiment report is written.
 */
public final class Demo {

  /** What a demo produced. */
  public record Result(
      Scenario scenario,
      List<PodTruth> truth,
      List<ClusterRun> runs,
      Map<String, PodTimeline> finals,
      Map<String, WorkloadTimeline> workloads,
      InputGaps gaps,
      ExperimentReport report,
      Path out) {

    /** Pods the simulator created whose final timeline never came. */
    public List<String> missing() {
      return truth.stream().map(PodTruth::uid).filter(u -> !finals.containsKey(u)).toList();
    }
  }

  private final DemoConfig config;
  private final PrintStream out;
  private final PrintStream progress;

  public Demo(DemoConfig config, PrintStream out) {
    this(config, out, out);
  }

  /**
   * @param out the results (the report tables)
   * @param progress what the demo is doing, as it goes (the launcher: standard error)
   */
  public Demo(DemoConfig config, PrintStream out, PrintStream progress) {
    this.config = config;
    this.out = out;
    this.progress = progress;
  }

  public Result run() throws Exception {
    long t0 = System.nanoTime();
    Scenario loaded = ScenarioSetting.load(config.getString(DemoConfig.SCENARIO));
    long seed = config.getLong(DemoConfig.SEED);
    Scenario scenario = seed < 0 ? loaded : loaded.withSeed(seed);
    double speed = config.getDouble(DemoConfig.SPEED);
    long span = Simulator.span(scenario);
    Path outDir = Path.of(config.getString(DemoConfig.OUT)).toAbsolutePath();
    Files.createDirectories(outDir);
    say(
        "scenario %s: %d arm(s) × %d repeat(s), %s virtual; at %.0f× that is about %d s",
        scenario.name(),
        scenario.arms().size(),
        scenario.repeats(),
        hours(span),
        speed,
        (long) (span / speed / 1000));
    // Virtual time ends about now: Kafka refuses record times far in the future.
    long origin = ((System.currentTimeMillis() - span - 60_000) / 60_000) * 60_000;
    SimClock clock = new SimClock(origin, speed);
    boolean tempState = config.getString(DemoConfig.STATE_DIR).isEmpty();
    Path stateDir =
        tempState
            ? Files.createTempDirectory("schedlens-demo-")
            : Path.of(config.getString(DemoConfig.STATE_DIR));
    List<AutoCloseable> open = new ArrayList<>();
    try {
      Parts parts = start(scenario, origin, clock, stateDir, open);
      KubernetesClusterWriter writer = new KubernetesClusterWriter(parts.api().client());
      clock.start();
      List<PodTruth> truth =
          simulate(
              parts.simulator(),
              scenario,
              writer,
              parts.shipper(),
              clock,
              parts.collector(),
              origin);
      clock.simulationDone();
      parts.shipper().flush();
      say(
          "simulation done: %d pods, %,d API writes, %,d request logs shipped (%.0f s)",
          truth.size(), writer.writes(), parts.shipper().shipped(), seconds(t0));
      Result result = finish(parts, scenario, truth, outDir, t0);
      if (config.getBoolean(DemoConfig.KEEP_RUNNING)) {
        say(
            "keeping everything up (--keep-running): Prometheus can scrape %s/metrics and %s/metrics; Ctrl-C stops",
            parts.streams().baseUrl(), parts.collector().baseUrl());
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(forever::countDown));
        forever.await();
      }
      return result;
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        try {
          open.get(i).close();
        } catch (Exception e) {
          // closing what is left; the first failure already told the story
        }
      }
      if (tempState) {
        deleteTree(stateDir);
      }
    }
  }

  /** The parts of a demo, running. */
  private record Parts(
      EmbeddedKafkaBroker broker,
      SimulatedApiServer api,
      Simulator simulator,
      Collector collector,
      StreamsApp streams,
      RequestShipper shipper) {}

  /**
   * Starts the broker, the mock API server, the simulated dcgm-exporter, the collector, the streams
   * app and the request shipper, each added to {@code open} as it starts; returns once the
   * collector and the streams app are ready.
   */
  private Parts start(
      Scenario scenario, long origin, SimClock clock, Path stateDir, List<AutoCloseable> open)
      throws Exception {
    double speed = config.getDouble(DemoConfig.SPEED);
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
    open.add(broker);
    broker.createTopics(
        Topics.defaults().newTopics(config.getInt(DemoConfig.PARTITIONS), (short) 1));
    say("Kafka broker (KRaft, embedded) on %s", broker.bootstrapServers());
    Map<String, String> kafkaEnv = Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    SimulatedApiServer api = SimulatedApiServer.start(scenario.kueue().installed());
    open.add(api);
    Simulator simulator = new Simulator(scenario, origin);
    DcgmExporterServer exporter = DcgmExporterServer.start(simulator.gpus(), simulator.nodes());
    open.add(exporter);
    say(
        "Kubernetes API (fabric8 mock server) on %s; dcgm-exporter for %d GPU(s)",
        api.url(), scenario.totalGpus());
    Collector collector =
        Collector.start(collectorConfig(api, exporter, scenario, speed, kafkaEnv), null, clock);
    open.add(collector);
    StreamsApp streams = StreamsApp.start(streamsConfig(stateDir, scenario, kafkaEnv));
    open.add(streams);
    RequestShipper shipper =
        new RequestShipper(collector.baseUrl() + "/v1/request-logs", null, Duration.ofMillis(100));
    open.add(shipper);
    awaitReady(collector, streams);
    say(
        "collector: %s/metrics (request-log intake %s/v1/request-logs)",
        collector.baseUrl(), collector.baseUrl());
    say("streams app: %s/metrics, %s/api/pods?state=all", streams.baseUrl(), streams.baseUrl());
    return new Parts(broker, api, simulator, collector, streams, shipper);
  }

  /** What the pipeline wrote, read back; the files and the report written and printed. */
  private Result finish(Parts parts, Scenario scenario, List<PodTruth> truth, Path outDir, long t0)
      throws Exception {
    String bootstrap = parts.broker().bootstrapServers();
    ReadBack read = readBack(bootstrap, Topics.defaults(), scenario, truth);
    WorkloadsFile.write(outDir, read.workloads().values());
    RunExport.to(config.getString(RunExport.EXPORT), bootstrap, progress);
    ExperimentReport report =
        write(
            scenario,
            truth,
            read.finals(),
            read.workloads().values(),
            read.conditions(),
            read.gaps(),
            outDir);
    out.print(ReportWriter.terminal(report));
    say(
        "wrote %s/timelines.jsonl (%d final timelines), workloads.jsonl (%d workloads),"
            + " conditions.json, report.md, report.json, simulator-truth.jsonl in %.0f s",
        outDir, read.finals().size(), read.workloads().size(), seconds(t0));
    return new Result(
        scenario,
        truth,
        parts.simulator().runs(),
        read.finals(),
        read.workloads(),
        read.gaps(),
        report,
        outDir);
  }

  /**
   * The real collector's settings for the demo: the simulator's API and dcgm-exporter, scrapes at
   * the scenario's interval on the accelerated clock, the request-log intake on loopback.
   */
  private CollectorConfig collectorConfig(
      SimulatedApiServer api,
      DcgmExporterServer exporter,
      Scenario scenario,
      double speed,
      Map<String, String> kafkaEnv) {
    long scrapeMs = Math.max(20, (long) (scenario.scrapeInterval().toMillis() / speed));
    return CollectorConfig.from(
        CommandLineSettings.load(
            CollectorConfig.DEF,
            List.of(
                "--kubernetes-master",
                api.url(),
                "--namespaces",
                scenario.namespace(),
                "--dcgm-targets",
                String.join(",", exporter.targets()),
                "--dcgm-discovery",
                "false",
                "--scrape-interval",
                scrapeMs + "ms",
                "--scrape-timeout",
                Math.max(1000, scrapeMs * 4) + "ms",
                "--startup-readback",
                "false",
                // Progress marks a tenth of a wall second apart, and a minute of
                // virtual time (0.3 s of wall time) for the watch to deliver a change.
                "--progress-interval",
                "100ms",
                "--progress-allowance",
                "60s",
                "--http-port",
                Integer.toString(config.getInt(DemoConfig.COLLECTOR_PORT)),
                // The demo's collector listens on loopback only, for its own shipper.
                "--intake-auth",
                "none"),
            kafkaEnv));
  }

  /** The real streams app's settings for the demo, with the scenario's latency SLOs. */
  private StreamsAppConfig streamsConfig(
      Path stateDir, Scenario scenario, Map<String, String> kafkaEnv) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--application-id", "schedlens-demo",
                "--state-dir", stateDir.toString(),
                "--http-port", Integer.toString(config.getInt(DemoConfig.STREAMS_PORT)),
                "--emit-interval", "1s",
                // Grace in virtual time: at 200x, 10 minutes are 3 s of wall time for inputs
                // that travel different paths (watch, scrape, intake) to meet.
                "--grace-period", "10m",
                "--topics-create", "false",
                // Loopback only, for the person running the demo.
                "--api-auth", "none"));
    scenario
        .slos()
        .forEach((name, ms) -> args.addAll(List.of("--slo", name + "=" + Math.round(ms))));
    return StreamsAppConfig.from(CommandLineSettings.load(StreamsAppConfig.DEF, args, kafkaEnv));
  }

  /**
   * Runs every arm and repeat of the scenario against the API and the intake; with {@code
   * --record}, everything the cluster writes is recorded as well.
   */
  private List<PodTruth> simulate(
      Simulator simulator,
      Scenario scenario,
      KubernetesClusterWriter writer,
      RequestShipper shipper,
      SimClock clock,
      Collector collector,
      long origin)
      throws Exception {
    String record = config.getString(DemoConfig.RECORD);
    if (record.isEmpty()) {
      return simulator.run(writer, shipper, clock, progress(simulator, collector));
    }
    List<PodTruth> truth;
    try (ClusterRecorder recorder =
        new ClusterRecorder(
            Path.of(record),
            simulator.gpus(),
            simulator.nodes(),
            origin,
            scenario.scrapeInterval().toMillis())) {
      RecordingTee tee = new RecordingTee(writer, shipper, clock, recorder);
      truth = simulator.run(tee, tee, tee, progress(simulator, collector));
    }
    say("recorded the simulated cluster in %s (./schedlens replay reads it)", record);
    return truth;
  }

  /** What the pipeline wrote back to Kafka about the run. */
  private record ReadBack(
      Map<String, PodTimeline> finals,
      Map<String, WorkloadTimeline> workloads,
      Conditions conditions,
      InputGaps gaps) {}

  /**
   * Reads the pipeline's outputs back: each simulated pod's final timeline (until all came or the
   * timeout), the workload timelines, the experiment's conditions and the dead letters.
   */
  private ReadBack readBack(
      String bootstrapServers, Topics topics, Scenario scenario, List<PodTruth> truth)
      throws Exception {
    Map<String, Object> kafka = Map.of("bootstrap.servers", bootstrapServers);
    Set<String> expected = new LinkedHashSet<>(truth.stream().map(PodTruth::uid).toList());
    Map<String, PodTimeline> finals;
    try (TimelineCollector timelines = new TimelineCollector(kafka, topics)) {
      finals =
          timelines.awaitFinals(
              expected, config.getDuration(DemoConfig.FINALS_TIMEOUT), m -> say("%s", m));
    }
    say("reading the workload timelines (until quiet for 3 s) and the experiment's conditions");
    Map<String, WorkloadTimeline> workloads =
        WorkloadTimelineReader.readUntilQuiet(
            kafka, topics, Duration.ofSeconds(3), Duration.ofSeconds(60));
    List<String> missing = expected.stream().filter(u -> !finals.containsKey(u)).toList();
    if (!missing.isEmpty()) {
      say(
          "WARNING: %d of %d pods have no final timeline yet (%s...): the report covers the others",
          missing.size(), expected.size(), missing.get(0));
    }
    Conditions conditions = ConditionsReader.withGpus(kafka, topics, scenario.experiment());
    DeadLetterReader deadLetters = DeadLetterReader.read(kafka, topics);
    InputGaps gaps = new InputGaps(Map.of(), deadLetters.reasons(), deadLetters.pods());
    if (!gaps.isEmpty()) {
      say(
          "dead-lettered by the streams app: %s; e.g. %s",
          deadLetters.reasons(), deadLetters.examples());
    }
    return new ReadBack(finals, workloads, conditions, gaps);
  }

  private Simulator.Progress progress(Simulator simulator, Collector collector) {
    return new Simulator.Progress() {
      @Override
      public void runStarted(ClusterRun run, int index, int total) {
        say(
            "[run %d/%d] %s, repeat %d: %s of virtual time begins",
            index, total, run.arm().name(), run.repeat(), minutes(run.end() - run.start()));
      }

      @Override
      public void runFinished(ClusterRun run, int index, int total, List<PodTruth> truth) {
        long preempted = truth.stream().filter(t -> t.preemptedAt() != null).count();
        long requests = truth.stream().mapToLong(PodTruth::requests).sum();
        say(
            "[run %d/%d] %s, repeat %d: %d pods, %d preempted, %,d requests served, %,d turned away",
            index,
            total,
            run.arm().name(),
            run.repeat(),
            truth.size(),
            preempted,
            requests,
            run.unserved());
      }
    };
  }

  private static void awaitReady(Collector collector, StreamsApp streams)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!(collector.readiness().ready()
        && streams.streams().state() == KafkaStreams.State.RUNNING)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the collector or the streams app did not become ready within 120 s: collector "
                + collector.readiness().detail()
                + ", streams "
                + streams.streams().state());
      }
      Thread.sleep(100);
    }
  }

  /** Writes timelines.jsonl, the report and the ground truth; returns the report. */
  static ExperimentReport write(
      Scenario scenario,
      List<PodTruth> truth,
      Map<String, PodTimeline> finals,
      Collection<WorkloadTimeline> workloads,
      Conditions conditions,
      InputGaps gaps,
      Path dir)
      throws IOException {
    conditions.write(dir);
    List<PodTimeline> ordered = TimelinesFile.write(dir, finals.values());
    Files.writeString(
        dir.resolve("simulator-truth.jsonl"),
        truth.stream().map(Demo::truthLine).collect(Collectors.joining("\n", "", "\n")));
    ExperimentReport report =
        ExperimentReport.of(
                scenario.experiment(),
                ordered.stream().map(PodFacts::of).toList(),
                Duration.ofMinutes(10).toMillis(),
                workloads)
            .withConditions(conditions);
    ReportWriter.writeAll(
        dir,
        report,
        gaps.markdown()
            + (gaps.isEmpty() ? "" : "\n")
            + "Scenario `"
            + scenario.name()
            + "`: "
            + scenario.description()
            + "\n\nFrom the final pod timelines (`timelines.jsonl`) and workload timelines"
            + " (`workloads.jsonl`) schedlens computed, through the collector, Kafka and the"
            + " streams app.");
    return report;
  }

  private static String truthLine(PodTruth t) {
    try {
      return new ObjectMapper().writeValueAsString(t);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void say(String format, Object... args) {
    progress.printf("demo: " + format + "%n", args);
    progress.flush();
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static String hours(long ms) {
    return String.format("%.1f h", ms / 3_600_000.0);
  }

  private static String minutes(long ms) {
    return (ms / 60_000) + " min";
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing for
    }
  }
}
