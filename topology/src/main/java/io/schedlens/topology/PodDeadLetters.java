package io.schedlens.topology;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.PodName;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The pod stage's dead letters, built: what could not be used, where it was read, and what to do.
 * Pure; the stage forwards them ({@link PodStageOutputs#deadLetter}).
 */
final class PodDeadLetters {

  /** The source of a dead letter the stage decided on later, not for the record being read. */
  static final String STAGE = "schedlens-streams:pods";

  private PodDeadLetters() {}

  /**
   * An input record that cannot be used, with its bytes as read (re-encoded: the deserializer has
   * decoded them).
   *
   * @param now when it was dead-lettered: the wall clock, the one clock time in an output
   */
  static DeadLetter input(
      RecordMetadata meta,
      String reason,
      String detail,
      SpecificRecord value,
      String key,
      Long eventTime,
      long now) {
    byte[] raw = value == null ? null : encoded(meta.topic(), value);
    return DeadLetters.build(
        meta.topic(),
        meta.partition(),
        meta.offset(),
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        raw,
        reason,
        detail,
        eventTime,
        now);
  }

  /**
   * A record about {@code name} read on a partition it does not belong on.
   *
   * @param now when it was dead-lettered: the wall clock
   */
  static DeadLetter wrongPartition(
      RecordMetadata meta, SpecificRecord value, PodName name, int partitions, long now) {
    String detail = wrongPartition(value, name, meta.partition(), partitions);
    return input(meta, DeadLetters.WRONG_PARTITION, detail, value, null, null, now);
  }

  /** Why a record about {@code name} on {@code partition} does not belong there. */
  private static String wrongPartition(
      SpecificRecord value, PodName name, int partition, int partitions) {
    return value.getClass().getSimpleName()
        + " for pod "
        + name
        + " on partition "
        + partition
        + ", but "
        + name
        + " belongs on partition "
        + name.partition(partitions)
        + " of "
        + partitions
        + ": inputs about a pod must be partitioned by namespace/name (the collector and"
        + " replay do so); check the producer and that every input topic has "
        + partitions
        + " partitions";
  }

  /**
   * A second of {@code n} GPU samples and requests for a name no pod held, once the pods stream
   * passed the grace period: where they are on their topics (they stay there).
   */
  static DeadLetter unknownPod(InputSecond in, long n, long streamTime) {
    StringBuilder where = new StringBuilder();
    in.getInputs()
        .forEach(
            (tp, r) ->
                where
                    .append(where.length() == 0 ? "" : ", ")
                    .append(r.getCount())
                    .append(" at ")
                    .append(tp)
                    .append(" offsets ")
                    .append(r.getFirst())
                    .append("..")
                    .append(r.getLast()));
    return DeadLetters.build(
        STAGE,
        null,
        null,
        in.getName().getBytes(StandardCharsets.UTF_8),
        null,
        DeadLetters.UNKNOWN_POD,
        n
            + " GPU sample(s) and request(s) for pod "
            + in.getName()
            + " in the second from "
            + Instant.ofEpochMilli(in.getSecond())
            + ": no pod of that name existed then, and the pods stream passed the grace"
            + " period without one ("
            + where
            + "; the records stay on their topics)",
        in.getSecond(),
        Math.max(0, streamTime));
  }

  /** Events or links for a UID whose pod was never observed within the orphan timeout. */
  static DeadLetter orphan(TimelineState s, String name, Duration timeout, long podsProgress) {
    return DeadLetters.build(
        STAGE,
        null,
        null,
        s.getUid().getBytes(StandardCharsets.UTF_8),
        null,
        DeadLetters.UNKNOWN_POD,
        "events or links for pod UID "
            + s.getUid()
            + " ("
            + name
            + ") arrived, but the pod itself was never observed within "
            + timeout
            + " (outside the collector's namespaces or label selector?)",
        s.getBookkeeping().getFirstInputAt() != null
            ? s.getBookkeeping().getFirstInputAt()
            : s.getUpdatedAt(),
        podsProgress);
  }

  /** The record's bytes as its topic's serde writes them. */
  private static byte[] encoded(String topic, SpecificRecord value) {
    @SuppressWarnings("unchecked") // the serde of the value's own class
    AvroSerde<SpecificRecord> serde =
        (AvroSerde<SpecificRecord>) (AvroSerde<?>) AvroSerde.of(value.getClass());
    return serde.serialize(topic, value);
  }
}
