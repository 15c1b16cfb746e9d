package io.schedlens.topology;

import io.schedlens.avro.DeadLetter;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Dead letters of the streams app: what could not be used, where it came from, and why. */
public final class DeadLetters {

  public static final String UNKNOWN_POD = "unknown-pod";
  public static final String LATE_AFTER_FINAL = "late-after-final";
  public static final String DESERIALIZATION = "deserialization";

  /** An input record over a decoding limit ({@code AvroLimits}): too large, or claiming so. */
  public static final String OVER_LIMIT = "over-limit";

  public static final String PROCESSING = "processing";
  public static final String TOMBSTONE = "tombstone";
  public static final String NULL_KEY = "null-key";
  public static final String UNKNOWN_TYPE = "unknown-type";
  public static final String WRONG_PARTITION = "wrong-partition";

  /** A Kueue Workload's facts that contradict each other: admitted or evicted before it existed. */
  public static final String QUEUE_OUT_OF_ORDER = "queue-out-of-order";

  /**
   * A Kueue Workload that admitted or evicted a workload none of whose pods ever came: it names
   * pods (or a Job) the collector never saw, e.g. outside its namespaces or label selector.
   */
  public static final String QUEUE_WITHOUT_PODS = "queue-without-pods";

  static final int MAX_VALUE_BYTES = 64 * 1024;

  private DeadLetters() {}

  /** A dead letter for the record being processed. */
  static DeadLetter of(
      Optional<RecordMetadata> meta,
      String reason,
      String detail,
      byte[] raw,
      Long eventTime,
      long now) {
    return build(
        meta.map(RecordMetadata::topic).orElse("schedlens-streams"),
        meta.map(RecordMetadata::partition).orElse(null),
        meta.map(RecordMetadata::offset).orElse(null),
        null,
        raw,
        reason,
        detail,
        eventTime,
        now);
  }

  /** A dead letter with everything said. */
  public static DeadLetter build(
      String source,
      Integer partition,
      Long offset,
      byte[] key,
      byte[] value,
      String reason,
      String detail,
      Long eventTime,
      long now) {
    byte[] v =
        value == null || value.length <= MAX_VALUE_BYTES
            ? value
            : Arrays.copyOf(value, MAX_VALUE_BYTES);
    return DeadLetter.newBuilder()
        .setSource(source)
        .setPartition(partition)
        .setOffset(offset)
        .setKey(key == null ? null : ByteBuffer.wrap(key))
        .setValue(v == null ? null : ByteBuffer.wrap(v))
        .setReason(reason)
        .setDetail(detail)
        .setAt(now)
        .setEventTime(eventTime)
        .build();
  }
}
