package io.schedlens.streams.topology;

import java.util.HashMap;
import java.util.Map;

/**
 * Event-time progress across the app's tasks. Kafka Streams keeps a stream time per task, but the
 * resolve and timeline stages feed each other through topics: when a backlog is processed (after
 * downtime, or in a replay), one task's stream time can run far ahead of another's, and a pod's
 * final timeline would go out before GPU samples or answers still on their way from a slower task.
 * Every task therefore broadcasts how far it has sent everything (its watermark); a final timeline
 * waits until every task of both stages has passed its due time.
 *
 * <p>A task idle for a while with nothing held back reports no limit, so a quiet partition does not
 * hold the others back; when the whole app is idle, pending finals go out without waiting for the
 * rest of their grace period.
 */
final class Watermarks {

  static final String RESOLVE = "resolve";
  static final String TIMELINE = "timeline";
  static final String WORKLOAD = "workload";

  private final int partitions;
  private final Map<String, Long> marks = new HashMap<>();

  Watermarks(int partitions) {
    this.partitions = partitions;
  }

  /** Records a task's watermark (they only move forward). */
  void update(String stage, int partition, long time) {
    marks.merge(stage + ":" + partition, time, Math::max);
  }

  /** The event time every task of every stage has passed; Long.MIN_VALUE until all have spoken. */
  long safeTime() {
    return safeTime(RESOLVE, TIMELINE, WORKLOAD);
  }

  /** The event time every task of the given stages has passed; Long.MIN_VALUE until all spoke. */
  long safeTime(String... stages) {
    long safe = Long.MAX_VALUE;
    for (String stage : stages) {
      for (int p = 0; p < partitions; p++) {
        Long m = marks.get(stage + ":" + p);
        if (m == null) {
          return Long.MIN_VALUE;
        }
        safe = Math.min(safe, m);
      }
    }
    return safe;
  }
}
