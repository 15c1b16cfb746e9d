package io.schedlens.collector.k8s;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code schedlens.pods} back at start to learn which pods the collector last reported live,
 * with their last projection. Pods deleted while no collector watched never produce a watch event;
 * comparing this set with the first list is how the collector still reports them DELETED. The read
 * goes to the end of the topic, however long it takes while records keep coming.
 */
public final class ReportedPods {

  private static final Logger log = LoggerFactory.getLogger(ReportedPods.class);

  private ReportedPods() {}

  /**
   * The last projection of every pod whose last record is not DELETED, read to the end of the
   * topic: a read cut short would leave out pods whose later records say they were deleted, and
   * those would never be reported DELETED. Progress is logged every 10 s.
   *
   * @param stall how long the read may go without a record before it fails (Kafka away); the caller
   *     asks again
   * @throws ReadBackStalled when no record came for {@code stall} before the end
   */
  public static Map<String, PodObservation> read(
      Map<String, Object> clientSettings, Topic<String, PodObservation> topic, Duration stall) {
    Map<String, Object> settings = new HashMap<>(clientSettings);
    settings.put(
        ConsumerConfig.GROUP_ID_CONFIG, "schedlens-collector-readback-" + UUID.randomUUID());
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    Map<String, PodObservation> live = new HashMap<>();
    long read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic.name(), stall).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, stall);
      long total = 0;
      for (TopicPartition p : partitions) {
        total += end.get(p) - consumer.position(p, stall);
      }
      long lastRecord = System.nanoTime();
      long lastReport = System.nanoTime();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        // Wall-clock time decides only when to give up on a stalled read and when to report.
        long now = System.nanoTime();
        if (now - lastRecord > stall.toNanos()) {
          throw new ReadBackStalled(
              "no record of "
                  + topic.name()
                  + " for "
                  + stall
                  + " after "
                  + read
                  + " of about "
                  + total);
        }
        if (now - lastReport > TimeUnit.SECONDS.toNanos(10)) {
          lastReport = now;
          log.info("reading back {}: {} of about {} records", topic.name(), read, total);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          read++;
          lastRecord = System.nanoTime();
          if (ProgressMarks.isMark(r.headers())) {
            continue;
          }
          PodObservation p;
          try {
            p = topic.valueSerde().deserializer().deserialize(topic.name(), r.value());
          } catch (SerializationException e) {
            continue;
          }
          if (p == null || p.getChangeType() == ChangeType.DELETED) {
            live.remove(new String(r.key(), StandardCharsets.UTF_8));
          } else {
            live.put(p.getUid(), p);
          }
        }
      }
    }
    log.info("read back {} pod records: {} pod(s) were last reported live", read, live.size());
    return live;
  }

  /** The read-back got no record for its stall time before the end of the topic. */
  public static final class ReadBackStalled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ReadBackStalled(String message) {
      super(message);
    }
  }
}
