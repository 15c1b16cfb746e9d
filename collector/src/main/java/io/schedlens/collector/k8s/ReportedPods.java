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
 * comparing this set with the first list is how the collector still reports them DELETED.
 */
public final class ReportedPods {

  private static final Logger log = LoggerFactory.getLogger(ReportedPods.class);

  private ReportedPods() {}

  /** The last projection of every pod whose last record is not DELETED. */
  public static Map<String, PodObservation> read(
      Map<String, Object> clientSettings, Topic<String, PodObservation> topic, Duration timeout) {
    Map<String, Object> settings = new HashMap<>(clientSettings);
    settings.put(
        ConsumerConfig.GROUP_ID_CONFIG, "schedlens-collector-readback-" + UUID.randomUUID());
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    Map<String, PodObservation> live = new HashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    long read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic.name(), timeout).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          log.warn(
              "read back {} records of {} within {}; continuing with what was read",
              read,
              topic.name(),
              timeout);
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          read++;
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
}
