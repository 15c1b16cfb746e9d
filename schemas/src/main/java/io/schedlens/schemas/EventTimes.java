package io.schedlens.schemas;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueWorkload;

/**
 * The event time of each wire record: when the fact it reports happened, as Kubernetes, DCGM or the
 * server recorded it. It becomes the Kafka record timestamp, so that every consumer's notion of
 * time is event time, never the time a record was read.
 */
public final class EventTimes {

  private EventTimes() {}

  /**
   * The latest occurrence of an event: the series' last observation, the legacy last timestamp, the
   * first observation, whichever is latest and known; else when it was read.
   */
  public static long of(ClusterEvent e) {
    long t = 0;
    t = max(t, e.getSeriesLastObservedTime());
    t = max(t, e.getLastTimestamp());
    t = max(t, e.getEventTime());
    t = max(t, e.getFirstTimestamp());
    return t > 0 ? t : e.getObservedAt();
  }

  /**
   * The time of the latest fact a Kueue Workload's observation tells: its latest condition
   * transition, else its creation.
   */
  public static long latestFact(QueueWorkload w) {
    long t = w.getCreatedAt();
    for (QueueCondition c : w.getConditions()) {
      if (c.getLastTransitionTime() != null) {
        t = Math.max(t, c.getLastTransitionTime());
      }
    }
    return t;
  }

  /**
   * The time of the latest fact a pod projection carries: creation, a condition transition, a
   * container start or finish, or the deletion request, whichever is latest. A watch event carries
   * no time of its own; this is the closest event time the object gives.
   */
  public static long latestFact(PodObservation p) {
    long t = p.getCreatedAt();
    for (PodCondition c : p.getConditions()) {
      t = max(t, c.getLastTransitionTime());
    }
    for (ContainerStatus c : p.getContainers()) {
      t = max(t, c.getRunningStartedAt());
      t = max(t, c.getTerminatedStartedAt());
      t = max(t, c.getTerminatedFinishedAt());
      t = max(t, c.getLastTerminatedFinishedAt());
    }
    if (p.getStartTime() != null) {
      t = Math.max(t, p.getStartTime());
    }
    return t;
  }

  private static long max(long a, Long b) {
    return Math.max(a, b == null ? 0 : b);
  }
}
