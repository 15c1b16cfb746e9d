package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.simulator.scenario.Kueue.ClusterQueue;
import io.schedlens.simulator.scenario.Kueue.LocalQueue;
import io.schedlens.simulator.scenario.Kueue.WorkloadPriorityClass;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A scenario's {@code kueue:} section (ClusterQueues, LocalQueues, WorkloadPriorityClasses) and
 * what the Jobs that name its queues must agree on. See {@code scenarios/kueue.yaml} for each
 * field.
 */
final class KueueLoader {

  private static final List<String> WITHIN = List.of("Never", "LowerPriority");
  private static final List<String> RECLAIM = List.of("Never", "LowerPriority", "Any");

  private final YamlFields fields;

  KueueLoader(YamlFields fields) {
    this.fields = fields;
  }

  Kueue kueue(JsonNode root) {
    JsonNode n = root.get("kueue");
    if (n == null || n.isNull()) {
      return Kueue.NONE;
    }
    String p = "kueue";
    fields.known(n, p, "clusterQueues", "localQueues", "workloadPriorityClasses");
    List<ClusterQueue> cqs = new ArrayList<>();
    fields.forEach(n, p, "clusterQueues", true, (x, q) -> cqs.add(clusterQueue(x, q)));
    List<LocalQueue> lqs = new ArrayList<>();
    fields.forEach(
        n,
        p,
        "localQueues",
        true,
        (x, q) -> {
          fields.known(x, q, "name", "clusterQueue");
          lqs.add(
              new LocalQueue(
                  fields.dnsName(x, q, "name", null), fields.dnsName(x, q, "clusterQueue", null)));
        });
    List<WorkloadPriorityClass> classes = new ArrayList<>();
    fields.forEach(
        n,
        p,
        "workloadPriorityClasses",
        (x, q) -> {
          fields.known(x, q, "name", "value");
          classes.add(
              new WorkloadPriorityClass(
                  fields.dnsName(x, q, "name", null),
                  fields.intValue(x, q, "value", null, -2_147_483_648, 1_000_000_000)));
        });
    fields.unique(cqs.stream().map(ClusterQueue::name).toList(), "kueue.clusterQueues", "name");
    fields.unique(lqs.stream().map(LocalQueue::name).toList(), "kueue.localQueues", "name");
    fields.unique(
        classes.stream().map(WorkloadPriorityClass::name).toList(),
        "kueue.workloadPriorityClasses",
        "name");
    Set<String> cqNames = new HashSet<>(cqs.stream().map(ClusterQueue::name).toList());
    for (int i = 0; i < lqs.size(); i++) {
      if (!cqNames.contains(lqs.get(i).clusterQueue())) {
        throw fields.fail(
            "kueue.localQueues[" + i + "].clusterQueue",
            "'" + lqs.get(i).clusterQueue() + "' is not one of clusterQueues " + cqNames);
      }
    }
    return new Kueue(cqs, lqs, classes);
  }

  private ClusterQueue clusterQueue(JsonNode x, String q) {
    fields.known(
        x,
        q,
        "name",
        "cohort",
        "nominalGpus",
        "borrowingLimitGpus",
        "withinClusterQueue",
        "reclaimWithinCohort");
    String within = fields.text(x, q, "withinClusterQueue", "Never");
    if (!WITHIN.contains(within)) {
      throw fields.fail(q + ".withinClusterQueue", "must be one of " + WITHIN + ", got " + within);
    }
    String reclaim = fields.text(x, q, "reclaimWithinCohort", "Never");
    if (!RECLAIM.contains(reclaim)) {
      throw fields.fail(
          q + ".reclaimWithinCohort", "must be one of " + RECLAIM + ", got " + reclaim);
    }
    String cohort = x.hasNonNull("cohort") ? fields.dnsName(x, q, "cohort", null) : null;
    Integer limit =
        x.hasNonNull("borrowingLimitGpus")
            ? fields.intValue(x, q, "borrowingLimitGpus", null, 0, 100_000)
            : null;
    if (cohort == null && (limit != null || !reclaim.equals("Never"))) {
      throw fields.fail(q, "borrowingLimitGpus and reclaimWithinCohort need a cohort");
    }
    return new ClusterQueue(
        fields.dnsName(x, q, "name", null),
        cohort,
        fields.intValue(x, q, "nominalGpus", null, 0, 100_000),
        limit,
        within,
        reclaim);
  }

  /** Jobs name LocalQueues and WorkloadPriorityClasses that exist, and fit their queue. */
  void checkJobs(Kueue kueue, List<Workload> workloads) {
    for (int i = 0; i < workloads.size(); i++) {
      Workload w = workloads.get(i);
      String p = "workloads[" + i + "]";
      if (!(w.spec() instanceof JobSpec job)) {
        continue;
      }
      if (job.queue() != null && job.jobSet()) {
        throw fields.fail(
            p + ".queue",
            "a JobSet waiting in a Kueue queue is not simulated (only a Job is suspended)");
      }
      if (job.queue() != null) {
        ClusterQueue cq = kueue.clusterQueueOf(job.queue());
        if (cq == null) {
          throw fields.fail(
              p + ".queue",
              "'"
                  + job.queue()
                  + "' is not one of kueue.localQueues "
                  + kueue.localQueues().stream().map(LocalQueue::name).toList());
        }
        int gpus = job.parallelism() * w.template().gpus();
        int most = mostOf(kueue, cq);
        if (gpus > most) {
          throw fields.fail(
              p + ".parallelism",
              gpus
                  + " GPUs at once never fit ClusterQueue "
                  + cq.name()
                  + " (at most "
                  + most
                  + " with what it may borrow): Kueue would never admit it");
        }
      }
      if (job.workloadPriorityClass() != null
          && kueue.workloadPriorityClass(job.workloadPriorityClass()) == null) {
        throw fields.fail(
            p + ".workloadPriorityClass",
            "'"
                + job.workloadPriorityClass()
                + "' is not one of kueue.workloadPriorityClasses "
                + kueue.workloadPriorityClasses().stream()
                    .map(WorkloadPriorityClass::name)
                    .toList());
      }
      if (job.workloadPriorityClass() != null && job.queue() == null) {
        throw fields.fail(p + ".workloadPriorityClass", "only a Job with a queue has one");
      }
    }
  }

  /** The most GPUs a ClusterQueue may hold: its nominal quota and what it may borrow. */
  private static int mostOf(Kueue kueue, ClusterQueue cq) {
    if (cq.cohort() == null) {
      return cq.nominalGpus();
    }
    int cohort =
        kueue.clusterQueues().stream()
            .filter(c -> cq.cohort().equals(c.cohort()))
            .mapToInt(ClusterQueue::nominalGpus)
            .sum();
    return cq.borrowingLimitGpus() == null
        ? cohort
        : Math.min(cohort, cq.nominalGpus() + cq.borrowingLimitGpus());
  }
}
