package io.schedlens.simulator.cluster;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The GPUs Kueue has admitted, per ClusterQueue, kept as Workloads take and release quota (not
 * recounted from every Workload: a week-long what-if has tens of thousands of them), and the Jobs
 * Kueue queues. Shared by Kueue's manager and the scheduling queue's quota gate, so that an arm's
 * GPU quota (also a ClusterQueue of the same name) counts its admitted Jobs and its gated pods
 * once: the gate does not hold a pod of a Job Kueue admitted, and each side counts what the other
 * holds.
 */
final class QuotaLedger {

  private final Map<String, Integer> admitted = new HashMap<>();
  private final Set<String> queuedJobs = new HashSet<>();

  /** A Workload of {@code clusterQueue} took {@code gpus} of its quota (it was admitted). */
  void take(String clusterQueue, int gpus) {
    admitted.merge(clusterQueue, gpus, Integer::sum);
  }

  /** A Workload of {@code clusterQueue} gave back {@code gpus} (re-queued, finished or gone). */
  void giveBack(String clusterQueue, int gpus) {
    int left = admitted.getOrDefault(clusterQueue, 0) - gpus;
    if (left < 0) {
      throw new IllegalStateException(
          "ClusterQueue "
              + clusterQueue
              + " would hold "
              + left
              + " GPUs: a release was counted twice");
    }
    admitted.put(clusterQueue, left);
  }

  /** The GPUs the admitted (and evicting) Workloads of {@code clusterQueue} hold. */
  int admitted(String clusterQueue) {
    return admitted.getOrDefault(clusterQueue, 0);
  }

  /** A copy of what every ClusterQueue holds, for one scheduling cycle to count on. */
  Map<String, Integer> admittedCopy() {
    return new HashMap<>(admitted);
  }

  /** Kueue queues the Job {@code jobUid}: its pods exist only once its Workload is admitted. */
  void queued(String jobUid) {
    queuedJobs.add(jobUid);
  }

  /** Whether the Job {@code jobUid} (a pod's owner) is one Kueue queues. */
  boolean isQueued(String jobUid) {
    return jobUid != null && queuedJobs.contains(jobUid);
  }
}
