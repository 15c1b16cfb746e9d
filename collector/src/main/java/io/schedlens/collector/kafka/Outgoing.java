package io.schedlens.collector.kafka;

/**
 * A record ready for Kafka: topic, serialized key and value, and its event time, which becomes the
 * Kafka record timestamp so that downstream time semantics are event time.
 *
 * @param source which part produced it (pods, events, gpu, requests, dlq), for metrics and relists
 * @param ack acknowledgement of the batch it belongs to, or null
 */
public record Outgoing(
    String topic, String source, byte[] key, byte[] value, long eventTime, BatchAck ack) {}
