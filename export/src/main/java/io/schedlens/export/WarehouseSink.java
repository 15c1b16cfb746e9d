package io.schedlens.export;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the export goes. A sink keeps the topic offsets together with the data it wrote and commits
 * both at once, so that after any crash it resumes exactly after what it holds: each record exactly
 * once, without Kafka's consumer-group offsets.
 */
public interface WarehouseSink extends AutoCloseable {

  /** The next offset to read per partition of each topic, as committed with the data. */
  Map<TopicPartition, Long> committedOffsets() throws Exception;

  /**
   * Writes one batch and moves the committed offsets to {@code batch.next()} (per partition, the
   * position after the batch's last record), atomically.
   */
  void write(Batch batch) throws Exception;

  /** A record with where it came from, and its key (a workload's: its identity). */
  record Exported<T>(int partition, long offset, String key, T value) {}

  /**
   * What one commit holds: final pod timelines, the latest timeline of each workload that changed
   * (one per key, the last read), and the positions after them.
   */
  record Batch(
      List<Exported<PodTimeline>> pods,
      List<Exported<WorkloadTimeline>> workloads,
      Map<TopicPartition, Long> next) {

    public static Batch ofPods(List<Exported<PodTimeline>> pods, Map<TopicPartition, Long> next) {
      return new Batch(pods, List.of(), next);
    }

    public int size() {
      return pods.size() + workloads.size();
    }
  }
}
