package io.schedlens.schemas;

import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.Serde;

/**
 * One Kafka topic of schedlens: its name, how its keys and values are encoded, and the topic-level
 * settings it must be created with (e.g. {@code cleanup.policy=compact}).
 */
public record Topic<K, V>(
    String name, Serde<K> keySerde, Serde<V> valueSerde, Map<String, String> configs) {

  public Topic {
    configs = Map.copyOf(configs);
  }

  /** The admin request that creates this topic. */
  public NewTopic newTopic(int partitions, short replicationFactor) {
    return new NewTopic(name, partitions, replicationFactor).configs(configs);
  }
}
