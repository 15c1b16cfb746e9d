package io.schedlens.streams;

import io.schedlens.schemas.Topics;
import io.schedlens.topology.DeadLetterHandlers;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/** The Kafka Streams settings of the app: exactly-once, dead letters, bounded RocksDB memory. */
public final class StreamsProperties {

  private StreamsProperties() {}

  public static Properties of(StreamsAppConfig c, Topics topics) {
    Properties p = new Properties();
    p.putAll(c.kafkaClientSettings());
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, c.getString(StreamsAppConfig.APPLICATION_ID));
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, c.getString(StreamsAppConfig.STATE_DIR));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, c.getInt(StreamsAppConfig.THREADS));
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, c.getInt(StreamsAppConfig.STANDBYS));
    p.put(
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
        c.getDuration(StreamsAppConfig.COMMIT_INTERVAL).toMillis());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, c.getInt(StreamsAppConfig.REPLICATION));
    // The stores' caches absorb the many updates a pod's state gets between commits (GPU samples,
    // requests), so that its changelog is written once per commit, not once per input.
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 32L * 1024 * 1024);
    p.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    // A task reads its partitions in timestamp order as far as the broker holds them: it waits for
    // a partition it has no records of only until its consumer knows whether the broker holds more
    // (0), never for records not yet written. The order decides no output (every decision waits
    // for the progress marks in the partitions themselves, see Watermarks), but it decides how much
    // waits in memory and in the changelogs. Read unsynchronised (-1), a backlog's GPU samples,
    // a tenth of the records, ran ahead of its requests to the backlog's end: every pod-second
    // waited across commits in input-seconds, and a backlog of an hour of 300 pods' serving held
    // 370,000 waiting pod-seconds and ran the app out of its heap (StreamsLoad fleet 1500).
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, 0L);
    p.put(
        StreamsConfig.DEFAULT_DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterHandlers.Deserialization.class);
    p.put(
        StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterHandlers.Processing.class);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    p.put(DeadLetterHandlers.TOPIC_CONFIG, topics.deadLetters.name());
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class);
    p.put(BoundedRocksDbMemory.TOTAL_MEMORY_MB, c.getInt(StreamsAppConfig.ROCKSDB_MEMORY));
    String advertised = c.getString(StreamsAppConfig.ADVERTISED);
    if (advertised.isEmpty()) {
      advertised =
          c.getString(StreamsAppConfig.HTTP_HOST) + ":" + c.getInt(StreamsAppConfig.HTTP_PORT);
    }
    p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, advertised);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    if (!c.kafkaClientSettings().containsKey(ProducerConfig.COMPRESSION_TYPE_CONFIG)) {
      p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
    }
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
    return p;
  }
}
