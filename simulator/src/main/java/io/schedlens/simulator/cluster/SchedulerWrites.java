package io.schedlens.simulator.cluster;

/**
 * How the simulated kube-scheduler writes a pod's failed attempts to the API.
 *
 * <ul>
 *   <li>{@link #EVERY_ATTEMPT}: each attempt updates the pod's FailedScheduling event series (its
 *       count one more) and writes PodScheduled=False to the pod's status. The demo and the
 *       experiments run this way: it puts the pipeline's de-duplication of series counts under
 *       load.
 *   <li>{@link #ON_CHANGE}: kube-scheduler's own economy. The pod's status is written only when its
 *       PodScheduled condition or its nominated node changes (the scheduler's {@code updatePod}
 *       skips a patch that changes nothing). Events go through client-go's {@code events/v1}
 *       broadcaster: the first event is created, the second with the same note starts a series
 *       (count 2), later repeats only count in memory, and the series is written again every {@link
 *       #SERIES_REFRESH_MS} while it goes on and once when it ends (client-go writes it within 6 to
 *       12 minutes of the last repeat; here at once when the pod is bound or deleted, so that the
 *       final count is known before the pod's timeline closes). A what-if predicts this way: a week
 *       of a busy cluster otherwise writes tens of records per pod for nothing.
 * </ul>
 */
public enum SchedulerWrites {
  EVERY_ATTEMPT,
  ON_CHANGE;

  /** client-go's {@code refreshTime}: a running series is written at least this often. */
  public static final long SERIES_REFRESH_MS = 30 * 60_000;
}
