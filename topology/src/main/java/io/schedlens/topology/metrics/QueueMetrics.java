package io.schedlens.topology.metrics;

import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueEviction;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.timeline.QueueAdmissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the workload stage adds to the Prometheus metrics from a Kueue Workload's observation: each
 * admission's wait and each eviction, once (what was counted is what the workload's state already
 * held, so a repeated observation or a restart counts nothing twice). No pod or workload name as a
 * label: the queue, its ClusterQueue and the class.
 */
public final class QueueMetrics {

  private QueueMetrics() {}

  /** Counts the admissions and evictions in {@code after} that {@code before} did not hold. */
  public static void count(
      StreamsMetrics metrics,
      String namespace,
      String workloadKind,
      QueueWorkload q,
      QueueAdmissions.Known before,
      QueueAdmissions.Known after) {
    Set<Long> admitted = new HashSet<>();
    before.admissions().forEach(a -> admitted.add(a.getAdmittedAt()));
    for (QueueAdmission a : after.admissions()) {
      if (!admitted.contains(a.getAdmittedAt()) && a.getQueueWaitMs() != null) {
        metrics
            .queueWait
            .labelValues(
                namespace,
                orEmpty(a.getQueue()),
                orEmpty(a.getClusterQueue()),
                orEmpty(a.getPriorityClass()),
                workloadKind)
            .observe(a.getQueueWaitMs() / 1000.0);
      }
    }
    Set<Long> evicted = new HashSet<>();
    before.evictions().forEach(e -> evicted.add(e.getAt()));
    List<QueueEviction> now = after.evictions();
    for (QueueEviction e : now) {
      if (!evicted.contains(e.getAt())) {
        metrics
            .queueEvictions
            .labelValues(
                namespace,
                orEmpty(q.getLocalQueue()),
                QueueAdmissions.causeOf(e).wire(),
                e.getReason(),
                orEmpty(e.getPreemptionReason()))
            .inc();
      }
    }
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
