package io.schedlens.topology;

import io.schedlens.avro.DeadLetter;
import io.schedlens.schemas.AvroLimits;
import io.schedlens.schemas.AvroSerde;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Kafka Streams error handlers that turn a record it cannot read, or cannot process, into a {@link
 * DeadLetter} (source topic, partition, offset, reason, raw bytes) produced in the same
 * transaction, and go on: failures are data, and one bad record must not stop every pod's timeline.
 */
public final class DeadLetterHandlers {

  /** Config key naming the dead-letter topic. */
  public static final String TOPIC_CONFIG = "schedlens.dlq.topic";

  /**
   * Config key of what counts the letters by reason: a {@code Consumer<String>} the app puts in its
   * own streams config (each app instance its own; none: not counted).
   */
  public static final String COUNTER_CONFIG = "schedlens.dlq.counter";

  private static final AvroSerde<DeadLetter> SERDE = AvroSerde.of(DeadLetter.class);

  private DeadLetterHandlers() {}

  @SuppressWarnings("unchecked")
  static Consumer<String> counter(Map<String, ?> configs) {
    return configs.get(COUNTER_CONFIG) instanceof Consumer<?> c
        ? (Consumer<String>) c
        : reason -> {};
  }

  static ProducerRecord<byte[], byte[]> letter(
      String topic,
      Consumer<String> counter,
      ErrorHandlerContext ctx,
      byte[] key,
      byte[] value,
      String reason,
      Exception e) {
    DeadLetter d =
        DeadLetters.build(
            ctx.topic(),
            ctx.partition(),
            ctx.offset(),
            key,
            value,
            reason,
            e.getClass().getSimpleName()
                + " in "
                + ctx.processorNodeId()
                + ": "
                + e.getMessage()
                + where(e),
            ctx.timestamp(),
            System.currentTimeMillis());
    counter.accept(reason);
    return new ProducerRecord<>(
        topic, ctx.topic().getBytes(StandardCharsets.UTF_8), SERDE.serialize(topic, d));
  }

  /** Where in schedlens' code it failed: the first frames that are ours, for a bug report. */
  static String where(Exception e) {
    StringBuilder b = new StringBuilder();
    for (StackTraceElement f : e.getStackTrace()) {
      if (f.getClassName().startsWith("io.schedlens") && b.length() < 300) {
        b.append(b.length() == 0 ? " (at " : " < ")
            .append(f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1))
            .append('.')
            .append(f.getMethodName())
            .append(':')
            .append(f.getLineNumber());
      }
    }
    return b.length() == 0 ? "" : b.append(')').toString();
  }

  /** A record whose bytes are not a known Avro version of its topic's type. */
  public static final class Deserialization implements DeserializationExceptionHandler {
    private String topic;
    private Consumer<String> counter;

    @Override
    public void configure(Map<String, ?> configs) {
      topic = String.valueOf(configs.get(TOPIC_CONFIG));
      counter = counter(configs);
    }

    @Override
    public Response handleError(
        ErrorHandlerContext ctx, ConsumerRecord<byte[], byte[]> record, Exception e) {
      return Response.resume(
          List.of(
              letter(
                  topic,
                  counter,
                  ctx,
                  record.key(),
                  record.value(),
                  AvroLimits.isOverLimit(e) ? DeadLetters.OVER_LIMIT : DeadLetters.DESERIALIZATION,
                  e)));
    }
  }

  /** A record a processor failed on (a bug, or an input no test foresaw). */
  public static final class Processing implements ProcessingExceptionHandler {
    private String topic;
    private Consumer<String> counter;

    @Override
    public void configure(Map<String, ?> configs) {
      topic = String.valueOf(configs.get(TOPIC_CONFIG));
      counter = counter(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext ctx, Record<?, ?> record, Exception e) {
      return Response.resume(
          List.of(
              letter(
                  topic,
                  counter,
                  ctx,
                  ctx.sourceRawKey(),
                  ctx.sourceRawValue(),
                  DeadLetters.PROCESSING,
                  e)));
    }
  }
}
