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
  private KeyValueStore<String, WorkloadTimeline> published;

  PublishedWorkloads(Duration retention) {
    this.retentionMs = retention.toMillis();
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
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
  }

  private void forgetIdle(long streamTime) {
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
