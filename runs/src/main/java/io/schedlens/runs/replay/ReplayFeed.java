package io.schedlens.runs.replay;

import io.schedlens.avro.PodTimeline;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.ProducerRecords;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsAppConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A replay's inputs onto the broker, a slice of event time at a time with the progress marks after
 * each, and the pod timelines read back once the streams app has taken everything.
 */
final class ReplayFeed {

  /** The producer name on replay's progress marks. */
  static final String PRODUCER = "replay";

  private static final Duration QUIET = Duration.ofSeconds(3);

  private final ReplayConfig config;
  private final String applicationId;
  private final Consumer<String> say;

  ReplayFeed(ReplayConfig config, String applicationId, Consumer<String> say) {
    this.config = config;
    this.applicationId = applicationId;
    this.say = say;
  }

  /**
   * Produces the inputs in event-time order, a slice of event time at a time (one grace period by
   * default), each slice followed by a progress mark on every partition of every input topic, as
   * the collector marks what it has read; after the last slice, a mark that ends the input, so that
   * every final timeline due goes out. The marks, not the pacing, decide what the streams app
   * computes: the slice size changes how fast a replay runs, never what it says.
   */
  void produce(Map<String, Object> kafka, Topics topics, Records records, List<Outgoing> inputs)
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
  Map<String, PodTimeline> awaitTimelines(
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
  private long inputLag(Admin admin, Topics topics, int partitions) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata().get();
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

  private void say(String format, Object... args) {
    say.accept(String.format(format, args));
  }
}
