package io.schedlens.streams.topology;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions the workload-keyed topic by {@code namespace/kind/name} alone: a Job's or
 * StatefulSet's key also carries its controller's UID ({@code namespace/kind/name/uid}), and its
 * facts must meet the workload object the collector keys by {@code namespace/kind/name} on the
 * {@code workloads} topic. The same hash as the producers' default partitioner.
 */
final class ByWorkloadObject implements StreamPartitioner<String, Object> {

  @Override
  public Optional<Set<Integer>> partitions(
      String topic, String key, Object value, int numPartitions) {
    if (key == null) {
      return Optional.empty();
    }
    return Optional.of(Set.of(partitionOf(objectKey(key), numPartitions)));
  }

  /** The key without a controller UID. */
  static String objectKey(String key) {
    int first = key.indexOf('/');
    int second = first < 0 ? -1 : key.indexOf('/', first + 1);
    int third = second < 0 ? -1 : key.indexOf('/', second + 1);
    return third < 0 ? key : key.substring(0, third);
  }

  /** What Kafka's default partitioner gives a keyed record. */
  static int partitionOf(String key, int numPartitions) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return Utils.toPositive(Utils.murmur2(bytes)) % numPartitions;
  }
}
