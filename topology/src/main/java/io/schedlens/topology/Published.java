package io.schedlens.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the latest published value of every key of a published topic in a store the serving side
 * queries (Kafka Streams interactive queries), fed from the topic itself, so it answers with
 * exactly what consumers see; a tombstone removes one. What is over is forgotten a retention after
 * its last change ({@link Over}): a pod's final timeline; a workload that wants no replicas and has
 * none (deleted, scaled to zero, a finished Job).
 *
 * <p>Wall clock decides when to look (every minute, and when stream time moved a quarter of the
 * retention since the last look, at most once a second: a replay runs through hours of event time
 * in wall-clock seconds); stream time decides what is old.
 *
 * @param <V> the published value
 */
final class Published<V> implements Processor<String, V, Void, Void> {

  /** Whether a value is over: kept only for the retention after its last change. */
  interface Over<V> {
    /** The time of its last change if it is over, else null (kept as long as it is published). */
    Long since(V value);
  }

  /** A key that replaces the one its value was published under by an earlier release. */
  interface Replaces<V> {
    /** The former key of a value now published under {@code key}, or null. */
    String formerKey(String key);

    /** Whether the value under the former key is the same thing as {@code current}. */
    boolean same(V former, V current);
  }

  /** A pod's timeline is over once final. */
  static Published<PodTimeline> timelines(Duration retention) {
    return new Published<>(
        TopologyNames.PUBLISHED_STORE,
        retention,
        t -> t.getFinal$() ? t.getUpdatedAt() : null,
        new Replaces<>() {
          @Override
          public String formerKey(String key) {
            return null;
          }

          @Override
          public boolean same(PodTimeline former, PodTimeline current) {
            return false;
          }
        });
  }

  /**
   * A workload is over while it wants no replicas and has none. A workload whose key carries its
   * controller's UID was published by a release before under its name alone: that record, in the
   * same partition, goes when the workload's first record under its identity comes, or it would
   * stand as a second, stale copy (counted by the gauges, listed by the API) for good.
   */
  static Published<WorkloadTimeline> workloads(Duration retention) {
    return new Published<>(
        TopologyNames.PUBLISHED_WORKLOADS_STORE,
        retention,
        w -> w.getDesired() == 0 && w.getReady() == 0 ? w.getUpdatedAt() : null,
        new Replaces<>() {
          @Override
          public String formerKey(String key) {
            WorkloadKey id = WorkloadKey.parse(key);
            return id.controllerUid() == null ? null : id.topicKey();
          }

          @Override
          public boolean same(WorkloadTimeline former, WorkloadTimeline current) {
            return WorkloadKey.of(former).identity().equals(WorkloadKey.of(current).identity());
          }
        });
  }

  private final String storeName;
  private final long retentionMs;
  private final Over<V> over;
  private final Replaces<V> replaces;

  /** Stream time and wall time of the last look for what is old. */
  private long lookedAtStream = Long.MIN_VALUE;

  private long lookedAtWall;
  private KeyValueStore<String, V> published;

  /**
   * The keys whose value is over, by the time it became over, and that time by key: a look for what
   * is old reads these, not every value of the store (decoding every published timeline at each
   * look was a tenth of the stream thread by the end of StreamsLoad's sparse backlog). Read from
   * the store at start; the store is the truth across restarts.
   */
  private final TreeMap<Long, Set<String>> overAt = new TreeMap<>();

  private final Map<String, Long> overSince = new HashMap<>();

  private ProcessorContext<Void, Void> context;

  private Published(String storeName, Duration retention, Over<V> over, Replaces<V> replaces) {
    this.storeName = storeName;
    this.retentionMs = retention.toMillis();
    this.over = over;
    this.replaces = replaces;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.published = context.getStateStore(storeName);
    try (KeyValueIterator<String, V> it = published.all()) {
      it.forEachRemaining(kv -> index(kv.key, kv.value));
    }
    context.schedule(
        Duration.ofSeconds(60),
        PunctuationType.WALL_CLOCK_TIME,
        wall -> forgetOld(context.currentStreamTimeMs()));
    // A look that process() put off (stream time moved on within a wall second of the last look,
    // then the records stopped) runs within a second, not at the next minute's scan.
    context.schedule(
        Duration.ofSeconds(1),
        PunctuationType.WALL_CLOCK_TIME,
        wall -> {
          if (due(context.currentStreamTimeMs(), wall)) {
            forgetOld(context.currentStreamTimeMs());
          }
        });
  }

  @Override
  public void process(Record<String, V> record) {
    if (record.value() == null) {
      published.delete(record.key());
      index(record.key(), null);
    } else {
      String former = replaces.formerKey(record.key());
      if (former != null) {
        V old = published.get(former);
        if (old != null && replaces.same(old, record.value())) {
          published.delete(former);
          index(former, null);
        }
      }
      published.put(record.key(), record.value());
      index(record.key(), record.value());
    }
    long streamTime = context.currentStreamTimeMs();
    long wall = context.currentSystemTimeMs();
    if (lookedAtStream == Long.MIN_VALUE) {
      lookedAtStream = streamTime; // the first record: nothing is old yet
    } else if (due(streamTime, wall)) {
      forgetOld(streamTime);
    }
  }

  /**
   * Whether to look for what is old: stream time moved a quarter of the retention since the last
   * look, and a wall second passed.
   */
  private boolean due(long streamTime, long wall) {
    return lookedAtStream != Long.MIN_VALUE
        && streamTime - lookedAtStream >= retentionMs / 4
        && wall - lookedAtWall >= 1_000;
  }

  private void forgetOld(long streamTime) {
    lookedAtStream = streamTime;
    lookedAtWall = context.currentSystemTimeMs();
    // over strictly before streamTime - retention, in the order of when each became over
    while (!overAt.isEmpty() && overAt.firstKey() < streamTime - retentionMs) {
      for (String key : overAt.pollFirstEntry().getValue()) {
        overSince.remove(key);
        published.delete(key);
      }
    }
  }

  /** Notes what the store now holds under {@code key} (null: nothing), and whether it is over. */
  private void index(String key, V value) {
    Long before = overSince.remove(key);
    if (before != null) {
      Set<String> keys = overAt.get(before);
      keys.remove(key);
      if (keys.isEmpty()) {
        overAt.remove(before);
      }
    }
    Long since = value == null ? null : over.since(value);
    if (since != null) {
      overSince.put(key, since);
      overAt.computeIfAbsent(since, t -> new TreeSet<>()).add(key);
    }
  }
}
