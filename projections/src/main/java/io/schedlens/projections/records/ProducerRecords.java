package io.schedlens.projections.records;

import io.schedlens.schemas.PodName;
import io.schedlens.schemas.ProgressMarks;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What Kafka is sent for an {@link Outgoing}: a data record on the partition its key, or its pod's
 * name, decides; a progress mark on every partition. One statement of the partitioning rule for
 * every producer of the input topics (the collector, replay, the benchmarks).
 */
public final class ProducerRecords {

  private ProducerRecords() {}

  /** The records for {@code o} on a topic of {@code partitions} partitions. */
  public static List<ProducerRecord<byte[], byte[]>> of(Outgoing o, int partitions) {
    if (o.mark()) {
      List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(partitions);
      for (int p = 0; p < partitions; p++) {
        all.add(
            new ProducerRecord<>(
                o.topic(), p, o.eventTime(), null, o.value(), ProgressMarks.headers()));
      }
      return all;
    }
    return List.of(data(o, partitions));
  }

  /** The record for a data {@code o}. */
  public static ProducerRecord<byte[], byte[]> data(Outgoing o, int partitions) {
    Integer partition =
        o.partitionKey() == null ? null : PodName.partitionOf(o.partitionKey(), partitions);
    return new ProducerRecord<>(
        o.topic(), partition, o.eventTime() > 0 ? o.eventTime() : null, o.key(), o.value());
  }
}
