package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.simulator.scenario.Kueue;
import io.schedlens.simulator.scenario.Scenario.GpuQuota;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Kueue as a policy runs it: the policy's own {@code kueue} (ClusterQueues with cohorts,
 * LocalQueues, WorkloadPriorityClasses) and each of its quotas as one more ClusterQueue of its
 * nominal GPUs (no cohort, no preemption) with a LocalQueue of the same name; and which queue each
 * observed Job waits in. A Job in a queue waits suspended, without pods, until Kueue admits its
 * Workload, as Kueue's Job integration holds it. Pure.
 */
final class PolicyKueue {

  private final Policy policy;
  private final Kueue kueue;

  /** Per LocalQueue, the Jobs put in it, for the assumption that tells it. */
  private final Map<String, Integer> queued = new TreeMap<>();

  private int jobSetsLeftOut;

  PolicyKueue(Policy policy) {
    this.policy = policy;
    List<Kueue.ClusterQueue> cqs = new ArrayList<>(policy.kueue().clusterQueues());
    List<Kueue.LocalQueue> lqs = new ArrayList<>(policy.kueue().localQueues());
    for (GpuQuota q : policy.quotas()) {
      cqs.add(new Kueue.ClusterQueue(q.name(), null, q.nominalGpus(), null, "Never", "Never"));
      lqs.add(new Kueue.LocalQueue(q.name(), q.name()));
    }
    this.kueue = new Kueue(cqs, lqs, policy.kueue().workloadPriorityClasses());
  }

  /** The Kueue of the predicted cluster ({@link Kueue#NONE} when the policy has none). */
  Kueue kueue() {
    return kueue;
  }

  /**
   * The LocalQueue a Job of these pods waits in under the policy, or null: its rule's; else the one
   * it was observed in, if the policy's Kueue has it; else that of the first quota that covers it
   * (its class under the policy, the simulated namespace). A JobSet waits in none (Kueue's JobSet
   * integration is not simulated): a quota holds its pods at the gate instead.
   */
  String queueOf(
      Policy.WorkloadRule rule,
      List<PodTimeline> pods,
      String priorityClass,
      String namespace,
      boolean jobSet) {
    String queue = rule.queue();
    if (queue == null) {
      String observed = pods.get(0).getQueue();
      if (observed != null && kueue.localQueue(observed) != null) {
        queue = observed;
      } else {
        queue =
            policy.quotas().stream()
                .filter(q -> q.covers(priorityClass, namespace))
                .map(GpuQuota::name)
                .findFirst()
                .orElse(null);
      }
    }
    if (queue == null || queue.equals(Policy.NO_CLASS)) {
      return null;
    }
    if (jobSet) {
      jobSetsLeftOut++;
      return null;
    }
    queued.merge(queue, 1, Integer::sum);
    return queue;
  }

  /** The WorkloadPriorityClass a Job in {@code queue} names under its rule, or null. */
  static String workloadPriorityClassOf(Policy.WorkloadRule rule, String queue) {
    return queue == null ? null : rule.workloadPriorityClass();
  }

  /** What the prediction assumed of Kueue, for the run's assumptions. */
  void assumptions(List<String> out) {
    if (!queued.isEmpty()) {
      List<String> each = new ArrayList<>();
      queued.forEach((q, n) -> each.add(q + " " + n + (n == 1 ? " Job" : " Jobs")));
      out.add(
          "Jobs wait suspended in their Kueue queue until admitted, without pods meanwhile: "
              + String.join(", ", each));
    }
    if (jobSetsLeftOut > 0) {
      out.add(
          jobSetsLeftOut
              + " JobSet(s) of a Kueue queue run without it (a JobSet in a queue is not"
              + " simulated); a quota that covers them holds their pods at the gate");
    }
  }
}
