package io.schedlens.bench;

import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.records.ProducerRecords;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** A load's backlog written to the broker before an app reads it ({@link StreamsLoad}). */
final class Backlogs {

  private Backlogs() {}

  /**
   * Produces the load's records, every one acknowledged; returns the records, their bytes and the
   * inputs among them (the rest are progress marks).
   */
  static long[] produce(EmbeddedKafkaBroker broker, StreamsLoad.Load load, int partitions)
      throws Exception {
    long[] counts = new long[3];
    AtomicReference<Exception> refused = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer = StreamsLoad.producer(broker.bootstrapServers())) {
      load.produce(
          o -> {
            for (ProducerRecord<byte[], byte[]> r : ProducerRecords.of(o, partitions)) {
              producer.send(
                  r,
                  (meta, e) -> {
                    if (e != null) {
                      refused.compareAndSet(null, e);
                    }
                  });
              counts[0]++;
              counts[1] += r.value().length + (r.key() == null ? 0 : r.key().length);
            }
            if (!o.mark()) {
              counts[2]++;
            }
          });
      producer.flush();
    }
    if (refused.get() != null) {
      // the app would wait for records the broker never took
      throw new IllegalStateException(
          "the broker refused a record of the backlog, so the app cannot read it all: "
              + refused.get(),
          refused.get());
    }
    return counts;
  }
}
