package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.topology.TopologyNames;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Days of churn through the streams app at full speed ({@link SoakInputs}: Deployments deleted and
 * created again under their names every day, Jobs created and deleted, a StatefulSet's pods coming
 * back under the same names): after each virtual day, the entries of every state store, the state
 * directory on disk and the heap. State must follow what lives, not history: at the end of the last
 * day every store holds no more than a small factor more than at the end of the second, with the
 * same number of live pods (none). A Deployment keeps the facts of its latest {@code
 * WorkloadContinuity.MAX_PODS} pods (its timeline's intervals come from them), so its share is
 * bounded by that, reached here on the second day. CI runs 7 days at scale 1 (about 3,000 pod
 * lives); the full soak is {@code -Dsoak.scale=8} (about 20,600).
 */
class SoakIT {

  static final int DAYS = Integer.getInteger("soak.days", 7);
  static final int SCALE = Integer.getInteger("soak.scale", 1);
  static final List<String> STORES =
      List.of(
          TopologyNames.PODS_BY_NAME_STORE,
          TopologyNames.POD_SERIES_STORE,
          TopologyNames.INPUT_SECONDS_STORE,
          TopologyNames.REQUEST_ID_WINDOWS_STORE,
          TopologyNames.LEGACY_REQUEST_IDS_STORE,
          TopologyNames.POD_TIMERS_STORE,
          TopologyNames.POD_PROGRESS_STORE,
          TopologyNames.WORKLOADS_STORE,
          TopologyNames.WORKLOAD_PODS_STORE,
          TopologyNames.WORKLOAD_SECONDS_STORE,
          TopologyNames.NODES_STORE,
          TopologyNames.NODE_TIMERS_STORE,
          TopologyNames.PUBLISHED_STORE,
          TopologyNames.PUBLISHED_WORKLOADS_STORE);

  /** Output topics, measured as the log holds them and as compaction leaves them. */
  static List<Topic<String, ?>> outputs(Topics topics) {
    return List.of(
        topics.podTimelines, topics.workloadTimelines, topics.preemptions, topics.deadLetters);
  }

  static EmbeddedKafkaBroker broker;

  @TempDir static Path state;

  @BeforeAll
  static void startBroker() {
    // the log cleaner looks every 2 s instead of 15, so that what is on disk at a day's end is
    // close to what compaction leaves (the exact figure is computed from the records too)
    broker = EmbeddedKafkaBroker.start(Map.of("log.cleaner.backoff.ms", "2000"));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void shouldKeepStateBoundedByWhatLivesOverDaysOfChurn() throws Exception {
    Topics topics = Topics.withPrefix("soak.");
    int partitions = 2;
    broker.createTopics(topics.newTopics(partitions, (short) 1));
    compactSoon(topics);
    long dayMs = SoakInputs.DAY_S * 1000;
    long start = (System.currentTimeMillis() / dayMs - DAYS - 1) * dayMs;
    SoakInputs soak = new SoakInputs(start, SCALE);
    StreamsAppConfig config =
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                List.of(
                    "--topic-prefix", "soak.",
                    "--application-id", "soak-app",
                    "--state-dir", state.resolve("app").toString(),
                    "--http-port", "0",
                    "--emit-interval", "200ms",
                    "--api-auth", "none"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    List<Map<String, Long>> byDay = new ArrayList<>();
    List<Map<String, Long>> bytesByDay = new ArrayList<>();
    Map<String, List<TopicSize>> topicsByDay = new LinkedHashMap<>();
    try (StreamsApp app = StreamsApp.start(config);
        InputProducer producer = new InputProducer(broker.bootstrapServers(), topics, partitions);
        Admin admin = broker.admin()) {
      System.out.printf(
          "SoakIT: %d virtual days of %,d pod lives each (scale %d)%n",
          DAYS, soak.livesPerDay(), SCALE);
      for (int d = 0; d < DAYS; d++) {
        long t = System.nanoTime();
        producer.produce(soak.day(d));
        // The quiet end of the day: every pod gone long enough to be forgotten (orphan timeout).
        producer.mark(start + d * dayMs + dayMs - 60_000);
        awaitConsumed(admin, topics, "soak-app");
        Map<String, Long> sizes = measure(app.streams(), false);
        Map<String, Long> bytes = measure(app.streams(), true);
        byDay.add(sizes);
        bytesByDay.add(bytes);
        System.out.printf(
            "  day %d (%.1f s): live pods %d; state dir %,d KiB; heap after GC %,d MiB%n"
                + "    store entries %s%n    store KiB %s%n",
            d + 1,
            (System.nanoTime() - t) / 1e9,
            livePods(app.streams()),
            diskKb(state.resolve("app")),
            heapAfterGcMb(),
            sizes,
            kib(bytes));
        for (Topic<String, ?> out : outputs(topics)) {
          TopicSize size = TopicSize.of(broker.bootstrapServers(), admin, out.name());
          System.out.printf("    %s%n", size);
          topicsByDay.computeIfAbsent(out.name(), k -> new ArrayList<>()).add(size);
        }
      }
    }
    // The reference is the larger of days 2 and 3: the API stores forget what is old when they
    // look (at most once a wall second, every quarter retention of stream time), so one day's
    // count can fall just after a look and the next just before one.
    Map<String, Long> last = byDay.get(byDay.size() - 1);
    for (String store : STORES) {
      long reference = Math.max(byDay.get(1).get(store), byDay.get(2).get(store));
      assertThat(last.get(store))
          .as("entries of %s on the last day (%d on day 2 or 3)", store, reference)
          .isLessThanOrEqualTo(Math.max(2 * reference, reference + 50));
      long referenceBytes = Math.max(bytesByDay.get(1).get(store), bytesByDay.get(2).get(store));
      assertThat(bytesByDay.get(bytesByDay.size() - 1).get(store))
          .as("bytes of %s on the last day (%d on day 2 or 3)", store, referenceBytes)
          .isLessThanOrEqualTo(Math.max(2 * referenceBytes, referenceBytes + 64 * 1024));
    }
    // Compacted, the outputs keep the latest record of each key: one timeline per pod life and
    // per workload, one preemption per victim: history for the warehouse, growing by the day's
    // lives, not by the records written about them.
    List<TopicSize> timelines = topicsByDay.get(topics.podTimelines.name());
    TopicSize lastTimelines = timelines.get(timelines.size() - 1);
    assertThat(lastTimelines.keys())
        .as("one timeline per pod life")
        .isEqualTo((long) DAYS * soak.livesPerDay());
    assertThat(lastTimelines.records()).isGreaterThan(lastTimelines.keys());
  }

  /**
   * Lets the broker's cleaner compact the outputs during the test as it would over weeks: segments
   * of 1 MiB (the least Kafka allows) instead of 1 GiB, and any share of uncleaned records worth a
   * clean. The cleaner compacts rolled segments only, so at scale 1 (under 1 MiB a partition) the
   * log on disk is all active segment; the exact figure after compaction is computed anyway.
   */
  static void compactSoon(Topics topics) throws Exception {
    Map<ConfigResource, Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
    for (Topic<String, ?> t : outputs(topics)) {
      ops.put(
          new ConfigResource(ConfigResource.Type.TOPIC, t.name()),
          List.of(
              new AlterConfigOp(
                  new ConfigEntry(TopicConfig.SEGMENT_BYTES_CONFIG, Integer.toString(1 << 20)),
                  AlterConfigOp.OpType.SET),
              new AlterConfigOp(
                  new ConfigEntry(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01"),
                  AlterConfigOp.OpType.SET)));
    }
    try (Admin admin = broker.admin()) {
      admin.incrementalAlterConfigs(ops).all().get();
    }
  }

  /**
   * An output topic's size: its records and bytes as the log holds them now (the bytes on disk, of
   * compressed batches; the cleaner may have compacted some), and exactly what compaction leaves
   * (the latest record of each key, none for a key whose latest is a tombstone; uncompressed key
   * and value bytes), read from the beginning, committed records only.
   */
  record TopicSize(String topic, long records, long logBytes, long keys, long compactedBytes) {

    static TopicSize of(String bootstrap, Admin admin, String topic) throws Exception {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
      Map<String, Integer> latest = new HashMap<>();
      long records = 0;
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        List<TopicPartition> parts =
            c.partitionsFor(topic).stream()
                .map(i -> new TopicPartition(topic, i.partition()))
                .toList();
        c.assign(parts);
        c.seekToBeginning(parts);
        Map<TopicPartition, Long> ends = c.endOffsets(parts);
        while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
            records++;
            String key = r.partition() + "/" + new String(r.key(), StandardCharsets.UTF_8);
            if (r.value() == null) {
              latest.remove(key);
            } else {
              latest.put(key, r.key().length + r.value().length);
            }
          }
        }
      }
      long logBytes = 0;
      for (var dir :
          admin
              .describeLogDirs(
                  admin.describeCluster().nodes().get().stream().map(Node::id).toList())
              .allDescriptions()
              .get()
              .values()) {
        for (var e : dir.values()) {
          for (var r : e.replicaInfos().entrySet()) {
            if (r.getKey().topic().equals(topic)) {
              logBytes += r.getValue().size();
            }
          }
        }
      }
      long compacted = latest.values().stream().mapToLong(Integer::longValue).sum();
      return new TopicSize(topic, records, logBytes, latest.size(), compacted);
    }

    @Override
    public String toString() {
      return String.format(
          "%s: %,d records in the log (%,d KiB on disk, compressed), after compaction %,d keys,"
              + " %,d KiB of keys and values",
          topic, records, logBytes / 1024, keys, compactedBytes / 1024);
    }
  }

  /** Pods whose latest timeline is not final, in the API's store. */
  static long livePods(KafkaStreams streams) {
    long n = 0;
    try (KeyValueIterator<String, PodTimeline> it =
        streams
            .store(
                StoreQueryParameters.fromNameAndType(
                    TopologyNames.PUBLISHED_STORE,
                    QueryableStoreTypes.<String, PodTimeline>keyValueStore()))
            .all()) {
      while (it.hasNext()) {
        if (!it.next().value.getFinal$()) {
          n++;
        }
      }
    }
    return n;
  }

  static Map<String, Long> kib(Map<String, Long> bytes) {
    Map<String, Long> out = new LinkedHashMap<>();
    bytes.forEach((k, v) -> out.put(k, (v + 1023) / 1024));
    return out;
  }

  /** Waits until the app has consumed (committed) everything on its input topics. */
  static void awaitConsumed(Admin admin, Topics topics, String group) {
    List<Topic<String, ?>> inputs = new ArrayList<>(topics.all());
    Awaitility.await("the app consumed the day")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
              for (Topic<String, ?> t : inputs) {
                for (var p :
                    admin
                        .describeTopics(List.of(t.name()))
                        .allTopicNames()
                        .get()
                        .get(t.name())
                        .partitions()) {
                  latest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest());
                }
              }
              var ends = admin.listOffsets(latest).all().get();
              Map<TopicPartition, OffsetAndMetadata> committed =
                  admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
              // every topic the app reads (inputs and its internal topics) read to its end
              return ends.entrySet().stream()
                  .filter(e -> committed.containsKey(e.getKey()) || isInput(e.getKey(), topics))
                  .allMatch(
                      e ->
                          e.getValue().offset() == 0
                              || committed.get(e.getKey()) != null
                                  && committed.get(e.getKey()).offset() >= e.getValue().offset());
            });
    // What the last inputs started (timelines emitted, workloads freed) goes out at the next
    // emit and commit: give them a few.
    Awaitility.await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
  }

  static boolean isInput(TopicPartition tp, Topics topics) {
    return List.of(
            topics.pods.name(),
            topics.events.name(),
            topics.gpuSamples.name(),
            topics.requests.name(),
            topics.workloads.name())
        .contains(tp.topic());
  }

  /**
   * Entries of every store across the app's partitions, or their bytes: each key and value encoded
   * as the store encodes it (UTF-8 keys, Avro single-object values, 8-byte longs).
   */
  static Map<String, Long> measure(KafkaStreams streams, boolean bytes) {
    Map<String, Long> sizes = new LinkedHashMap<>();
    Map<Class<?>, AvroSerde<SpecificRecord>> serdes = new HashMap<>();
    for (String store : STORES) {
      long n = 0;
      if (store.equals(TopologyNames.REQUEST_ID_WINDOWS_STORE)) {
        sizes.put(store, windows(streams, store, bytes));
        continue;
      }
      try (KeyValueIterator<String, Object> it =
          streams
              .store(
                  StoreQueryParameters.fromNameAndType(
                      store, QueryableStoreTypes.<String, Object>keyValueStore()))
              .all()) {
        while (it.hasNext()) {
          KeyValue<String, Object> kv = it.next();
          n += bytes ? kv.key.getBytes(StandardCharsets.UTF_8).length + size(kv.value, serdes) : 1;
        }
      }
      sizes.put(store, n);
    }
    return sizes;
  }

  /** A window store's entries, or their bytes: the key, the window's start and 8 bytes an id. */
  static long windows(KafkaStreams streams, String store, boolean bytes) {
    long n = 0;
    try (KeyValueIterator<Windowed<String>, List<Long>> it =
        streams
            .store(
                StoreQueryParameters.fromNameAndType(
                    store, QueryableStoreTypes.<String, List<Long>>windowStore()))
            .all()) {
      while (it.hasNext()) {
        KeyValue<Windowed<String>, List<Long>> kv = it.next();
        n +=
            bytes
                ? kv.key.key().getBytes(StandardCharsets.UTF_8).length
                    + Long.BYTES
                    + (long) Long.BYTES * kv.value.size()
                : 1;
      }
    }
    return n;
  }

  @SuppressWarnings("unchecked")
  static long size(Object value, Map<Class<?>, AvroSerde<SpecificRecord>> serdes) {
    if (value instanceof SpecificRecord r) {
      return serdes
          .computeIfAbsent(r.getClass(), c -> AvroSerde.of((Class<SpecificRecord>) (Class<?>) c))
          .serialize("", r)
          .length;
    }
    if (value instanceof String str) {
      return str.getBytes(StandardCharsets.UTF_8).length;
    }
    if (value instanceof Long) {
      return Long.BYTES;
    }
    throw new IllegalArgumentException("a store value of " + value.getClass());
  }

  static long diskKb(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum() / 1024;
    }
  }

  /** The test JVM's heap after a collection (the broker runs in it too). */
  static long heapAfterGcMb() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
  }
}
