package io.schedlens.streams.topology;

import io.schedlens.avro.WorkloadTimeline;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the latest published timeline of every workload in a store the API queries. A workload is
 * small and long-lived (a Deployment outlives its pods), so nothing is forgotten here: the topic is
 * compacted to the latest per workload, and a tombstone removes one.
 */
final class PublishedWorkloads implements Processor<String, WorkloadTimeline, Void, Void> {

  private KeyValueStore<String, WorkloadTimeline> published;

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.published = context.getStateStore(TimelineTopology.PUBLISHED_WORKLOADS_STORE);
  }

  @Override
  public void process(Record<String, WorkloadTimeline> record) {
    if (record.value() == null) {
      published.delete(record.key());
    } else {
      published.put(record.key(), record.value());
    }
  }
}
