package io.schedlens.streams.topology;

import io.schedlens.avro.WorkloadTimeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the latest published timeline of every workload in a store the API queries: a workload that
 * wants replicas or has a Ready one for as long as it is published, one that wants none and has
 * none (deleted, scaled to zero, a finished Job) for the API's retention of gone pods after its
 * last change. A tombstone removes one.
 */
final class PublishedWorkloads implements Processor<String, WorkloadTimeline, Void, Void> {

  private final long retentionMs;

  /** Stream time and wall time of the last look for what is old. */
  private long lookedAtStream = Long.MIN_VALUE;

  private long lookedAtWall;
  private KeyValueStore<String, WorkloadTimeline> published;
  private ProcessorContext<Void, Void> context;

  PublishedWorkloads(Duration retention) {
    this.retentionMs = retention.toMillis();
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.published = context.getStateStore(TimelineTopology.PUBLISHED_WORKLOADS_STORE);
    // Wall clock decides when to look, stream time what is old (as for the pods' timelines).
    context.schedule(
        Duration.ofSeconds(60),
        PunctuationType.WALL_CLOCK_TIME,
        wall -> forgetIdle(context.currentStreamTimeMs()));
  }

  @Override
  public void process(Record<String, WorkloadTimeline> record) {
    if (record.value() == null) {
      published.delete(record.key());
    } else {
      published.put(record.key(), record.value());
    }
    // Also when stream time has moved a quarter of the retention since the last look (a replay
    // or a backlog runs through hours of event time in wall-clock seconds), at most once a second.
    long streamTime = context.currentStreamTimeMs();
    long wall = context.currentSystemTimeMs();
    if (lookedAtStream == Long.MIN_VALUE) {
      lookedAtStream = streamTime; // the first record: nothing is old yet
    } else if (streamTime - lookedAtStream >= retentionMs / 4 && wall - lookedAtWall >= 1_000) {
      forgetIdle(streamTime);
    }
  }

  private void forgetIdle(long streamTime) {
    lookedAtStream = streamTime;
    lookedAtWall = context.currentSystemTimeMs();
    List<String> idle = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadTimeline> it = published.all()) {
      while (it.hasNext()) {
        var kv = it.next();
        WorkloadTimeline w = kv.value;
        if (w.getDesired() == 0
            && w.getReady() == 0
            && w.getUpdatedAt() < streamTime - retentionMs) {
          idle.add(kv.key);
        }
      }
    }
    idle.forEach(published::delete);
  }
}
