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
 */
public record TopologySettings(
    TimelineSettings timeline,
    Duration emitInterval,
    Duration orphanTimeout,
    Duration identityHistory,
    Duration apiRetention) {

  public static TopologySettings defaults() {
    return new TopologySettings(
        TimelineSettings.defaults(),
        Duration.ofSeconds(2),
        Duration.ofHours(1),
        Duration.ofHours(24),
        Duration.ofHours(6));
  }

  public TopologySettings withTimeline(TimelineSettings t) {
    return new TopologySettings(t, emitInterval, orphanTimeout, identityHistory, apiRetention);
  }
}
