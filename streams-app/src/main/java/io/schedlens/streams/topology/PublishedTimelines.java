package io.schedlens.streams.topology;

import io.schedlens.avro.PodTimeline;
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
 * Keeps the latest published timeline of every live pod, and of gone pods for a while, in a store
 * the API and the gauges query (Kafka Streams interactive queries). Fed from the published topic,
 * so it answers with exactly what consumers see.
 */
final class PublishedTimelines implements Processor<String, PodTimeline, Void, Void> {

  private final long retentionMs;

  /** Stream time and wall time of the last look for what is old. */
  private long lookedAtStream = Long.MIN_VALUE;

  private long lookedAtWall;
  private KeyValueStore<String, PodTimeline> published;
  private ProcessorContext<Void, Void> context;

  PublishedTimelines(Duration retention) {
    this.retentionMs = retention.toMillis();
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.published = context.getStateStore(TimelineTopology.PUBLISHED_STORE);
    // Wall clock, not stream time: in a replay, event time runs far faster than the scan is worth.
    context.schedule(
        Duration.ofSeconds(60),
        PunctuationType.WALL_CLOCK_TIME,
        wall -> forgetOldFinals(context.currentStreamTimeMs()));
  }

  @Override
  public void process(Record<String, PodTimeline> record) {
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
      forgetOldFinals(streamTime);
    }
  }

  private void forgetOldFinals(long streamTime) {
    lookedAtStream = streamTime;
    lookedAtWall = context.currentSystemTimeMs();
    List<String> old = new ArrayList<>();
    try (KeyValueIterator<String, PodTimeline> it = published.all()) {
      while (it.hasNext()) {
        var kv = it.next();
        if (kv.value.getFinal$() && kv.value.getUpdatedAt() < streamTime - retentionMs) {
          old.add(kv.key);
        }
      }
    }
    old.forEach(published::delete);
  }
}
