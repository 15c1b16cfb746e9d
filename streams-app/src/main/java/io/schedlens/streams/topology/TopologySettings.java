package io.schedlens.streams.topology;

import io.schedlens.streams.timeline.TimelineSettings;
import java.time.Duration;

/**
 * What the topology needs besides its topics.
 *
 * @param timeline the timeline logic's settings
 * @param emitInterval how often timelines whose counters changed are emitted
 * @param orphanTimeout how long inputs for a never-observed pod are kept
 * @param identityHistory how far back names resolve to UIDs
 * @param apiRetention how long final timelines stay queryable
 * @param partitions partitions of the co-partitioned topics: how many tasks each stage has
 * @param idleTimeout a task that read nothing for this long, with nothing held back, no longer
 *     holds back final timelines
 */
public record TopologySettings(
    TimelineSettings timeline,
    Duration emitInterval,
    Duration orphanTimeout,
    Duration identityHistory,
    Duration apiRetention,
    int partitions,
    Duration idleTimeout) {

  /** How often each task broadcasts its watermark. */
  static final Duration WATERMARK_INTERVAL = Duration.ofMillis(500);

  public static TopologySettings defaults() {
    return new TopologySettings(
        TimelineSettings.defaults(),
        Duration.ofSeconds(2),
        Duration.ofHours(1),
        Duration.ofHours(24),
        Duration.ofHours(6),
        1,
        Duration.ofSeconds(5));
  }

  public TopologySettings withTimeline(TimelineSettings t) {
    return new TopologySettings(
        t, emitInterval, orphanTimeout, identityHistory, apiRetention, partitions, idleTimeout);
  }
}
