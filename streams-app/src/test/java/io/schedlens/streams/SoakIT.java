package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.topology.TimelineTopology;
import io.schedlens.testsupport.InputProducer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
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
 * WorkloadService.MAX_PODS} pods (its timeline's intervals come from them), so its share is bounded
 * by that, reached here on the second day. CI runs 7 days at scale 1 (about 3,000 pod lives); the
 * full soak is {@code -Dsoak.scale=8} (about 20,600).
 */
class SoakIT {

  static final int DAYS = Integer.getInteger("soak.days", 7);
  static final int SCALE = Integer.getInteger("soak.scale", 1);
  static final List<String> STORES =
      List.of(
          TimelineTopology.PODS_BY_NAME_STORE,
          TimelineTopology.INPUT_SECONDS_STORE,
          TimelineTopology.REQUEST_IDS_STORE,
          TimelineTopology.POD_TIMERS_STORE,
          TimelineTopology.POD_PROGRESS_STORE,
          TimelineTopology.WORKLOADS_STORE,
          TimelineTopology.WORKLOAD_PODS_STORE,
          TimelineTopology.WORKLOAD_SECONDS_STORE,
          TimelineTopology.NODES_STORE,
          TimelineTopology.NODE_TIMERS_STORE,
          TimelineTopology.PUBLISHED_STORE,
          TimelineTopology.PUBLISHED_WORKLOADS_STORE);

  static EmbeddedKafkaBroker broker;

  @TempDir static Path state;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
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
        Map<String, Long> sizes = measure(app.streams());
        byDay.add(sizes);
        System.out.printf(
            "  day %d (%.1f s): %s; state dir %,d KiB; heap after GC %,d MiB%n",
            d + 1,
            (System.nanoTime() - t) / 1e9,
            sizes,
            diskKb(state.resolve("app")),
            heapAfterGcMb());
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
    }
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

  /** Entries of every store, across the app's partitions. */
  static Map<String, Long> measure(KafkaStreams streams) {
    Map<String, Long> sizes = new LinkedHashMap<>();
    for (String store : STORES) {
      long n = 0;
      try (KeyValueIterator<String, Object> it =
          streams
              .store(
                  StoreQueryParameters.fromNameAndType(
                      store, QueryableStoreTypes.<String, Object>keyValueStore()))
              .all()) {
        while (it.hasNext()) {
          it.next();
          n++;
        }
      }
      sizes.put(store, n);
    }
    return sizes;
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
