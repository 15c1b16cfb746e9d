package io.schedlens.simulator.cluster;

import io.schedlens.simulator.cluster.QueuedWorkload.Stand;
import io.schedlens.simulator.scenario.Kueue;
import io.schedlens.simulator.scenario.Kueue.ClusterQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kueue's quota arithmetic and classical preemption for one resource (GPUs) and one flavor, after
 * Kueue's scheduler and {@code pkg/scheduler/preemption} (v0.14+, fair sharing off):
 *
 * <ul>
 *   <li>a Workload fits when its ClusterQueue's usage with it stays within the nominal quota, or,
 *       in a cohort, within what the cohort's members leave unused and the ClusterQueue's borrowing
 *       limit (a nominal quota lent to a borrower is had back only by reclaiming it);
 *   <li>a Workload that does not fit may preempt lower-priority Workloads of its own ClusterQueue
 *       ({@code withinClusterQueue: LowerPriority}) and, when it would fit in its own nominal
 *       quota, Workloads of cohort members that borrow ({@code reclaimWithinCohort}: {@code Any},
 *       or {@code LowerPriority} for lower-priority ones only);
 *   <li>candidates are taken in Kueue's order (already evicted first, then other ClusterQueues'
 *       before its own, lower priority first, most recently admitted first) until it fits; then
 *       every candidate it fits without is given back, latest first.
 * </ul>
 *
 * Pure: it reads the Workloads it is given and changes none.
 */
final class KueuePreemption {

  /** A Workload to preempt and Kueue's reason: InClusterQueue or InCohortReclamation. */
  record Victim(QueuedWorkload workload, String reason) {}

  private final Kueue kueue;

  KueuePreemption(Kueue kueue) {
    this.kueue = kueue;
  }

  /**
   * Whether {@code w} fits with the ClusterQueues' {@code usage} as given: within its nominal quota
   * when it has no cohort; in a cohort, within what the cohort's members leave unused (its own
   * nominal quota may be lent to a borrower, and is then only had back by reclaiming it) and within
   * its borrowing limit.
   */
  boolean fits(QueuedWorkload w, Map<String, Integer> usage) {
    ClusterQueue cq = w.clusterQueue;
    int mine = usage.getOrDefault(cq.name(), 0) + w.gpus;
    if (cq.cohort() == null) {
      return mine <= cq.nominalGpus();
    }
    if (cq.borrowingLimitGpus() != null && mine - cq.nominalGpus() > cq.borrowingLimitGpus()) {
      return false;
    }
    int nominal = 0;
    int used = 0;
    for (ClusterQueue c : kueue.clusterQueues()) {
      if (cq.cohort().equals(c.cohort())) {
        nominal += c.nominalGpus();
        used += usage.getOrDefault(c.name(), 0);
      }
    }
    return used + w.gpus <= nominal;
  }

  /** Whether {@code w} would need to borrow to fit. */
  boolean borrows(QueuedWorkload w, Map<String, Integer> usage) {
    return usage.getOrDefault(w.clusterQueue.name(), 0) + w.gpus > w.clusterQueue.nominalGpus();
  }

  /**
   * The Workloads {@code w} preempts to fit (some may be evicting already), or null when no set of
   * candidates makes it fit.
   *
   * @param holding the Workloads that hold quota (others are passed over)
   * @param usage the GPUs each ClusterQueue holds, as {@link #fits} takes them; not changed
   */
  List<Victim> victims(
      QueuedWorkload w, Collection<QueuedWorkload> holding, Map<String, Integer> usage) {
    ClusterQueue cq = w.clusterQueue;
    boolean reclaim =
        cq.cohort() != null
            && !cq.reclaimWithinCohort().equals("Never")
            && usage.getOrDefault(cq.name(), 0) + w.gpus <= cq.nominalGpus();
    if (!reclaim && cq.withinClusterQueue().equals("Never")) {
      return null; // nothing it may preempt
    }
    List<QueuedWorkload> candidates = new ArrayList<>();
    for (QueuedWorkload o : holding) {
      if (!o.holdsQuota() || o == w) {
        continue;
      }
      ClusterQueue ocq = o.clusterQueue;
      if (ocq == cq) {
        if (cq.withinClusterQueue().equals("LowerPriority") && o.priority < w.priority) {
          candidates.add(o);
        }
      } else if (reclaim
          && cq.cohort().equals(ocq.cohort())
          && usage.getOrDefault(ocq.name(), 0) > ocq.nominalGpus()
          && (cq.reclaimWithinCohort().equals("Any") || o.priority < w.priority)) {
        candidates.add(o);
      }
    }
    candidates.sort(
        Comparator.<QueuedWorkload>comparingInt(o -> o.stand == Stand.EVICTING ? 0 : 1)
            .thenComparingInt(o -> o.clusterQueue == cq ? 1 : 0)
            .thenComparingInt(o -> o.priority)
            .thenComparing(o -> -o.admittedAt)
            .thenComparing(o -> o.uid));
    Map<String, Integer> left = new HashMap<>(usage);
    List<QueuedWorkload> chosen = new ArrayList<>();
    for (QueuedWorkload o : candidates) {
      if (fits(w, left)) {
        break;
      }
      ClusterQueue ocq = o.clusterQueue;
      if (ocq != cq && left.getOrDefault(ocq.name(), 0) <= ocq.nominalGpus()) {
        continue; // no longer borrowing: nothing of it to reclaim
      }
      left.merge(ocq.name(), -o.gpus, Integer::sum);
      chosen.add(o);
    }
    if (!fits(w, left)) {
      return null;
    }
    for (int i = chosen.size() - 1; i >= 0; i--) {
      QueuedWorkload o = chosen.get(i);
      left.merge(o.clusterQueue.name(), o.gpus, Integer::sum);
      if (fits(w, left)) {
        chosen.remove(i);
      } else {
        left.merge(o.clusterQueue.name(), -o.gpus, Integer::sum);
      }
    }
    return chosen.stream()
        .map(o -> new Victim(o, o.clusterQueue == cq ? "InClusterQueue" : "InCohortReclamation"))
        .toList();
  }
}
