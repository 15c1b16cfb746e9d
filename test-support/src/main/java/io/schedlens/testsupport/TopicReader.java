package io.schedlens.testsupport;

import io.schedlens.schemas.ProgressMarks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from its beginning, for assertions: everything committed so far, or until a
 * condition on what was read holds. Progress marks between an input topic's records are left out.
 */
public final class TopicReader<V> implements AutoCloseable {

  private final KafkaConsumer<String, V> consumer;
  private final List<ConsumerRecord<String, V>> read = new ArrayList<>();

  public TopicReader(String bootstrapServers, String topic, Deserializer<V> values) {
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false),
            new StringDeserializer(),
            skippingMarks(values));
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls until {@code done} holds for all records read so far, or the timeout; returns them. */
  public List<ConsumerRecord<String, V>> readUntil(
      Predicate<List<ConsumerRecord<String, V>>> done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.test(read) && System.nanoTime() < deadline) {
      poll();
    }
    return List.copyOf(read);
  }

  private void poll() {
    for (ConsumerRecord<String, V> r : consumer.poll(Duration.ofMillis(100))) {
      if (!ProgressMarks.isMark(r.headers())) {
        read.add(r);
      }
    }
  }

  /** An input topic's progress marks are no data: they read as null and are left out. */
  private static <V> Deserializer<V> skippingMarks(Deserializer<V> values) {
    return new Deserializer<>() {
      @Override
      public V deserialize(String topic, byte[] data) {
        return values.deserialize(topic, data);
      }

      @Override
      public V deserialize(String topic, Headers headers, byte[] data) {
        return ProgressMarks.isMark(headers) ? null : values.deserialize(topic, headers, data);
      }
    };
  }

  /** Polls for a while and returns everything read (for asserting that nothing more comes). */
  public List<ConsumerRecord<String, V>> readFor(Duration period) {
    long deadline = System.nanoTime() + period.toNanos();
    while (System.nanoTime() < deadline) {
      poll();
    }
    return List.copyOf(read);
  }

  /** The values read so far. */
  public List<V> values() {
    return read.stream().map(ConsumerRecord::value).toList();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
