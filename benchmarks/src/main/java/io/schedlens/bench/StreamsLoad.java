package io.schedlens.bench;

import io.schedlens.avro.PodSeries;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import io.schedlens.topology.CompressedSerde;
import io.schedlens.topology.TimelineTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Load commands for the whole streams app on the embedded broker, exactly-once on, each app
 * instance in its own JVM.
 *
 * <pre>
 * java -cp "benchmarks/target/schedlens-benchmarks.jar:benchmarks/target/lib/*" io.schedlens.bench.StreamsLoad fleet [pods=300] [rps=10] [instances=1] [partitions=2] [app args...]
 * java -cp ... io.schedlens.bench.StreamsLoad throughput [pods=5000] [-] [instances=1] [partitions=2] [app args...]
 * java -cp ... io.schedlens.bench.StreamsLoad latency [seconds=300] [recordsPerSecond=10000] [instances=1] [partitions=2]
 * </pre>
 *
 * <p>throughput: a backlog of {@code pods} pod lives ({@link LoadShape}: 96 % GPU samples and
 * requests, the collector's progress marks) is produced first, timed (the raw produce rate of the
 * broker on this machine), read back by a plain consumer (the raw consume rate), then the app is
 * started and timed from 10 % to 90 % of the inputs consumed. Prints the app's rate and its ratio
 * to the raw produce rate, the rate of each stage's output, the app's CPU time (records per busy
 * core), and the state kept per live pod. Then the engine's floor ({@link FloorApp}) reads the same
 * backlog with the same settings, and the app's rate is printed as a share of the floor's.
 *
 * <p>latency: inputs produced live at the given rate in the fleet's mix (per pod and second 10
 * requests and a DCGM sample; one record in a hundred a pod change; progress marks every second);
 * for every pod change, the time from producing it to reading the updated timeline from
 * schedlens.pod-timelines (read_committed). Prints every 10 s window and the worst window after the
 * first 30 s.
 *
 * <p>fleet: the throughput of a serving fleet's backlog, then the engine floor on it ({@link
 * FloorApp}), then (on a fresh broker) 120 s of latency at 10,000 records/s ({@code
 * -Dfleet.latency.seconds=0} skips it).
 */
public final class StreamsLoad {

  private StreamsLoad() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "fleet";
    int instances = arg(args, 3, 1);
    int partitions = arg(args, 4, 2);
    List<String> appArgs = new ArrayList<>();
    for (int i = 5; i < args.length; i++) {
      appArgs.add(args[i]);
    }
    // A backlog's event times end before now, and none is a day old: a broker refuses a record an
    // hour or more ahead of its clock (log.message.timestamp.after.max.ms), and forgets a producer
    // whose last record's time is older than a day (producer.id.expiration.ms), after which the
    // app's transactional writes fail; the sparse backlog of 20,000 lives spans 17 hours.
    long t0 = ((System.currentTimeMillis() - Duration.ofHours(18).toMillis()) / 1000) * 1000;
    switch (mode) {
      case "latency" -> {
        try (EmbeddedKafkaBroker broker = broker(partitions)) {
          LatencyLoad.run(
              broker, arg(args, 1, 300), arg(args, 2, 10_000), instances, partitions, appArgs);
        }
      }
      case "fleet" -> {
        int pods = arg(args, 1, 300);
        int rps = arg(args, 2, 10);
        System.out.printf(
            "a serving fleet: %,d pod lives of 10 min, 2 s apart, %d requests/s and a DCGM sample"
                + " a second each%n",
            pods, rps);
        try (EmbeddedKafkaBroker broker = broker(partitions)) {
          LoadShape shape = new LoadShape(Topics.defaults());
          throughput(
              broker,
              sink -> shape.fleet(pods, t0, 2_000, rps, sink),
              instances,
              partitions,
              appArgs);
        }
        // The same run's latency, on a fresh broker: the fleet's mix produced live.
        int seconds = Integer.getInteger("fleet.latency.seconds", 120);
        if (seconds > 0) {
          try (EmbeddedKafkaBroker broker = broker(partitions)) {
            LatencyLoad.run(broker, seconds, 10_000, instances, partitions, appArgs);
          }
        }
      }
      default -> {
        int pods = arg(args, 1, 5000);
        System.out.printf(
            "the sparse backlog of the first releases: %,d pod lives of 10 min, 3 s apart, 100"
                + " requests and 40 DCGM samples each%n",
            pods);
        try (EmbeddedKafkaBroker broker = broker(partitions)) {
          LoadShape shape = new LoadShape(Topics.defaults());
          throughput(
              broker,
              sink -> {
                List<Outgoing> all = shape.backlog(pods, t0, 3_000);
                all.forEach(sink);
                return all.size();
              },
              instances,
              partitions,
              appArgs);
        }
      }
    }
  }

  /** A broker with schedlens' topics. */
  private static EmbeddedKafkaBroker broker(int partitions) throws Exception {
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
    broker.createTopics(Topics.defaults().newTopics(partitions, (short) 1));
    return broker;
  }

  private static int arg(String[] args, int i, int fallback) {
    return args.length > i ? Integer.parseInt(args[i]) : fallback;
  }

  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.LINGER_MS_CONFIG,
            5,
            ProducerConfig.BATCH_SIZE_CONFIG,
            256 * 1024,
            ProducerConfig.COMPRESSION_TYPE_CONFIG,
            "lz4"),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /** The topics the app consumes from outside (their progress marks included). */
  static List<String> inputs(Topics t) {
    return List.of(
        t.pods.name(), t.events.name(), t.gpuSamples.name(), t.requests.name(), t.workloads.name());
  }

  // ------------------------------------------------------------------ throughput

  /** Something that hands the load's records to a sink, in order. */
  interface Load {
    long produce(Consumer<Outgoing> sink) throws Exception;
  }

  static void throughput(
      EmbeddedKafkaBroker broker, Load load, int instances, int partitions, List<String> appArgs)
      throws Exception {
    Topics topics = Topics.defaults();
    long start = System.nanoTime();
    long[] counts = Backlogs.produce(broker, load, partitions);
    long records = counts[0];
    long bytes = counts[1];
    double produceSecs = (System.nanoTime() - start) / 1e9;
    double produceRate = records / produceSecs;
    System.out.printf(
        "raw broker produce (one producer, lz4, acks=all), generating as it goes: %,d records"
            + " (%,d inputs, the rest progress marks), %.1f MB in %.1f s: %,.0f records/s, %.1f"
            + " MB/s%n",
        records, counts[2], bytes / 1e6, produceSecs, produceRate, bytes / 1e6 / produceSecs);

    start = System.nanoTime();
    long read = readAll(broker.bootstrapServers(), inputs(topics), partitions);
    double consumeSecs = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "raw broker consume (one consumer): %,d records in %.1f s: %,.0f records/s%n",
        read, consumeSecs, read / consumeSecs);

    String appId = "load-" + UUID.randomUUID();
    List<String> internal =
        List.of(topics.toPod.name(), topics.byWorkload.name(), topics.byNode.name());
    List<String> outputs = List.of(topics.podTimelines.name(), topics.workloadTimelines.name());
    Run app;
    try (Admin admin = broker.admin();
        AppInstances instancesOfApp =
            new AppInstances(broker.bootstrapServers(), appId, instances, "768m", appArgs)) {
      app = measure(admin, instancesOfApp, appId, partitions, topics, records, internal, outputs);
      System.out.printf(
          "streams app, %d instance(s) on %d partitions, exactly-once: all %,d input records in"
              + " %.1f s from start; steady (10%% to 90%% of the inputs): %,.0f input records/s ="
              + " %.0f %% of the raw produce rate%n",
          instances, partitions, records, app.total(), app.rate(), 100 * app.rate() / produceRate);
      System.out.printf(
          "  per stage over that window: pod stage %,.0f inputs/s in; internal topics %,.0f"
              + " records/s; outputs (pod and workload timelines) %,.0f records/s%n",
          app.rate(), app.internalRate(), app.outputRate());
      System.out.printf(
          "  app CPU: %.1f of %.1f s (%.2f cores busy; the JIT compilers %.1f s of it): %,.0f input"
              + " records per app CPU-second%n",
          app.cpu(), app.window(), app.cpu() / app.window(), app.jit(), app.perCpuSecond());
      Thread.sleep(3000);
      stateSize(broker.bootstrapServers(), appId, records);
      ChangelogWrites.print(admin, broker.bootstrapServers(), appId, records);
    }

    floors(broker, instances, partitions, appArgs, topics, records, produceRate, app);
  }

  /**
   * The engine's floor on the same backlog, same settings and JVM options (FloorApp); then the same
   * with every value decoded, which tells the decoding's share of the gap.
   */
  private static void floors(
      EmbeddedKafkaBroker broker,
      int instances,
      int partitions,
      List<String> appArgs,
      Topics topics,
      long records,
      double produceRate,
      Run app)
      throws Exception {
    // The engine's floor on the same backlog, same settings and JVM options (FloorApp); then the
    // same with every value decoded, which tells the decoding's share of the gap.
    broker.createTopics(List.of(new NewTopic(FloorApp.OUTPUT, partitions, (short) 1)));
    Run floor = null;
    for (Class<?> main : List.of(FloorApp.class, FloorApp.Decoding.class)) {
      String floorId = "floor-" + main.getSimpleName() + "-" + UUID.randomUUID();
      try (Admin admin = broker.admin();
          AppInstances floorApp =
              new AppInstances(
                  main, broker.bootstrapServers(), floorId, instances, "768m", appArgs)) {
        Run run =
            measure(
                admin,
                floorApp,
                floorId,
                partitions,
                topics,
                records,
                List.of(),
                List.of(FloorApp.OUTPUT));
        if (floor == null) {
          floor = run;
          System.out.printf(
              "engine floor (FloorApp: a count per pod and second in RocksDB, a record per pod and"
                  + " minute, exactly-once), same backlog and settings: %,.0f input records/s ="
                  + " %.0f %% of the raw produce rate; %,.0f per CPU-second (the JIT compilers %.1f"
                  + " of %.1f CPU-seconds)%n",
              run.rate(), 100 * run.rate() / produceRate, run.perCpuSecond(), run.jit(), run.cpu());
        } else {
          System.out.printf(
              "the floor decoding every value (FloorApp.Decoding): %,.0f input records/s = %.2f"
                  + " of the engine floor; %,.0f per CPU-second%n",
              run.rate(), run.rate() / floor.rate(), run.perCpuSecond());
          System.out.printf(
              "schedlens: %,.0f input records/s = %.2f of the engine floor, %.2f of the decoding"
                  + " floor, %.2f of raw; per CPU-second %.2f of the engine floor's%n",
              app.rate(),
              app.rate() / floor.rate(),
              app.rate() / run.rate(),
              app.rate() / produceRate,
              app.perCpuSecond() / floor.perCpuSecond());
        }
      }
    }
  }

  /** One application's run over the backlog, timed from 10 % to 90 % of the inputs consumed. */
  record Run(
      double total,
      double window,
      double rate,
      double internalRate,
      double outputRate,
      double cpu,
      double perCpuSecond,
      double jit) {}

  static Run measure(
      Admin admin,
      AppInstances app,
      String appId,
      int partitions,
      Topics topics,
      long records,
      List<String> internal,
      List<String> outputs)
      throws Exception {
    GroupProgress progress = new GroupProgress(admin, appId, partitions);
    long start = System.nanoTime();
    double[] at10 = null;
    double[] at90 = null;
    long lastReport = 0;
    while (true) {
      Thread.sleep(500);
      if (!app.allAlive()) {
        throw new IllegalStateException(
            appId + ": an instance exited before reading the backlog; see its app.log");
      }
      long done = progress.consumed(inputs(topics));
      double secs = (System.nanoTime() - start) / 1e9;
      double[] now = {
        secs,
        done,
        internal.isEmpty() ? 0 : progress.written(internal),
        progress.written(outputs),
        app.cpuSeconds(),
        app.compilerCpuSeconds()
      };
      if (at10 == null && done >= records * 0.10) {
        at10 = now;
      }
      if (at90 == null && done >= records * 0.90) {
        at90 = now;
      }
      if (secs - lastReport >= 5) {
        System.out.printf(
            "  %.0f s: %,d of %,d input records consumed; CPU %.0f s%n",
            secs, done, records, now[4]);
        lastReport = (long) secs;
      }
      if (done >= records) {
        break;
      }
    }
    double window = at90[0] - at10[0];
    double cpu = at90[4] - at10[4];
    return new Run(
        (System.nanoTime() - start) / 1e9,
        window,
        (at90[1] - at10[1]) / window,
        (at90[2] - at10[2]) / window,
        (at90[3] - at10[3]) / window,
        cpu,
        (at90[1] - at10[1]) / cpu,
        at90[5] - at10[5]);
  }

  /** Reads every record of the topics from the beginning; returns how many. */
  static long readAll(String bootstrap, List<String> topics, int partitions) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                5000,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                64 * 1024 * 1024),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      topics.forEach(t -> tps.addAll(partitionsOf(t, partitions)));
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      long n = 0;
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        n += c.poll(Duration.ofMillis(200)).count();
      }
      return n;
    }
  }

  static List<TopicPartition> partitionsOf(String topic, int partitions) {
    List<TopicPartition> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  /**
   * The pod stage's state per live pod, from its changelogs (the latest value per key): its state
   * in {@code pods-by-name} and its closed series points in {@code pod-series}, both counted, as
   * stored (compressed) and uncompressed.
   */
  static void stateSize(String bootstrap, String appId, long inputs) {
    Changelog names = Changelog.read(bootstrap, appId + "-pods-by-name-changelog");
    Changelog closedPoints = Changelog.read(bootstrap, appId + "-pod-series-changelog");
    System.out.printf(
        "pod state written (changelogs, keys and values): pods-by-name %,d records, %.1f MB;"
            + " pod-series %,d records, %.1f MB; %.0f bytes per input record%n",
        names.records(),
        names.bytes() / 1e6,
        closedPoints.records(),
        closedPoints.bytes() / 1e6,
        (names.bytes() + closedPoints.bytes()) / (double) inputs);
    Map<String, byte[]> closedByUid = closedPoints.latest();
    CompressedSerde<PodsOfName> pods = TimelineTopology.podsSerde();
    CompressedSerde<ClosedPoints> closedSerde = TimelineTopology.closedPointsSerde();
    AvroSerde<TimelineState> states = AvroSerde.of(TimelineState.class);
    AvroSerde<PodSeries> series = AvroSerde.of(PodSeries.class);
    List<Double> perPod = new ArrayList<>();
    long plainBytes = 0;
    long seriesBytes = 0;
    long closedBytes = 0;
    long sketchBytes = 0;
    for (byte[] v : names.latest().values()) {
      // a value's stored bytes, shared among its pods by their uncompressed sizes
      PodsOfName p = pods.deserialize("", v);
      int[] plain = new int[p.getPods().size()];
      long all = 0;
      for (int i = 0; i < plain.length; i++) {
        plain[i] = states.serialize("", p.getPods().get(i)).length;
        all += plain[i];
      }
      for (int i = 0; i < plain.length; i++) {
        TimelineState s = p.getPods().get(i);
        byte[] closed = s.getSeriesStored() > 0 ? closedByUid.get(s.getUid()) : null;
        perPod.add((double) v.length * plain[i] / all + (closed == null ? 0 : closed.length));
        plainBytes += plain[i];
        if (closed != null) {
          int closedPlain = closedSerde.plain("", closed).length;
          closedBytes += closedPlain;
          plainBytes += closedPlain;
        }
        if (s.getSeries() != null) {
          seriesBytes += series.serialize("", s.getSeries()).length - 10; // less its header
        }
        if (s.getServing().getLatencySketch() != null) {
          sketchBytes += s.getServing().getLatencySketch().remaining();
        }
      }
    }
    Collections.sort(perPod);
    if (!perPod.isEmpty()) {
      int n = perPod.size();
      System.out.printf(
          "state of %,d live pods as stored (compressed): mean %,d bytes, p99 %,d bytes, max %,d"
              + " bytes per pod%n",
          n,
          Math.round(perPod.stream().mapToDouble(Double::doubleValue).average().orElse(0)),
          Math.round(perPod.get((int) (n * 0.99))),
          Math.round(perPod.get(n - 1)));
      System.out.printf(
          "  uncompressed %,d bytes, of which the series %,d bytes (%,d of them closed points, in"
              + " pod-series), the latency sketch %,d bytes (means); %,d pods with closed points%n",
          plainBytes / n,
          (seriesBytes + closedBytes) / n,
          closedBytes / n,
          sketchBytes / n,
          closedByUid.size());
    }
  }

  /** A changelog read to its end (read committed): its latest value per key, what was written. */
  record Changelog(Map<String, byte[]> latest, long records, long bytes) {

    static Changelog read(String bootstrap, String changelog) {
      Map<String, byte[]> latest = new HashMap<>();
      long[] written = new long[2];
      each(
          bootstrap,
          changelog,
          r -> {
            written[0]++;
            written[1] += r.serializedKeySize() + Math.max(0, r.serializedValueSize());
            if (r.value() == null) {
              latest.remove(r.key());
            } else {
              latest.put(r.key(), r.value());
            }
          });
      return new Changelog(latest, written[0], written[1]);
    }

    /** Hands every record of the changelog, from its beginning, read committed, to {@code each}. */
    static void each(
        String bootstrap, String changelog, Consumer<ConsumerRecord<String, byte[]>> each) {
      try (KafkaConsumer<String, byte[]> c =
          new KafkaConsumer<>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  bootstrap,
                  ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                  "read_committed",
                  ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                  5000),
              new StringDeserializer(),
              new ByteArrayDeserializer())) {
        c.assign(TopicConsumers.partitions(c, changelog));
        c.seekToBeginning(c.assignment());
        TopicConsumers.readToEnd(c, each);
      }
    }
  }

  static long pct(List<Long> sorted, double q) {
    return sorted.isEmpty()
        ? 0
        : sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * (sorted.size() - 1))));
  }
}
