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
import io.schedlens.streams.timeline.GpuSamples;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
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
 * and only one whose pod is not known yet waits (in a store, indexed by name and by time) until the
 * pod is announced, or until the grace period has passed both here and in the timeline stage that
 * announces pods; then it is dead-lettered as {@code unknown-pod}.
 */
final class NameResolver implements Processor<String, Object, String, Object> {

  /** Creation timestamps have second granularity and clocks differ a little. */
  static final long CREATION_TOLERANCE_MS = 5_000;

  private static final char SEP = '\u0000';

  private final long graceMs;
  private final long idleMs;
  private final StreamsMetrics metrics;
  private final AvroSerde<RoutedInput> routedSerde = AvroSerde.of(RoutedInput.class);

  /**
   * Watermarks of the timeline stage, which announces pod names: once all have passed a time, every
   * pod observed by then has been announced.
   */
  private final Watermarks announcers;

  private ProcessorContext<String, Object> context;
  private VersionedKeyValueStore<String, PodIdentity> index;
  private KeyValueStore<String, RoutedInput> waiting;
  private KeyValueStore<String, String> waitingByTime;
  private long lastInputWallMs;

  NameResolver(Duration grace, Duration idleTimeout, int partitions, StreamsMetrics metrics) {
    this.graceMs = grace.toMillis();
    this.idleMs = idleTimeout.toMillis();
    this.announcers = new Watermarks(partitions);
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.index = context.getStateStore(TimelineTopology.NAME_INDEX_STORE);
    this.waiting = context.getStateStore(TimelineTopology.UNRESOLVED_STORE);
    this.waitingByTime = context.getStateStore(TimelineTopology.UNRESOLVED_BY_TIME_STORE);
    context.schedule(Duration.ofSeconds(1), PunctuationType.STREAM_TIME, this::expire);
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        this::broadcastWatermark);
    lastInputWallMs = context.currentSystemTimeMs();
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
      // The timeline needs the utilisation, not the whole scrape: send on only that.
      resolve(
          sample.getNamespace() + "/" + sample.getPod(),
          sample.getTime(),
          GpuSamples.trimmed(sample),
          record);
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
    String t = String.format("%019d", Math.max(0, time));
    waiting.put(name + SEP + t + SEP + position, new RoutedInput(value));
    waitingByTime.put(t + SEP + name + SEP + position, "");
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
        waiting.prefixScan(name + SEP, new StringSerializer())) {
      it.forEachRemaining(found::add);
    }
    for (KeyValue<String, RoutedInput> kv : found) {
      String[] parts = kv.key.split(String.valueOf(SEP), 3);
      long time = Long.parseLong(parts[1]);
      String uid = lookup(name, time);
      if (uid != null) {
        forward(uid, kv.value.getPayload(), time);
        waiting.delete(kv.key);
        waitingByTime.delete(parts[1] + SEP + name + SEP + parts[2]);
      }
    }
  }

  /** The event time of the oldest input still waiting, or Long.MAX_VALUE. */
  private long oldestWaiting() {
    try (KeyValueIterator<String, String> it = waitingByTime.all()) {
      return it.hasNext() ? Long.parseLong(it.next().key.substring(0, 19)) : Long.MAX_VALUE;
    }
  }

  /**
   * Everything with an event time up to the watermark has been sent on: the stream time, held back
   * by the oldest input still waiting for its pod; no limit once idle with nothing waiting.
   */
  private void broadcastWatermark(long wallNow) {
    long streamTime = context.currentStreamTimeMs();
    boolean idle = wallNow - lastInputWallMs > idleMs;
    long oldest = oldestWaiting();
    long mark;
    if (oldest == Long.MAX_VALUE) {
      mark = idle ? Long.MAX_VALUE : streamTime;
    } else {
      if (idle && announcers.safeTime(Watermarks.TIMELINE) == Long.MAX_VALUE) {
        // Both stages idle: no pod announcement is on its way, and event time will not move.
        expireOlderThan(Long.MAX_VALUE);
      }
      mark =
          Math.min(
              streamTime, oldestWaiting() == Long.MAX_VALUE ? streamTime : oldestWaiting() - 1);
    }
    Watermark w = new Watermark(Watermarks.RESOLVE, context.taskId().partition(), mark);
    context.forward(
        new Record<>("watermark", (Object) new RoutedInput(w), Math.max(0, streamTime)),
        TimelineTopology.RESOLVED_SINK);
  }

  /**
   * An input waits for its pod until the grace period has passed both here and in the timeline
   * stage that announces pods: while that stage lags (a backlog), the pod may just not have been
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
    String to = cutoff == Long.MAX_VALUE ? "~" : String.format("%019d", Math.max(0, cutoff));
    List<String> expired = new ArrayList<>();
    try (KeyValueIterator<String, String> it = waitingByTime.range("", to)) {
      it.forEachRemaining(kv -> expired.add(kv.key));
    }
    for (String timeKey : expired) {
      String[] parts = timeKey.split(String.valueOf(SEP), 3);
      long time = Long.parseLong(parts[0]);
      String name = parts[1];
      String nameKey = name + SEP + parts[0] + SEP + parts[2];
      RoutedInput input = waiting.get(nameKey);
      waiting.delete(nameKey);
      waitingByTime.delete(timeKey);
      if (input == null) {
        continue;
      }
      DeadLetter d =
          DeadLetters.build(
              "schedlens-streams:resolve-names",
              null,
              null,
              name.getBytes(StandardCharsets.UTF_8),
              routedSerde.serialize("dlq", input),
              DeadLetters.UNKNOWN_POD,
              input.getPayload().getClass().getSimpleName()
                  + " for pod "
                  + name
                  + " at "
                  + Instant.ofEpochMilli(time)
                  + ": no pod of that name existed then, and none appeared within the grace period",
              time,
              streamTime);
      metrics.deadLetters.labelValues(DeadLetters.UNKNOWN_POD).inc();
      context.forward(
          new Record<>(d.getSource(), (Object) d, streamTime), TimelineTopology.RESOLVER_DLQ_SINK);
    }
  }
}
