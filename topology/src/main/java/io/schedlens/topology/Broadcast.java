package io.schedlens.topology;

import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntBiFunction;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions an internal topic: a watermark goes to every partition (every task must hear every
 * other), anything else by its key as {@code partitioner} says (by default as every producer
 * partitions a keyed record, so that a message for a pod lands with the pod's inputs).
 */
final class Broadcast implements StreamPartitioner<String, Object> {

  private final ToIntBiFunction<String, Integer> partitioner;

  Broadcast() {
    this(null);
  }

  Broadcast(ToIntBiFunction<String, Integer> partitioner) {
    this.partitioner = partitioner;
  }

  @Override
  public Optional<Set<Integer>> partitions(
      String topic, String key, Object value, int numPartitions) {
    if (value instanceof StageMessage m && m.getPayload() instanceof Watermark) {
      Set<Integer> all = new HashSet<>();
      for (int i = 0; i < numPartitions; i++) {
        all.add(i);
      }
      return Optional.of(all);
    }
    if (partitioner == null || key == null) {
      return Optional.empty(); // the default partitioner: by key
    }
    return Optional.of(Set.of(partitioner.applyAsInt(key, numPartitions)));
  }
}
