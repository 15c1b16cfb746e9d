package io.schedlens.streams.topology;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.PodIdentity;
import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.streams.metrics.StreamsMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;

/**
 * Resolves inputs that name a pod by {@code namespace/name} (GPU samples, request logs, victim
 * links from old-format notes) to the UID of the incarnation that held that name at the input's
 * event time, using a versioned store of {@code namespace/name -> UID} fed by the timeline stage.
 * Names are reused (StatefulSets, recreated pods), so the lookup is by time, not "latest".
 *
 * <p>This is a timestamp-aware stream-table join. Kafka Streams' own versioned join with a grace
 * period delays every record by the grace period; here a record that resolves is forwarded at once,
 * and only one whose pod is not known yet waits (in a store) until the pod appears or the grace
 * period runs out, when it is dead-lettered as {@code unknown-pod}.
 */
final class NameResolver implements Processor<String, Object, String, Object> {

  /** Creation timestamps have second granularity and clocks differ a little. */
  static final long CREATION_TOLERANCE_MS = 5_000;

  private final long graceMs;
  private final long idleMs;
  private final StreamsMetrics metrics;
  private long lastInputWallMs;
  private final AvroSerde<RoutedInput> routedSerde = AvroSerde.of(RoutedInput.class);
  private ProcessorContext<String, Object> context;
  private VersionedKeyValueStore<String, PodIdentity> index;
  private KeyValueStore<String, RoutedInput> waiting;

  /**
   * Watermarks of the timeline stage, which announces pod names: when all have passed a time, every
   * pod observed by then has been announced.
   */
  private final Watermarks announcers;

  NameResolver(Duration grace, Duration idleTimeout, int partitions, StreamsMetrics metrics) {
    this.announcers = new Watermarks(partitions);
    this.graceMs = grace.toMillis();
    this.idleMs = idleTimeout.toMillis();
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.index = context.getStateStore(TimelineTopology.NAME_INDEX_STORE);
    this.waiting = context.getStateStore(TimelineTopology.UNRESOLVED_STORE);
    context.schedule(Duration.ofSeconds(1), PunctuationType.STREAM_TIME, this::expire);
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        this::broadcastWatermark);
    lastInputWallMs = context.currentSystemTimeMs();
  }

  /**
   * Everything with an event time up to the watermark has been sent on: the stream time, held back
   * by the oldest input still waiting for its pod; no limit once idle with nothing waiting.
   */
  private void broadcastWatermark(long wallNow) {
    long streamTime = context.currentStreamTimeMs();
    long mark = streamTime;
    long oldestWaiting = Long.MAX_VALUE;
    try (KeyValueIterator<String, RoutedInput> it = waiting.all()) {
      while (it.hasNext()) {
        oldestWaiting = Math.min(oldestWaiting, timeOf(it.next().key));
      }
    }
    if (oldestWaiting != Long.MAX_VALUE) {
      mark = Math.min(mark, oldestWaiting - 1);
      if (wallNow - lastInputWallMs > idleMs
          && announcers.safeTime(Watermarks.TIMELINE) == Long.MAX_VALUE) {
        // Both stages idle: no pod announcement is on its way, and event time will not move.
        expireOlderThan(Long.MAX_VALUE);
      }
    } else if (wallNow - lastInputWallMs > idleMs) {
      mark = Long.MAX_VALUE;
    }
    Watermark w = new Watermark(Watermarks.RESOLVE, context.taskId().partition(), mark);
    context.forward(
        new Record<>("watermark", (Object) new RoutedInput(w), Math.max(0, streamTime)),
        TimelineTopology.RESOLVED_SINK);
  }

  @Override
  public void process(Record<String, Object> record) {
    Object value = record.value() instanceof RoutedInput r ? r.getPayload() : record.value();
    if (value instanceof Watermark w) {
      announcers.update(w.getStage(), w.getPartition(), w.getTime());
      return;
    }
    if (value == null) {
      return;
    }
    context.recordMetadata().ifPresent(m -> metrics.recordsIn.labelValues(m.topic()).inc());
    lastInputWallMs = context.currentSystemTimeMs();
    if (value instanceof PodIdentity identity) {
      String name = identity.getNamespace() + "/" + identity.getName();
      index.put(name, identity, identity.getCreatedAt());
      retryWaiting(name);
    } else if (value instanceof GpuSample sample) {
      if (sample.getPod() == null || sample.getNamespace() == null) {
        return; // a GPU allocated to no pod: not a pod fact
      }
      resolve(sample.getNamespace() + "/" + sample.getPod(), sample.getTime(), value, record);
    } else if (value instanceof RequestLog log) {
      resolve(log.getNamespace() + "/" + log.getPod(), log.getTime(), value, record);
    } else if (value instanceof VictimLink link) {
      resolve(
          link.getPreemptorNamespace() + "/" + link.getPreemptorName(),
          link.getAt(),
          value,
          record);
    }
  }

  private void resolve(String name, long time, Object value, Record<String, Object> record) {
    String uid = lookup(name, time);
    if (uid != null) {
      forward(uid, value, record.timestamp());
      return;
    }
    String position =
        context
            .recordMetadata()
            .map(m -> m.topic() + ":" + m.partition() + ":" + m.offset())
            .orElse("?");
    waiting.put(waitingKey(name, time, position), new RoutedInput(value));
  }

  private String lookup(String name, long time) {
    VersionedRecord<PodIdentity> asOf = index.get(name, time);
    if (asOf != null) {
      return asOf.value().getUid();
    }
    VersionedRecord<PodIdentity> first = index.get(name, time + CREATION_TOLERANCE_MS);
    return first == null ? null : first.value().getUid();
  }

  private void forward(String uid, Object value, long timestamp) {
    if (value instanceof VictimLink link) {
      value = VictimLink.newBuilder(link).setPreemptorUid(uid).build();
    }
    context.forward(
        new Record<>(uid, (Object) new RoutedInput(value), timestamp),
        TimelineTopology.RESOLVED_SINK);
  }

  private void retryWaiting(String name) {
    List<KeyValue<String, RoutedInput>> found = new ArrayList<>();
    try (KeyValueIterator<String, RoutedInput> it =
        waiting.prefixScan(name + "\u0000", new StringSerializer())) {
      it.forEachRemaining(found::add);
    }
    for (KeyValue<String, RoutedInput> kv : found) {
      long time = timeOf(kv.key);
      String uid = lookup(name, time);
      if (uid != null) {
        forward(uid, kv.value.getPayload(), time);
        waiting.delete(kv.key);
      }
    }
  }

  /**
   * An input waits for its pod until the grace period has passed both here and in the timeline
   * stage that announces pods: while that stage lags (a backlog), the pod may only not have been
   * announced yet.
   */
  private void expire(long streamTime) {
    long announced = announcers.safeTime(Watermarks.TIMELINE);
    if (announced == Long.MIN_VALUE) {
      return;
    }
    expireOlderThan(Math.min(streamTime, announced) - graceMs);
  }

  /** Dead-letters what waits for a pod since before {@code cutoff} (event time). */
  private void expireOlderThan(long cutoff) {
    long streamTime = Math.max(0, context.currentStreamTimeMs());
    List<KeyValue<String, RoutedInput>> expired = new ArrayList<>();
    try (KeyValueIterator<String, RoutedInput> it = waiting.all()) {
      while (it.hasNext()) {
        KeyValue<String, RoutedInput> kv = it.next();
        if (timeOf(kv.key) < cutoff) {
          expired.add(kv);
        }
      }
    }
    for (KeyValue<String, RoutedInput> kv : expired) {
      waiting.delete(kv.key);
      String name = kv.key.substring(0, kv.key.indexOf('\u0000'));
      String what = kv.value.getPayload().getClass().getSimpleName();
      DeadLetter d =
          DeadLetters.build(
              "schedlens-streams:resolve-names",
              null,
              null,
              name.getBytes(StandardCharsets.UTF_8),
              routedSerde.serialize("dlq", kv.value),
              DeadLetters.UNKNOWN_POD,
              what
                  + " for pod "
                  + name
                  + " at "
                  + java.time.Instant.ofEpochMilli(timeOf(kv.key))
                  + ": no pod of that name existed then, and none appeared within the grace period",
              timeOf(kv.key),
              streamTime);
      metrics.deadLetters.labelValues(DeadLetters.UNKNOWN_POD).inc();
      context.forward(
          new Record<>(d.getSource(), (Object) d, streamTime), TimelineTopology.RESOLVER_DLQ_SINK);
    }
  }

  static String waitingKey(String name, long time, String position) {
    return name + "\u0000" + String.format("%019d", Math.max(0, time)) + "\u0000" + position;
  }

  static long timeOf(String waitingKey) {
    int a = waitingKey.indexOf('\u0000');
    return Long.parseLong(waitingKey.substring(a + 1, a + 20));
  }
}
