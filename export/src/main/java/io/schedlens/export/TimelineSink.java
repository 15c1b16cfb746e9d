package io.schedlens.export;

import io.schedlens.avro.PodTimeline;
import java.util.List;
import java.util.Map;

/**
 * Where final timelines go. A sink keeps the topic offsets together with the data it wrote and
 * commits both at once, so that after any crash it resumes exactly after what it holds: each
 * timeline exactly once, without Kafka's consumer-group offsets.
 */
public interface TimelineSink extends AutoCloseable {

  /** The next offset to read per partition of the topic, as committed with the data. */
  Map<Integer, Long> committedOffsets() throws Exception;

  /**
   * Writes the final timelines of one batch and moves the committed offsets to {@code next} (per
   * partition, the offset after the batch's last record), atomically.
   */
  void write(List<Exported> finals, Map<Integer, Long> next) throws Exception;

  /** A final timeline with where it came from. */
  record Exported(int partition, long offset, PodTimeline timeline) {}
}
