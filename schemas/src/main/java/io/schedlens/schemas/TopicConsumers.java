package io.schedlens.schemas;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reading a schedlens topic as a whole, the way the demo, replay, report and export do: no consumer
 * group (the reader keeps its own position), every partition assigned, only what was committed
 * (read_committed: the streams app writes in transactions).
 */
public final class TopicConsumers {

  private TopicConsumers() {}

  /** Every partition of the topic. */
  public static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(p -> new TopicPartition(p.topic(), p.partition()))
        .toList();
  }

  /** A read_committed consumer of every partition of {@code topic}, not yet positioned. */
  public static <V> KafkaConsumer<String, V> assigned(
      Map<String, Object> clientSettings, Topic<String, V> topic) {
    Map<String, Object> c = new HashMap<>(clientSettings);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    KafkaConsumer<String, V> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), dataOnly(topic));
    consumer.assign(partitions(consumer, topic.name()));
    return consumer;
  }

  /**
   * The topic's values; a progress mark between them reads as null (input topics carry them, see
   * {@link ProgressMarks}), as a tombstone does.
   */
  public static <V> Deserializer<V> dataOnly(Topic<String, V> topic) {
    Deserializer<V> data = topic.valueSerde().deserializer();
    return new Deserializer<>() {
      @Override
      public V deserialize(String t, byte[] bytes) {
        return data.deserialize(t, bytes);
      }

      @Override
      public V deserialize(String t, Headers headers, byte[] bytes) {
        return ProgressMarks.isMark(headers) ? null : data.deserialize(t, headers, bytes);
      }
    };
  }

  /** As {@link #assigned}, positioned at the beginning. */
  public static <V> KafkaConsumer<String, V> fromBeginning(
      Map<String, Object> clientSettings, Topic<String, V> topic) {
    KafkaConsumer<String, V> consumer = assigned(clientSettings, topic);
    consumer.seekToBeginning(consumer.assignment());
    return consumer;
  }

  /** Hands every record up to the topic's end as of now to {@code each}. */
  public static <V> void readToEnd(
      KafkaConsumer<String, V> consumer, Consumer<ConsumerRecord<String, V>> each) {
    Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment());
    while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
      consumer.poll(Duration.ofMillis(200)).forEach(each);
    }
  }
}
