package io.schedlens.bench;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.ObjectReference;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.streams.topology.TimelineTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;

/**
 * Load commands for the whole streams app on the embedded broker, exactly-once on.
 *
 * <pre>
 * java -cp "benchmarks/target/schedlens-benchmarks.jar:benchmarks/target/lib/*" io.schedlens.bench.StreamsLoad throughput [pods=5000]
 * java -cp ... io.schedlens.bench.StreamsLoad latency [seconds=60] [recordsPerSecond=10000]
 * </pre>
 *
 * <p>throughput: a backlog of inputs for {@code pods} pod lives (observations, scheduler events,
 * GPU samples every 15 s, requests) is produced first, then the app is started and timed until it
 * has consumed every input and internal record; also reports the state size per live pod.
 *
 * <p>latency: inputs are produced live at the given rate (mostly GPU samples and requests, as on a
 * real cluster, one in ten a pod change); for every pod change, the time from producing it to
 * reading the updated timeline from schedlens.pod-timelines (read_committed) is measured.
 */
public final class StreamsLoad {

  private static final AvroSerde<PodObservation> PODS = AvroSerde.of(PodObservation.class);
  private static final AvroSerde<ClusterEvent> EVENTS = AvroSerde.of(ClusterEvent.class);
  private static final AvroSerde<GpuSample> SAMPLES = AvroSerde.of(GpuSample.class);
  private static final AvroSerde<RequestLog> REQUESTS = AvroSerde.of(RequestLog.class);

  private StreamsLoad() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "throughput";
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      Topics topics = Topics.defaults();
      broker.createTopics(topics.newTopics(2, (short) 1));
      if (mode.equals("latency")) {
        latency(
            broker,
            topics,
            args.length > 1 ? Integer.parseInt(args[1]) : 60,
            args.length > 2 ? Integer.parseInt(args[2]) : 10_000);
      } else {
        throughput(broker, topics, args.length > 1 ? Integer.parseInt(args[1]) : 5000);
      }
    }
  }

  static String appId;

  static StreamsApp app(EmbeddedKafkaBroker broker, Path state) {
    appId = "load-" + UUID.randomUUID();
    return StreamsApp.start(
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                withExtra(
                    List.of(
                        "--state-dir",
                        state.toString(),
                        "--http-port",
                        "0",
                        "--slo",
                        "chat=800",
                        "--application-id",
                        appId)),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()))));
  }

  /** Extra streams-app settings from the system property schedlens.load.args (space-separated). */
  static List<String> withExtra(List<String> args) {
    List<String> all = new ArrayList<>(args);
    String extra = System.getProperty("schedlens.load.args", "").trim();
    if (!extra.isEmpty()) {
      all.addAll(List.of(extra.split("\\s+")));
    }
    return all;
  }

  // ------------------------------------------------------------------ throughput

  static void throughput(EmbeddedKafkaBroker broker, Topics topics, int pods) throws Exception {
    long t0 = System.currentTimeMillis() - Duration.ofHours(6).toMillis();
    System.out.printf("producing a backlog for %,d pod lives ...%n", pods);
    long produced = 0;
    try (KafkaProducer<String, byte[]> producer = producer(broker)) {
      for (int p = 0; p < pods; p++) {
        produced += life(producer, topics, p, t0 + p * 3_000L, true);
      }
      producer.flush();
    }
    System.out.printf("produced %,d input records; starting the streams app%n", produced);
    Path state = Files.createTempDirectory("schedlens-load-");
    long start = System.nanoTime();
    try (StreamsApp app = app(broker, state)) {
      long lastReport = 0;
      int caughtUp = 0;
      double at10 = -1;
      double at90 = -1;
      while (true) {
        Thread.sleep(500);
        long[] lag = lag(broker, topics);
        double secs = (System.nanoTime() - start) / 1e9;
        double done = 1.0 - lag[0] / (double) produced;
        if (at10 < 0 && done >= 0.10) {
          at10 = secs;
        }
        if (at90 < 0 && done >= 0.90) {
          at90 = secs;
        }
        if (secs - lastReport >= 5) {
          System.out.printf(
              "  %.0f s: %,d input and %,d internal records to process%n", secs, lag[0], lag[1]);
          lastReport = (long) secs;
        }
        // Watermarks keep the internal topics a few dozen records ahead of the last commit.
        caughtUp = lag[0] == 0 && lag[1] < 200 ? caughtUp + 1 : 0;
        if (caughtUp >= 3) {
          break;
        }
      }
      double secs = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "processed %,d input records in %.1f s from start (with warm-up): %,.0f records/s; steady rate (10%% to 90%% of the inputs): %,.0f input records/s through the whole topology, exactly-once%n",
          produced, secs, produced / secs, produced * 0.8 / (at90 - at10));
      stateSize(app);
    }
  }

  /** Records still to read by the app: on the input topics, and on the internal ones. */
  static long[] lag(EmbeddedKafkaBroker broker, Topics topics) throws Exception {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get();
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      List<String> inputs =
          List.of(
              topics.pods.name(),
              topics.events.name(),
              topics.gpuSamples.name(),
              topics.requests.name());
      for (var t :
          List.of(
              topics.pods,
              topics.events,
              topics.gpuSamples,
              topics.requests,
              topics.toPod,
              topics.byWorkload,
              topics.byNode,
              topics.podTimelines)) {
        for (int p = 0; p < 2; p++) {
          ends.put(new TopicPartition(t.name(), p), OffsetSpec.latest());
        }
      }
      long[] lag = new long[2];
      for (var e : admin.listOffsets(ends).all().get().entrySet()) {
        OffsetAndMetadata c = committed.get(e.getKey());
        long diff = e.getValue().offset() - (c == null ? 0 : c.offset());
        // A transaction marker takes an offset: one left over is caught up.
        lag[inputs.contains(e.getKey().topic()) ? 0 : 1] += diff > 1 ? diff : 0;
      }
      return lag;
    }
  }

  static void stateSize(StreamsApp app) {
    var store =
        app.streams()
            .store(
                StoreQueryParameters.fromNameAndType(
                    TimelineTopology.PODS_BY_NAME_STORE,
                    QueryableStoreTypes.<String, PodsOfName>keyValueStore()));
    AvroSerde<PodsOfName> serde = AvroSerde.of(PodsOfName.class);
    List<Integer> sizes = new ArrayList<>();
    try (KeyValueIterator<String, PodsOfName> it = store.all()) {
      it.forEachRemaining(kv -> sizes.add(serde.serialize("", kv.value).length));
    }
    Collections.sort(sizes);
    if (!sizes.isEmpty()) {
      System.out.printf(
          "state of %,d live pods: mean %,d bytes, p99 %,d bytes, max %,d bytes per pod%n",
          sizes.size(),
          (int) sizes.stream().mapToInt(Integer::intValue).average().orElse(0),
          sizes.get((int) (sizes.size() * 0.99)),
          sizes.get(sizes.size() - 1));
    }
  }

  /**
   * One pod's life: observed, failed scheduling, scheduled, running, Ready, 40 GPU samples (ten
   * minutes) and 100 requests; two in three go away at the end (the rest stay live).
   */
  static long life(
      KafkaProducer<String, byte[]> producer, Topics topics, int p, long t, boolean end) {
    String uid = "u-" + p;
    String name = "chat-5d8f7-" + p;
    long n = 0;
    PodObservation.Builder b =
        PodObservation.newBuilder()
            .setUid(uid)
            .setNamespace("ai-lab")
            .setName(name)
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(t)
            .setCreatedAt(t)
            .setGpus(1)
            .setPriorityClassName(p % 3 == 0 ? "interactive" : "batch-low")
            .setPriority(1000)
            .setOwner(new OwnerReference("ReplicaSet", "chat-5d8f7", "rs"))
            .setPhase("Pending")
            .setResourceVersion(Integer.toString(p * 10))
            .setLabels(
                Map.of(
                    "pod-template-hash",
                    "5d8f7",
                    "schedlens.io/arm",
                    p % 2 == 0 ? "control" : "treatment"))
            .setConditions(
                List.of(new PodCondition("PodScheduled", "False", "Unschedulable", null, t)));
    n += send(producer, topics.pods.name(), uid, t, PODS.serialize("", b.build()));
    ClusterEvent fs =
        ClusterEvent.newBuilder()
            .setUid("fs-" + uid)
            .setApiVersion("events.k8s.io/v1")
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(t + 1000)
            .setReason("FailedScheduling")
            .setNote(
                "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.")
            .setRegarding(ObjectReference.newBuilder().setKind("Pod").setUid(uid).build())
            .setEventTime(t + 1000)
            .build();
    n += send(producer, topics.events.name(), uid, t + 1000, EVENTS.serialize("", fs));
    b.setChangeType(ChangeType.MODIFIED)
        .setObservedAt(t + 5000)
        .setNodeName("gpu-node-" + (p % 4))
        .setResourceVersion(Integer.toString(p * 10 + 1))
        .setConditions(List.of(new PodCondition("PodScheduled", "True", null, null, t + 5000)));
    n += send(producer, topics.pods.name(), uid, t + 5000, PODS.serialize("", b.build()));
    b.setObservedAt(t + 20_000)
        .setPhase("Running")
        .setResourceVersion(Integer.toString(p * 10 + 2))
        .setConditions(
            List.of(
                new PodCondition("PodScheduled", "True", null, null, t + 5000),
                new PodCondition("Ready", "True", null, null, t + 20_000)))
        .setContainers(
            List.of(
                ContainerStatus.newBuilder()
                    .setName("model")
                    .setReady(true)
                    .setRunningStartedAt(t + 8000)
                    .build()));
    n += send(producer, topics.pods.name(), uid, t + 20_000, PODS.serialize("", b.build()));
    for (int i = 0; i < 100; i++) {
      long at = t + 21_000 + i * 5_000L;
      if (i < 40) {
        long st = t + 15_000 + i * 15_000L;
        GpuSample g =
            GpuSample.newBuilder()
                .setTime(st)
                .setNode("gpu-node-" + (p % 4))
                .setGpu("0")
                .setUuid("GPU-" + uid)
                .setNamespace("ai-lab")
                .setPod(name)
                .setContainer("model")
                .setFields(
                    Map.of(
                        "DCGM_FI_DEV_GPU_UTIL",
                        (double) (i * 7 % 100),
                        "DCGM_FI_DEV_FB_USED",
                        70000.0,
                        "DCGM_FI_DEV_POWER_USAGE",
                        300.0,
                        "DCGM_FI_DEV_GPU_TEMP",
                        60.0))
                .build();
        n +=
            send(
                producer, topics.gpuSamples.name(), "ai-lab/" + name, st, SAMPLES.serialize("", g));
      }
      RequestLog r =
          RequestLog.newBuilder()
              .setTime(at)
              .setNamespace("ai-lab")
              .setPod(name)
              .setService("chat")
              .setStatus(i % 20 == 0 ? 503 : 200)
              .setLatencyMs(100.0 + (i * 37 % 900))
              .setRequestId("r-" + p + "-" + i)
              .setReceivedAt(at)
              .build();
      n += send(producer, topics.requests.name(), "ai-lab/" + name, at, REQUESTS.serialize("", r));
    }
    if (end && p % 3 != 0) {
      long gone = t + 620_000;
      b.setChangeType(ChangeType.DELETED)
          .setObservedAt(gone)
          .setResourceVersion(Integer.toString(p * 10 + 3))
          .setContainers(
              List.of(
                  ContainerStatus.newBuilder()
                      .setName("model")
                      .setTerminatedStartedAt(t + 8000)
                      .setTerminatedFinishedAt(gone)
                      .setTerminatedExitCode(0)
                      .build()));
      n += send(producer, topics.pods.name(), uid, gone, PODS.serialize("", b.build()));
    }
    return n;
  }

  static int send(
      KafkaProducer<String, byte[]> producer, String topic, String key, long ts, byte[] value) {
    producer.send(new ProducerRecord<>(topic, null, ts, key, value));
    return 1;
  }

  static KafkaProducer<String, byte[]> producer(EmbeddedKafkaBroker broker) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            ProducerConfig.LINGER_MS_CONFIG,
            5,
            ProducerConfig.BATCH_SIZE_CONFIG,
            256 * 1024,
            ProducerConfig.COMPRESSION_TYPE_CONFIG,
            "lz4"),
        new StringSerializer(),
        new ByteArraySerializer());
  }

  // ------------------------------------------------------------------ latency

  static void latency(EmbeddedKafkaBroker broker, Topics topics, int seconds, int rate)
      throws Exception {
    Path state = Files.createTempDirectory("schedlens-load-");
    try (StreamsApp app = app(broker, state)) {
      while (app.streams().state() != org.apache.kafka.streams.KafkaStreams.State.RUNNING) {
        Thread.sleep(100);
      }
      List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
      java.util.NavigableMap<Long, List<Long>> windows =
          new java.util.concurrent.ConcurrentSkipListMap<>();
      AtomicBoolean running = new AtomicBoolean(true);
      Map<String, Long> probes = new java.util.concurrent.ConcurrentHashMap<>();
      Thread reader =
          new Thread(
              () -> {
                try (KafkaConsumer<String, PodTimeline> consumer =
                    new KafkaConsumer<>(
                        Map.of(
                            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            broker.bootstrapServers(),
                            ConsumerConfig.GROUP_ID_CONFIG,
                            "latency-" + UUID.randomUUID(),
                            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                            "read_committed",
                            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                            "latest"),
                        new StringDeserializer(),
                        topics.podTimelines.valueSerde().deserializer())) {
                  consumer.subscribe(List.of(topics.podTimelines.name()));
                  while (running.get()) {
                    for (ConsumerRecord<String, PodTimeline> r :
                        consumer.poll(Duration.ofMillis(20))) {
                      Long sent = probes.remove(r.key() + "@" + r.value().getUpdatedAt());
                      if (sent != null) {
                        long l = System.currentTimeMillis() - sent;
                        latencies.add(l);
                        windows
                            .computeIfAbsent(
                                (sent / 10_000) * 10_000,
                                k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(l);
                      }
                    }
                  }
                }
              });
      reader.start();
      Thread.sleep(2000);
      AtomicLong sentCount = new AtomicLong();
      try (KafkaProducer<String, byte[]> producer = producer(broker)) {
        long start = System.currentTimeMillis();
        long end = start + seconds * 1000L;
        int pods = 500;
        long[] version = new long[pods];
        int i = 0;
        while (System.currentTimeMillis() < end) {
          long now = System.currentTimeMillis();
          long due = start + (sentCount.get() * 1000L) / rate;
          if (now < due) {
            Thread.sleep(Math.max(0, Math.min(5, due - now)));
            continue;
          }
          int p = i % pods;
          String uid = "u-" + p;
          String name = "chat-5d8f7-" + p;
          int kind = i % 10;
          if (kind == 0) {
            // A pod change whose latest fact is "now": its timeline's updatedAt identifies it.
            version[p]++;
            PodObservation o =
                PodObservation.newBuilder()
                    .setUid(uid)
                    .setNamespace("ai-lab")
                    .setName(name)
                    .setChangeType(ChangeType.MODIFIED)
                    .setObservedAt(now)
                    .setCreatedAt(start - 60_000)
                    .setGpus(1)
                    .setPriorityClassName("interactive")
                    .setPriority(100000)
                    .setNodeName("gpu-node-1")
                    .setPhase("Running")
                    .setResourceVersion(Long.toString(version[p]))
                    .setOwner(new OwnerReference("ReplicaSet", "chat-5d8f7", "rs"))
                    .setConditions(
                        List.of(
                            new PodCondition("PodScheduled", "True", null, null, start - 50_000),
                            new PodCondition(
                                "Ready", version[p] % 2 == 0 ? "True" : "False", null, null, now)))
                    .setContainers(
                        List.of(
                            ContainerStatus.newBuilder()
                                .setName("model")
                                .setRestartCount((int) version[p])
                                .setRunningStartedAt(start - 45_000)
                                .build()))
                    .build();
            probes.put(uid + "@" + now, now);
            send(producer, topics.pods.name(), uid, now, PODS.serialize("", o));
          } else if (kind < 6) {
            GpuSample g =
                GpuSample.newBuilder()
                    .setTime(now)
                    .setNode("gpu-node-1")
                    .setGpu("0")
                    .setUuid("GPU-" + uid)
                    .setNamespace("ai-lab")
                    .setPod(name)
                    .setFields(Map.of("DCGM_FI_DEV_GPU_UTIL", 55.0, "DCGM_FI_DEV_FB_USED", 70000.0))
                    .build();
            send(
                producer,
                topics.gpuSamples.name(),
                "ai-lab/" + name,
                now,
                SAMPLES.serialize("", g));
          } else {
            RequestLog r =
                RequestLog.newBuilder()
                    .setTime(now)
                    .setNamespace("ai-lab")
                    .setPod(name)
                    .setService("chat")
                    .setStatus(200)
                    .setLatencyMs(200.0)
                    .setReceivedAt(now)
                    .build();
            send(
                producer, topics.requests.name(), "ai-lab/" + name, now, REQUESTS.serialize("", r));
          }
          sentCount.incrementAndGet();
          i++;
        }
        producer.flush();
        double secs = (System.currentTimeMillis() - start) / 1000.0;
        System.out.printf(
            "produced %,d records in %.0f s: %,.0f records/s%n",
            sentCount.get(), secs, sentCount.get() / secs);
      }
      Thread.sleep(3000);
      running.set(false);
      reader.join();
      windows.forEach(
          (w, l) -> {
            List<Long> ws = new ArrayList<>(l);
            Collections.sort(ws);
            System.out.printf(
                "  10 s window: %,d changes, p50 %d ms, p99 %d ms%n",
                ws.size(), pct(ws, 0.5), pct(ws, 0.99));
          });
      List<Long> sorted = new ArrayList<>(latencies);
      Collections.sort(sorted);
      if (sorted.isEmpty()) {
        System.out.println("no timeline came back");
        return;
      }
      summary("all changes", sorted);
      // The first 20 s include warm-up (JIT compilation, first transactions, RocksDB opening):
      // a long-running app is past it, so the steady state is reported on its own as well.
      long warm = windows.isEmpty() ? 0 : windows.firstKey() + WARM_UP_MS;
      List<Long> steady = new ArrayList<>();
      windows.forEach(
          (w, l) -> {
            if (w >= warm) {
              steady.addAll(l);
            }
          });
      Collections.sort(steady);
      if (!steady.isEmpty()) {
        summary("steady state (after the first 20 s)", steady);
      }
    }
  }

  private static final long WARM_UP_MS = 20_000;

  private static void summary(String what, List<Long> sorted) {
    System.out.printf(
        "pod change -> updated timeline (read_committed), %s, %,d changes: p50 %d ms, p95 %d ms, p99 %d ms, max %d ms%n",
        what,
        sorted.size(),
        pct(sorted, 0.50),
        pct(sorted, 0.95),
        pct(sorted, 0.99),
        sorted.get(sorted.size() - 1));
  }

  static long pct(List<Long> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * (sorted.size() - 1))));
  }
}
