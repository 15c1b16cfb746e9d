package io.schedlens.streams.topology;

import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.Watermark;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions the UID-keyed topic: a watermark goes to every partition, everything else by its key
 * exactly as the producer's default partitioner would (so it lands with the pod's other inputs).
 */
final class BroadcastWatermarks implements StreamPartitioner<String, Object> {

  @Override
  public Optional<Set<Integer>> partitions(
      String topic, String key, Object value, int numPartitions) {
    if (value instanceof RoutedInput r && r.getPayload() instanceof Watermark) {
      Set<Integer> all = new HashSet<>();
      for (int i = 0; i < numPartitions; i++) {
        all.add(i);
      }
      return Optional.of(all);
    }
    return Optional.empty(); // the default partitioner: by key, as every producer partitions
  }
}
