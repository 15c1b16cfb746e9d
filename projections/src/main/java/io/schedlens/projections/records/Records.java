package io.schedlens.projections.records;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.projections.k8s.WorkloadProjection;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Builds the collector's outgoing records, keyed and timestamped as docs/design.md section 3 says:
 * pods and events by pod UID, GPU samples and request logs by {@code namespace/pod}, dead letters
 * by source; the Kafka timestamp is the record's event time.
 */
public final class Records {

  public static final String PODS = "pods";
  public static final String EVENTS = "events";
  public static final String WORKLOADS = "workloads";
  public static final String EXPERIMENTS = "experiments";
  public static final String GPU = "gpu";
  public static final String REQUESTS = "requests";
  public static final String DLQ = "dlq";
  public static final String MARKS = "marks";

  /** The producer name on the collector's progress marks. */
  public static final String PRODUCER = "collector";

  private final Topics topics;
  private final int maxDeadLetterBytes;

  public Records(Topics topics, int maxDeadLetterBytes) {
    this.topics = topics;
    this.maxDeadLetterBytes = maxDeadLetterBytes;
  }

  /** The most raw input bytes a dead letter keeps. */
  public int maxDeadLetterBytes() {
    return maxDeadLetterBytes;
  }

  /** A pod observation, keyed by UID, on the partition of its namespace/name. */
  public Outgoing pod(PodObservation p) {
    return new Outgoing(
        topics.pods.name(),
        PODS,
        utf8(p.getUid()),
        topics.pods.valueSerde().serializer().serialize(topics.pods.name(), p),
        p.getObservedAt(),
        null,
        PodName.of(p).key(),
        false);
  }

  /** A workload object, keyed namespace/kind/name, at its read time. */
  public Outgoing workload(WorkloadObservation o) {
    return new Outgoing(
        topics.workloads.name(),
        WORKLOADS,
        utf8(WorkloadProjection.key(o)),
        topics.workloads.valueSerde().serializer().serialize(topics.workloads.name(), o),
        o.getObservedAt(),
        null);
  }

  /** An experiment ConfigMap, keyed namespace/name (a deletion is a tombstone-free DELETED). */
  public Outgoing experiment(ExperimentConfig e) {
    return new Outgoing(
        topics.experiments.name(),
        EXPERIMENTS,
        utf8(e.getNamespace() + "/" + e.getName()),
        topics.experiments.valueSerde().serializer().serialize(topics.experiments.name(), e),
        e.getObservedAt(),
        null);
  }

  /** A pod event, keyed by the regarding pod's UID, on the partition of its namespace/name. */
  public Outgoing event(ClusterEvent e) {
    PodName name = PodName.regardedBy(e);
    return new Outgoing(
        topics.events.name(),
        EVENTS,
        utf8(e.getRegarding().getUid()),
        topics.events.valueSerde().serializer().serialize(topics.events.name(), e),
        EventTimes.of(e),
        null,
        name == null ? null : name.key(),
        false);
  }

  /**
   * A progress mark for every partition of an input topic: everything this collector read up to
   * {@code time} is in the buffer before it.
   */
  public Outgoing mark(String topic, long time, long now) {
    return mark(topic, time, now, PRODUCER);
  }

  /** A progress mark written by {@code producer} (e.g. replay). */
  public Outgoing mark(String topic, long time, long now, String producer) {
    return new Outgoing(
        topic,
        MARKS,
        null,
        ProgressMarks.value(producer, time),
        ProgressMarks.timestamp(time, now),
        null,
        null,
        true);
  }

  /** The input topics this collector marks. */
  public List<String> markedTopics() {
    return List.of(
        topics.pods.name(),
        topics.events.name(),
        topics.gpuSamples.name(),
        topics.requests.name(),
        topics.workloads.name());
  }

  public Outgoing gpuSample(String key, GpuSample s) {
    return new Outgoing(
        topics.gpuSamples.name(),
        GPU,
        utf8(key),
        topics.gpuSamples.valueSerde().serializer().serialize(topics.gpuSamples.name(), s),
        s.getTime(),
        null);
  }

  public Outgoing requestLog(RequestLog r, BatchAck ack) {
    return new Outgoing(
        topics.requests.name(),
        REQUESTS,
        utf8(new PodName(r.getNamespace(), r.getPod()).key()),
        topics.requests.valueSerde().serializer().serialize(topics.requests.name(), r),
        r.getTime(),
        ack);
  }

  /** A dead letter for an input that could not be used; the raw bytes are truncated if large. */
  public Outgoing deadLetter(
      String source,
      String reason,
      String detail,
      byte[] raw,
      Long eventTime,
      long now,
      BatchAck ack) {
    byte[] value =
        raw == null || raw.length <= maxDeadLetterBytes
            ? raw
            : Arrays.copyOf(raw, maxDeadLetterBytes);
    DeadLetter d =
        DeadLetter.newBuilder()
            .setSource(source)
            .setReason(reason)
            .setDetail(detail)
            .setValue(value == null ? null : ByteBuffer.wrap(value))
            .setAt(now)
            .setEventTime(eventTime)
            .build();
    return new Outgoing(
        topics.deadLetters.name(),
        DLQ,
        utf8(source),
        topics.deadLetters.valueSerde().serializer().serialize(topics.deadLetters.name(), d),
        now,
        ack);
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }
}
