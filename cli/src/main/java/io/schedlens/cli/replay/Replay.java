package io.schedlens.cli.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.cli.common.ConditionsReader;
import io.schedlens.cli.common.DeadLetterReader;
import io.schedlens.cli.common.RunExport;
import io.schedlens.cli.common.WorkloadTimelineReader;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.k8s.EventProjection;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.projections.recorded.RecordedObjects;
import io.schedlens.projections.recorded.RecordedScrapes;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.ProducerRecords;
import io.schedlens.projections.records.Records;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.report.Conditions;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.InputGaps;
import io.schedlens.report.PodFacts;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
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

  /** The producer name on replay's progress marks. */
  static final String PRODUCER = "replay";

  private static final Duration QUIET = Duration.ofSeconds(3);

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
    List<Outgoing> inputs = read(records, unusable);
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
      int partitions = config.getInt(ReplayConfig.PARTITIONS);
      broker.createTopics(topics.newTopics(partitions, (short) 1));
      Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers());
      StreamsApp streams = StreamsApp.start(streamsConfig(stateDir, broker.bootstrapServers()));
      Map<String, PodTimeline> timelines;
      Map<String, WorkloadTimeline> workloads;
      Conditions conditions;
      DeadLetterReader deadLetters;
      Map<String, Preemption> preemptions = new TreeMap<>();
      try {
        produce(kafka, topics, records, inputs);
        say("produced %,d records; waiting for the last timelines", inputs.size());
        timelines = awaitTimelines(kafka, topics, config.getDuration(ReplayConfig.TIMEOUT));
        say("reading the workload timelines and the GPU models seen");
        // awaitTimelines waited until every stage had consumed its input and all was quiet
        workloads = WorkloadTimelineReader.readAll(kafka, topics);
        conditions =
            ConditionsReader.withGpus(
                kafka,
                topics,
                timelines.values().stream()
                    .map(PodTimeline::getExperiment)
                    .filter(e -> e != null)
                    .findFirst()
                    .orElse("replay"));
        deadLetters = DeadLetterReader.read(kafka, topics);
        try (KafkaConsumer<String, Preemption> consumer =
            TopicConsumers.fromBeginning(kafka, topics.preemptions)) {
          TopicConsumers.readToEnd(consumer, r -> preemptions.put(r.key(), r.value()));
        }
        if (!deadLetters.reasons().isEmpty()) {
          say(
              "dead-lettered by the streams app: %s; e.g. %s",
              deadLetters.reasons(), deadLetters.examples());
        }
      } finally {
        streams.close();
      }
      int cut = closeAtEndOfRecording(kafka, topics, timelines);
      if (cut > 0) {
        say(
            "%d pods were still there when the recording ended: their final timelines say"
                + " endedBy %s",
            cut, END_OF_RECORDING);
      }
      InputGaps gaps = new InputGaps(unusable.counts(), deadLetters.reasons(), deadLetters.pods());
      RunExport.to(config.getString(RunExport.EXPORT), broker.bootstrapServers(), progress);
      WorkloadsFile.write(outDir, workloads.values());
      conditions.write(outDir);
      ExperimentReport report =
          write(timelines, workloads, conditions, produced, unusable, gaps, outDir);
      out.print(ReportWriter.terminal(report));
      say(
          "wrote %s/timelines.jsonl (%d pods, %d final), workloads.jsonl (%d), report.md,"
              + " report.json, replay-summary.json in %.0f s",
          outDir,
          timelines.size(),
          timelines.values().stream().filter(PodTimeline::getFinal$).count(),
          workloads.size(),
          (System.nanoTime() - t0) / 1e9);
      return new Result(
          timelines,
          workloads,
          preemptions,
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

  /** Every recorded input as the collector would have produced it. */
  List<Outgoing> read(Records records, Unusable unusable) throws IOException {
    List<Outgoing> inputs = new ArrayList<>();
    PodProjection pods =
        new PodProjection(
            config.getList(CollectorConfig.POD_LABELS),
            config.getList(CollectorConfig.POD_ANNOTATIONS));
    List<String> objectFiles = new ArrayList<>(config.getList(ReplayConfig.PODS));
    objectFiles.addAll(config.getList(ReplayConfig.EVENTS));
    Map<String, PodName> podNames = new HashMap<>();
    List<ClusterEvent> events = new ArrayList<>();
    List<PodWatchTimes.Watched> watched = new ArrayList<>();
    for (String file : objectFiles) {
      for (RecordedObjects.Item item : RecordedObjects.read(readFile(file), unusable)) {
        try {
          if (item instanceof RecordedObjects.PodItem p) {
            PodObservation o = pods.project(p.pod(), p.change(), 0);
            long at = EventTimes.latestFact(o);
            if (o.getDeletionTimestamp() != null) {
              long grace =
                  o.getDeletionGracePeriodSeconds() == null ? 0 : o.getDeletionGracePeriodSeconds();
              at = Math.max(at, o.getDeletionTimestamp() - grace * 1000);
            }
            podNames.put(o.getUid(), PodName.of(o));
            if (p.change() == ChangeType.RELIST) {
              // List items (a snapshot) are in no order and stand at their own latest fact.
              o.setObservedAt(at);
              inputs.add(records.pod(o));
            } else {
              watched.add(
                  new PodWatchTimes.Watched(
                      o,
                      p.change(),
                      file,
                      p.line(),
                      PodWatchTimes.revision(p.pod().getMetadata().getResourceVersion()),
                      at));
            }
          } else if (item instanceof RecordedObjects.CoreEventItem e) {
            event(EventProjection.project(e.event(), e.change(), 0), events, unusable, file);
          } else if (item instanceof RecordedObjects.EventsV1Item e) {
            event(EventProjection.project(e.event(), e.change(), 0), events, unusable, file);
          }
        } catch (RuntimeException e) {
          // the projection refuses objects without the fields every real one has (uid, name)
          unusable.add(RecordedObjects.INVALID_OBJECT, file + ": " + e.getMessage());
        }
      }
    }
    PodWatchTimes.place(watched, config.getDuration(StreamsAppConfig.GRACE).toMillis())
        .forEach(o -> inputs.add(records.pod(o)));
    int renamed = 0;
    for (ClusterEvent e : events) {
      // A recording put together from several captures may name a pod in an event otherwise than
      // the pod itself (another namespace, no name): the UID is the pod; its name decides the
      // partition, so the event takes the name of the pod with its UID.
      PodName pod = podNames.get(e.getRegarding().getUid());
      if (pod != null && !pod.equals(PodName.regardedBy(e))) {
        e.getRegarding().setNamespace(pod.namespace());
        e.getRegarding().setName(pod.name());
        renamed++;
      }
      if (PodName.regardedBy(e) == null) {
        unusable.add(
            "event-without-pod-name", e.getReason() + " for pod " + e.getRegarding().getUid());
        continue;
      }
      inputs.add(records.event(e));
    }
    if (renamed > 0) {
      say(
          "%d event(s) named their pod otherwise than the pod of their UID in the recording; matched"
              + " by UID",
          renamed);
    }
    Map<String, String> scrapes = new TreeMap<>();
    for (String file : config.getList(ReplayConfig.DCGM)) {
      scrapes.put(file, readFile(file));
    }
    RecordedScrapes.readAll(scrapes, unusable)
        .forEach(s -> inputs.add(records.gpuSample(s.key(), s.sample())));
    RequestLogParser requests =
        new RequestLogParser(
            FieldMapping.parse(config.getList(CollectorConfig.INTAKE_FIELD_MAPPING)),
            InputBounds.anyTime());
    for (String file : config.getList(ReplayConfig.REQUESTS)) {
      for (String line : readFile(file).split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        RequestLogParser.Parsed parsed = requests.parseLine(line, System.currentTimeMillis());
        if (parsed instanceof RequestLogParser.Accepted a) {
          inputs.add(records.requestLog(a.log(), null));
        } else if (parsed instanceof RequestLogParser.Rejected r) {
          unusable.add("request-" + r.reason(), r.detail());
        }
      }
    }
    return inputs;
  }

  private static void event(
      ClusterEvent e, List<ClusterEvent> events, Unusable unusable, String file) {
    if (!EventProjection.isAboutPod(e)) {
      unusable.add("event-not-about-a-pod", e.getRegarding().getKind() + " " + e.getReason());
      return;
    }
    if (e.getRegarding().getUid() == null) {
      unusable.add("event-without-pod-uid", file);
      return;
    }
    // The live collector stamps the time it saw the event; the event's own time stands in. An
    // event with no time at all (no eventTime, series or timestamps) cannot be placed.
    long at = EventTimes.of(e);
    if (at <= 0) {
      unusable.add("event-without-time", file + ": " + e.getReason());
      return;
    }
    e.setObservedAt(at);
    events.add(e);
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

  /**
   * Produces the inputs in event-time order, a slice of event time at a time (one grace period by
   * default), each slice followed by a progress mark on every partition of every input topic, as
   * the collector marks what it has read; after the last slice, a mark that ends the input, so that
   * every final timeline due goes out. The marks, not the pacing, decide what the streams app
   * computes: the slice size changes how fast a replay runs, never what it says.
   */
  private void produce(
      Map<String, Object> kafka, Topics topics, Records records, List<Outgoing> inputs)
      throws Exception {
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    int partitions = config.getInt(ReplayConfig.PARTITIONS);
    long slice = config.getDuration(ReplayConfig.SLICE).toMillis();
    if (slice <= 0) {
      slice = Math.max(1000, config.getDuration(StreamsAppConfig.GRACE).toMillis());
    }
    long deadline = System.nanoTime() + config.getDuration(ReplayConfig.TIMEOUT).toNanos();
    long nextReport = System.nanoTime() + 5_000_000_000L;
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        Admin admin = Admin.create(kafka)) {
      long seed = config.getLong(ReplayConfig.SHUFFLE);
      Random shuffle = seed == 0 ? null : new Random(seed);
      int i = 0;
      while (i < inputs.size()) {
        long end = inputs.get(i).eventTime() + slice;
        List<Outgoing> batch = new ArrayList<>();
        while (i < inputs.size() && inputs.get(i).eventTime() < end) {
          batch.add(inputs.get(i++));
        }
        if (shuffle != null) {
          // Any order within a slice is one a collector may deliver: the slice's mark follows.
          Collections.shuffle(batch, shuffle);
        }
        for (Outgoing o : batch) {
          producer.send(ProducerRecords.data(o, partitions));
        }
        mark(producer, records, end - 1, partitions);
        producer.flush();
        while (inputLag(admin, topics, partitions) != 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "the streams app did not keep up within --timeout "
                    + config.getString(ReplayConfig.TIMEOUT)
                    + "; raise it for a large recording");
          }
          Thread.sleep(10);
        }
        if (System.nanoTime() > nextReport) {
          say("replayed up to %s: %,d of %,d records", Instant.ofEpochMilli(end), i, inputs.size());
          nextReport = System.nanoTime() + 5_000_000_000L;
        }
      }
      mark(producer, records, ProgressMarks.END, partitions);
      producer.flush();
    }
  }

  private static void mark(
      KafkaProducer<byte[], byte[]> producer, Records records, long time, int partitions) {
    for (String topic : records.markedTopics()) {
      for (var r :
          ProducerRecords.of(
              records.mark(topic, time, System.currentTimeMillis(), PRODUCER), partitions)) {
        producer.send(r);
      }
    }
  }

  /**
   * Reads the timelines until the streams app has consumed every input (the last mark ended the
   * input, so every final due is out) and nothing new has come for a moment.
   */
  private Map<String, PodTimeline> awaitTimelines(
      Map<String, Object> kafka, Topics topics, Duration timeout) throws Exception {
    Map<String, PodTimeline> latest = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastNews = System.nanoTime();
    long nextReport = System.nanoTime() + 5_000_000_000L;
    try (KafkaConsumer<String, PodTimeline> consumer =
            TopicConsumers.fromBeginning(kafka, topics.podTimelines);
        Admin admin = Admin.create(kafka)) {
      while (System.nanoTime() < deadline) {
        boolean news = false;
        for (ConsumerRecord<String, PodTimeline> r : consumer.poll(Duration.ofMillis(250))) {
          if (r.value() != null) {
            latest.put(r.key(), r.value());
            news = true;
          }
        }
        if (news) {
          lastNews = System.nanoTime();
        }
        long lag = inputLag(admin, topics, config.getInt(ReplayConfig.PARTITIONS));
        if (lag == 0 && System.nanoTime() - lastNews > QUIET.toNanos()) {
          break;
        }
        if (System.nanoTime() > nextReport) {
          say(
              "streams app: %,d input records still to process, %d pod timelines so far",
              Math.max(lag, 0), latest.size());
          nextReport = System.nanoTime() + 5_000_000_000L;
        }
      }
    }
    return latest;
  }

  /**
   * Records of the input topics the streams app has not committed yet. The stages' own topics are
   * not counted: they carry watermarks all the time.
   */
  private static long inputLag(Admin admin, Topics topics, int partitions) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(APPLICATION_ID).partitionsToOffsetAndMetadata().get();
    List<String> inputs =
        List.of(
            topics.pods.name(),
            topics.events.name(),
            topics.gpuSamples.name(),
            topics.requests.name());
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    for (String topic : inputs) {
      for (int p = 0; p < partitions; p++) {
        ask.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
    }
    long lag = 0;
    for (var e : admin.listOffsets(ask).all().get().entrySet()) {
      OffsetAndMetadata done = committed.get(e.getKey());
      long end = e.getValue().offset();
      long position = done == null ? 0 : done.offset();
      lag += Math.max(0, end - position);
    }
    return lag;
  }

  /**
   * Closes the timelines of the pods the recording ended on (running, pending, or finished but not
   * deleted, as a Job's pods stay until their Job goes): final, marked {@link #END_OF_RECORDING},
   * their numbers as of their latest input; published to the pod-timelines topic after the streams
   * app stopped, so that {@code export} and {@code report --from kafka} over the replay's topics
   * see them as the files do. Returns how many.
   */
  private static int closeAtEndOfRecording(
      Map<String, Object> kafka, Topics topics, Map<String, PodTimeline> timelines) {
    Map<String, PodTimeline> cut = new TreeMap<>();
    timelines.forEach(
        (uid, t) -> {
          if (!t.getFinal$()) {
            cut.put(uid, endOfRecording(t));
          }
        });
    if (cut.isEmpty()) {
      return 0;
    }
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<String, PodTimeline> producer =
        new KafkaProducer<>(
            p, new StringSerializer(), AvroSerde.of(PodTimeline.class).serializer())) {
      cut.forEach(
          (uid, t) ->
              producer.send(
                  new ProducerRecord<>(
                      topics.podTimelines.name(), null, t.getUpdatedAt(), uid, t)));
      producer.flush();
    }
    timelines.putAll(cut);
    return cut.size();
  }

  /** The final timeline of a pod the recording ended on. */
  static PodTimeline endOfRecording(PodTimeline t) {
    return PodTimeline.newBuilder(t).setFinal$(true).setEndedBy(END_OF_RECORDING).build();
  }

  private ExperimentReport write(
      Map<String, PodTimeline> timelines,
      Map<String, WorkloadTimeline> workloads,
      Conditions conditions,
      Map<String, Integer> produced,
      Unusable unusable,
      InputGaps gaps,
      Path dir)
      throws IOException {
    List<PodTimeline> ordered = TimelinesFile.write(dir, timelines.values());
    String experiment =
        ordered.stream()
            .map(PodTimeline::getExperiment)
            .filter(e -> e != null)
            .findFirst()
            .orElse("replay");
    ExperimentReport report =
        ExperimentReport.of(
                experiment,
                ordered.stream().map(PodFacts::of).toList(),
                config.getDuration(StreamsAppConfig.STARVATION_PENDING).toMillis(),
                workloads.values())
            .withConditions(conditions);
    StringBuilder intro = new StringBuilder(gaps.markdown());
    if (!gaps.isEmpty()) {
      intro.append('\n');
    }
    intro.append("Replay of recorded data: ");
    intro.append(String.join(", ", config.getList(ReplayConfig.PODS)));
    if (!config.getList(ReplayConfig.EVENTS).isEmpty()) {
      intro.append(" and ").append(String.join(", ", config.getList(ReplayConfig.EVENTS)));
    }
    intro.append(".\n\nInputs used: ").append(produced).append(". ");
    intro.append(
        unusable.isEmpty() ? "Nothing unusable." : "Unusable input: " + unusable.counts() + ".");
    if (!gaps.deadLetters().isEmpty()) {
      intro.append(" Dead-lettered by the streams app: ").append(gaps.deadLetters()).append('.');
    }
    long cut =
        timelines.values().stream().filter(t -> END_OF_RECORDING.equals(t.getEndedBy())).count();
    if (cut > 0) {
      intro.append(
          String.format(
              " %d pods were still there when the recording ended: their timelines are closed"
                  + " there (`endedBy: %s`), their numbers as of their latest recorded input.",
              cut, END_OF_RECORDING));
    }
    ReportWriter.writeAll(dir, report, intro.toString(), config.getList(ReplayConfig.GUARDRAILS));
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("inputs", produced);
    summary.put("unusable", unusable.counts());
    summary.put("unusableExamples", unusable.examples());
    summary.put("deadLetters", gaps.deadLetters());
    summary.putAll(gaps.toSummary());
    summary.put("pods", timelines.size());
    summary.put(
        "finalTimelines", timelines.values().stream().filter(PodTimeline::getFinal$).count());
    summary.put("endedByEndOfRecording", cut);
    Files.writeString(
        dir.resolve(InputGaps.REPLAY_SUMMARY),
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary) + "\n");
    return report;
  }

  private static String readFile(String file) throws IOException {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw new ConfigException("cannot read " + file + ": give an existing, readable file");
    }
    return Files.readString(p, StandardCharsets.UTF_8);
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
