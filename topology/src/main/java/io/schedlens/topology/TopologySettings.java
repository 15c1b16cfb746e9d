package io.schedlens.topology;

import io.schedlens.timeline.TimelineSettings;
import java.time.Duration;

/**
 * What the topology needs besides its topics.
 *
 * @param timeline the timeline logic's settings
 * @param emitInterval how often timelines whose counters changed are published
 * @param orphanTimeout how long inputs for a never-observed pod are kept, and a finished pod's stub
 *     (so that its late inputs are known as late)
 * @param dedupWindow how long a request id is remembered per pod and second (a line sent again
 *     within it counts once); at least the grace period
 * @param apiRetention how long final timelines stay queryable
 * @param partitions partitions of the co-partitioned topics: how many tasks each stage has
 * @param hotObjects states kept decoded per store and task ({@link HotStore}); 0 decodes every read
 *     (tests use it to run every path through the stores' bytes)
 */
public record TopologySettings(
    TimelineSettings timeline,
    Duration emitInterval,
    Duration orphanTimeout,
    Duration dedupWindow,
    Duration apiRetention,
    int partitions,
    int hotObjects) {

  /** How often each task broadcasts its watermark (when it moved). */
  static final Duration WATERMARK_INTERVAL = Duration.ofMillis(100);

  public TopologySettings {
    if (dedupWindow.compareTo(timeline.grace()) < 0) {
      throw new IllegalArgumentException(
          "the de-duplication window ("
              + dedupWindow
              + ") must be at least the grace period ("
              + timeline.grace()
              + "): a shipper may send a line again as late as the grace period allows");
    }
  }

  public static TopologySettings defaults() {
    return new TopologySettings(
        TimelineSettings.defaults(),
        Duration.ofSeconds(2),
        Duration.ofHours(1),
        Duration.ofMinutes(10),
        Duration.ofHours(6),
        1,
        20_000);
  }

  public TopologySettings withTimeline(TimelineSettings t) {
    return new TopologySettings(
        t,
        emitInterval,
        orphanTimeout,
        dedupWindow.compareTo(t.grace()) < 0 ? t.grace() : dedupWindow,
        apiRetention,
        partitions,
        hotObjects);
  }

  public TopologySettings withPartitions(int n) {
    return new TopologySettings(
        timeline, emitInterval, orphanTimeout, dedupWindow, apiRetention, n, hotObjects);
  }

  /** A copy that keeps {@code n} decoded states per store and task. */
  public TopologySettings withHotObjects(int n) {
    return new TopologySettings(
        timeline, emitInterval, orphanTimeout, dedupWindow, apiRetention, partitions, n);
  }
}
