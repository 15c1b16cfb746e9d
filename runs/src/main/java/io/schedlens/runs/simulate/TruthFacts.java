package io.schedlens.runs.simulate;

import io.schedlens.base.DisruptionCause;
import io.schedlens.base.Outcome;
import io.schedlens.report.PodFacts;
import io.schedlens.simulator.cluster.PodTruth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The simulator's ground truth in the report's terms, with docs/design.md's definitions (Pending of
 * a pod never scheduled is its whole life; starving: pending longer than the threshold, or its
 * workload preempted at least {@code starvationPreemptions} times without completing).
 */
public final class TruthFacts {

  private static final String QUEUE_PREEMPTION = DisruptionCause.QUEUE_PREEMPTION.wire();

  private TruthFacts() {}

  public static List<PodFacts> of(
      List<PodTruth> truth, long starvationPendingMs, int starvationPreemptions) {
    Map<String, Integer> preemptions = new HashMap<>();
    Map<String, Set<Long>> queuePreemptions = new HashMap<>();
    Map<String, Boolean> completed = new HashMap<>();
    for (PodTruth t : truth) {
      String w = workloadKey(t);
      if (QUEUE_PREEMPTION.equals(t.cause())) {
        // Kueue preempts a Workload, not a pod: each preemption counts once.
        queuePreemptions.computeIfAbsent(w, k -> new HashSet<>()).add(t.preemptedAt());
      } else if (t.preemptedAt() != null) {
        preemptions.merge(w, 1, Integer::sum);
      }
      if (Outcome.SUCCEEDED.wire().equals(t.outcome()) && "Job".equals(t.workloadKind())) {
        completed.put(w, true);
      }
    }
    queuePreemptions.forEach((w, at) -> preemptions.merge(w, at.size(), Integer::sum));
    List<PodFacts> out = new ArrayList<>();
    for (PodTruth t : truth) {
      boolean never = t.scheduledAt() == null;
      Long pending =
          never ? (t.deletedAt() == null ? null : t.deletedAt() - t.createdAt()) : t.pendingMs();
      String w = workloadKey(t);
      boolean starving =
          (pending != null && pending > starvationPendingMs)
              || (preemptions.getOrDefault(w, 0) >= starvationPreemptions
                  && !completed.getOrDefault(w, false));
      out.add(
          new PodFacts(
              t.arm(),
              Integer.toString(t.repeat()),
              t.workload(),
              t.workloadKind(),
              t.priorityClass(),
              pending,
              never,
              t.readyAt() == null ? null : t.readyAt() - t.createdAt(),
              t.firstOkRequestAt() == null ? null : t.firstOkRequestAt() - t.createdAt(),
              t.preemptedAt() != null,
              t.wastedGpuSeconds() == null ? 0 : t.wastedGpuSeconds(),
              t.requests(),
              t.sloBreaches(),
              starving,
              t.outcome(),
              0, // the simulator restarts no container
              t.queueWaitMs(),
              QUEUE_PREEMPTION.equals(t.cause())));
    }
    return out;
  }

  private static String workloadKey(PodTruth t) {
    return t.arm() + "/" + t.repeat() + "/" + t.workload();
  }
}
