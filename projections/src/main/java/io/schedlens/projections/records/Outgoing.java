package io.schedlens.projections.records;

/**
 * A record ready for Kafka: topic, serialized key and value, and its event time, which becomes the
 * Kafka record timestamp so that downstream time semantics are event time.
 *
 * @param source which part produced it (pods, events, gpu, requests, dlq), for metrics and relists
 * @param ack acknowledgement of the batch it belongs to, or null
 * @param partitionKey what decides the partition when it is not the key: a pod's {@code
 *     namespace/name} for its observations and events, which are keyed by UID (see {@link
 *     io.schedlens.schemas.PodName}); null to partition by key
 * @param mark a progress mark, sent to every partition of the topic (see {@link
 *     io.schedlens.schemas.ProgressMarks})
 */
public record Outgoing(
    String topic,
    String source,
    byte[] key,
    byte[] value,
    long eventTime,
    BatchAck ack,
    String partitionKey,
    boolean mark) {

  /** A data record partitioned by its key. */
  public Outgoing(
      String topic, String source, byte[] key, byte[] value, long eventTime, BatchAck ack) {
    this(topic, source, key, value, eventTime, ack, null, false);
  }
}
