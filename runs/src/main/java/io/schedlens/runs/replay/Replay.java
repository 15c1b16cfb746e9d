package io.schedlens.runs.replay;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.report.Conditions;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.InputGaps;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.runs.ConditionsReader;
import io.schedlens.runs.DeadLetterReader;
import io.schedlens.runs.RunExport;
import io.schedlens.runs.WorkloadTimelineReader;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * {@code ./schedlens replay}: recorded Pods, Events, DCGM scrapes and request logs through the same
 * collector parsing and the same streams topology, on an embedded broker, in event-time order.
 * Event time drives everything, so an hour of recorded data replays in seconds. Writes the latest
 * timeline of every pod (final or not: a recording ends while pods still run), the report, and a
 * summary of what could not be used.
 */
public final class Replay {

  private static final String APPLICATION_ID = "schedlens-replay";

  /** The mark on the final timeline of a pod the recording ended on. */
  public static final String END_OF_RECORDING = "end-of-recording";

  /**
   * What a replay computed.
   *
   * @param timelines the latest timeline of every pod: final, those the recording ended on closed
   *     with {@link #END_OF_RECORDING}
   * @param preemptions the latest record per key of schedlens.preemptions
   * @param deadLetterKeys every dead letter of the streams app as "reason source key", sorted
   * @param gaps what the numbers do not rest on (unusable input, dead letters)
   */
  public record Result(
      Map<String, PodTimeline> timelines,
      Map<String, WorkloadTimeline> workloads,
      Map<String, Preemption> preemptions,
      Map<String, Integer> produced,
      Unusable unusable,
      Map<String, Integer> deadLetters,
      List<String> deadLetterKeys,
      InputGaps gaps,
      ExperimentReport report,
      Path out) {}

  private final ReplayConfig config;
  private final PrintStream out;
  private final PrintStream progress;
  private Consumer<List<Outgoing>> inputsRead = inputs -> {};

  public Replay(ReplayConfig config, PrintStream out) {
    this(config, out, out);
  }

  /**
   * @param out the results (the report tables)
   * @param progress what the replay is doing, as it goes (the launcher: standard error)
   */
  public Replay(ReplayConfig config, PrintStream out, PrintStream progress) {
    this.config = config;
    this.out = out;
    this.progress = progress;
  }

  /**
   * Shows {@code to} the recorded inputs, in event-time order, once they are read and before they
   * are replayed (for a caller that needs more of the recording than its timelines show).
   */
  public Replay onInputsRead(Consumer<List<Outgoing>> to) {
    this.inputsRead = to;
    return this;
  }

  public Result run() throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      return run(broker);
    }
  }

  /**
   * Replays onto {@code broker}, whose topics stay there afterwards (for {@code export} or {@code
   * report --from kafka} over a replay's outputs); the topics must not exist yet.
   */
  public Result run(EmbeddedKafkaBroker broker) throws Exception {
    long t0 = System.nanoTime();
    Path outDir = Path.of(config.getString(ReplayConfig.OUT)).toAbsolutePath();
    Files.createDirectories(outDir);
    Topics topics = Topics.defaults();
    Records records = new Records(topics, 64 * 1024);
    Unusable unusable = new Unusable();
    List<Outgoing> inputs =
        new RecordedInputs(config, line -> say("%s", line)).read(records, unusable);
    inputs.sort(Comparator.comparingLong(Outgoing::eventTime));
    inputsRead.accept(Collections.unmodifiableList(inputs));
    Map<String, Integer> produced = new TreeMap<>();
    inputs.forEach(o -> produced.merge(o.source(), 1, Integer::sum));
    say("read %s; unusable: %s", produced, unusable.isEmpty() ? "none" : unusable.counts());
    if (!inputs.isEmpty()) {
      say(
          "recorded time %s .. %s",
          Instant.ofEpochMilli(inputs.get(0).eventTime()),
          Instant.ofEpochMilli(inputs.get(inputs.size() - 1).eventTime()));
    }
    Path stateDir = Files.createTempDirectory("schedlens-replay-");
    try {
      broker.createTopics(topics.newTopics(config.getInt(ReplayConfig.PARTITIONS), (short) 1));
      Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers());
      Computed computed = compute(kafka, topics, records, inputs, stateDir);
      Map<String, PodTimeline> timelines = computed.timelines();
      int cut = ReplayOutputs.closeAtEndOfRecording(kafka, topics, timelines);
      if (cut > 0) {
        say(
            "%d pods were still there when the recording ended: their final timelines say"
                + " endedBy %s",
            cut, END_OF_RECORDING);
      }
      DeadLetterReader deadLetters = computed.deadLetters();
      InputGaps gaps = new InputGaps(unusable.counts(), deadLetters.reasons(), deadLetters.pods());
      RunExport.to(config.getString(RunExport.EXPORT), broker.bootstrapServers(), progress);
      WorkloadsFile.write(outDir, computed.workloads().values());
      computed.conditions().write(outDir);
      ExperimentReport report =
          new ReplayOutputs(config)
              .write(
                  timelines,
                  computed.workloads(),
                  computed.conditions(),
                  produced,
                  unusable,
                  gaps,
                  outDir);
      out.print(ReportWriter.terminal(report));
      say(
          "wrote %s/timelines.jsonl (%d pods, %d final), workloads.jsonl (%d), report.md,"
              + " report.json, replay-summary.json in %.0f s",
          outDir,
          timelines.size(),
          timelines.values().stream().filter(PodTimeline::getFinal$).count(),
          computed.workloads().size(),
          (System.nanoTime() - t0) / 1e9);
      return new Result(
          timelines,
          computed.workloads(),
          computed.preemptions(),
          produced,
          unusable,
          deadLetters.reasons(),
          deadLetters.keys(),
          gaps,
          report,
          outDir);
    } finally {
      deleteTree(stateDir);
    }
  }

  /** What the streams app computed from the inputs, read back from its topics. */
  private record Computed(
      Map<String, PodTimeline> timelines,
      Map<String, WorkloadTimeline> workloads,
      Conditions conditions,
      DeadLetterReader deadLetters,
      Map<String, Preemption> preemptions) {}

  /**
   * The streams app started on the broker, the inputs fed to it, its outputs read back once it took
   * them all; the app stopped.
   */
  private Computed compute(
      Map<String, Object> kafka,
      Topics topics,
      Records records,
      List<Outgoing> inputs,
      Path stateDir)
      throws Exception {
    ReplayFeed feed = new ReplayFeed(config, APPLICATION_ID, line -> say("%s", line));
    StreamsApp streams =
        StreamsApp.start(streamsConfig(stateDir, (String) kafka.get("bootstrap.servers")));
    try {
      feed.produce(kafka, topics, records, inputs);
      say("produced %,d records; waiting for the last timelines", inputs.size());
      Map<String, PodTimeline> timelines =
          feed.awaitTimelines(kafka, topics, config.getDuration(ReplayConfig.TIMEOUT));
      say("reading the workload timelines and the GPU models seen");
      // awaitTimelines waited until every stage had consumed its input and all was quiet
      Map<String, WorkloadTimeline> workloads = WorkloadTimelineReader.readAll(kafka, topics);
      Conditions conditions =
          ConditionsReader.withGpus(
              kafka,
              topics,
              timelines.values().stream()
                  .map(PodTimeline::getExperiment)
                  .filter(e -> e != null)
                  .findFirst()
                  .orElse("replay"));
      DeadLetterReader deadLetters = DeadLetterReader.read(kafka, topics);
      Map<String, Preemption> preemptions = new TreeMap<>();
      try (KafkaConsumer<String, Preemption> consumer =
          TopicConsumers.fromBeginning(kafka, topics.preemptions)) {
        TopicConsumers.readToEnd(consumer, r -> preemptions.put(r.key(), r.value()));
      }
      if (!deadLetters.reasons().isEmpty()) {
        say(
            "dead-lettered by the streams app: %s; e.g. %s",
            deadLetters.reasons(), deadLetters.examples());
      }
      return new Computed(timelines, workloads, conditions, deadLetters, preemptions);
    } finally {
      streams.close();
    }
  }

  private StreamsAppConfig streamsConfig(Path stateDir, String bootstrap) {
    Map<String, Object> v = new HashMap<>();
    for (String key : ReplayConfig.STREAMS_KEYS) {
      v.put(key, config.originals().getOrDefault(key, config.values().get(key)));
    }
    v.put(StreamsAppConfig.APPLICATION_ID, APPLICATION_ID);
    v.put(StreamsAppConfig.STATE_DIR, stateDir.toString());
    v.put(StreamsAppConfig.HTTP_PORT, 0);
    v.put(StreamsAppConfig.EMIT_INTERVAL, "1s");
    // each slice of the replay waits for the app to commit (unless told otherwise)
    if (!config.originals().containsKey(StreamsAppConfig.COMMIT_INTERVAL)) {
      v.put(StreamsAppConfig.COMMIT_INTERVAL, "20ms");
    }
    v.put(StreamsAppConfig.TOPICS_CREATE, false);
    // The replay's app lives on loopback for the length of the replay.
    v.put(StreamsAppConfig.API_AUTH, "none");
    // Between slices the app is idle: poll and commit often so each slice goes through fast.
    return new StreamsAppConfig(
        v,
        Map.of(
            "bootstrap.servers",
            bootstrap,
            StreamsConfig.POLL_MS_CONFIG,
            "5",
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            "20"));
  }

  private void say(String format, Object... args) {
    progress.println("replay: " + String.format(format, args));
  }

  private static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory; the OS cleans it eventually
    }
  }
}
