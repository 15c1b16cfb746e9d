package io.schedlens.check;

import io.schedlens.base.KueueNames;
import io.schedlens.check.Finding.Severity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** {@code kueue-local-queue}, {@code kueue-priority-class} and {@code kueue-queue-missing}. */
final class KueueRules {

  private KueueRules() {}

  static void check(Inventory inv, List<Finding> out) {
    Set<String> queues = new TreeSet<>();
    Set<String> classes = new TreeSet<>();
    for (Manifest m : inv.kueueObjects) {
      if (m.kind().equals("LocalQueue")) {
        queues.add(namespace(m) + "/" + m.name());
      } else if (m.kind().equals("WorkloadPriorityClass")) {
        classes.add(m.name());
      }
    }
    for (Workload w : inv.workloads) {
      String queue = label(w, KueueNames.QUEUE_LABEL);
      if (queue != null && !queues.contains(namespace(w.manifest()) + "/" + queue)) {
        localQueue(inv, w, queue, out);
      }
      String priority = label(w, KueueNames.PRIORITY_CLASS_LABEL);
      if (priority != null && !classes.contains(priority)) {
        priorityClass(inv, w, priority, out);
      }
    }
    queueMissing(inv, out);
  }

  /** The label on the object (a Job, JobSet…) or, for pods and pod groups, on its pods. */
  static String label(Workload w, String key) {
    Map<String, String> own = w.manifest().object().getMetadata().getLabels();
    if (own != null && own.get(key) != null && !own.get(key).isEmpty()) {
      return own.get(key);
    }
    String onPods = w.podLabels().get(key);
    return onPods == null || onPods.isEmpty() ? null : onPods;
  }

  private static String namespace(Manifest m) {
    return m.namespace() == null ? "default" : m.namespace();
  }

  private static void localQueue(Inventory inv, Workload w, String queue, List<Finding> out) {
    String ns = namespace(w.manifest());
    if (inv.cluster.map(c -> c.localQueues().contains(ns + "/" + queue)).orElse(false)) {
      return;
    }
    String why =
        inv.cluster
            .map(
                c ->
                    !c.kueue()
                        ? "it names LocalQueue "
                            + queue
                            + ", but the cluster ("
                            + c.source()
                            + ") does not serve Kueue's API: nothing admits it"
                        : "LocalQueue "
                            + queue
                            + " is neither among these manifests nor in namespace "
                            + ns
                            + " of the cluster ("
                            + c.source()
                            + "): Kueue keeps the Job suspended (Inadmissible) and it never runs")
            .orElse(
                "LocalQueue "
                    + queue
                    + " is not among these manifests: if namespace "
                    + ns
                    + " of the cluster lacks it too, Kueue keeps the Job suspended (Inadmissible)"
                    + " and it never runs");
    out.add(
        Finding.of(
            inv.cluster.isPresent() ? Severity.ERROR : Severity.WARNING,
            Rule.KUEUE_LOCAL_QUEUE,
            w.manifest(),
            "metadata.labels[" + KueueNames.QUEUE_LABEL + "]",
            why,
            "create LocalQueue " + queue + " in " + ns + ", or name the one its team uses"));
  }

  private static void priorityClass(Inventory inv, Workload w, String priority, List<Finding> out) {
    if (inv.cluster.map(c -> c.workloadPriorityClasses().contains(priority)).orElse(false)) {
      return;
    }
    String why =
        "WorkloadPriorityClass "
            + priority
            + " is neither among these manifests nor "
            + inv.cluster
                .map(c -> "in the cluster (" + c.source() + ")")
                .orElse("known (no --cluster)")
            + ": Kueue does not create the workload's Workload, and the Job stays suspended";
    out.add(
        Finding.of(
            inv.cluster.isPresent() ? Severity.ERROR : Severity.WARNING,
            Rule.KUEUE_PRIORITY_CLASS,
            w.manifest(),
            "metadata.labels[" + KueueNames.PRIORITY_CLASS_LABEL + "]",
            why,
            "add the WorkloadPriorityClass, or name an existing one"));
  }

  /**
   * A GPU Job without a queue where every other GPU Job of its namespace has one: it bypasses the
   * queue's quota (Kueue ignores Jobs without a queue unless manageJobsWithoutQueueName).
   */
  private static void queueMissing(Inventory inv, List<Finding> out) {
    Map<String, Integer> queued = new HashMap<>();
    Map<String, Integer> gpuJobs = new HashMap<>();
    for (Workload w : inv.workloads) {
      if (w.batch() && w.requestsGpu(inv.settings)) {
        String ns = namespace(w.manifest());
        gpuJobs.merge(ns, 1, Integer::sum);
        if (label(w, KueueNames.QUEUE_LABEL) != null) {
          queued.merge(ns, 1, Integer::sum);
        }
      }
    }
    for (Workload w : inv.workloads) {
      if (!w.batch() || !w.requestsGpu(inv.settings) || label(w, KueueNames.QUEUE_LABEL) != null) {
        continue;
      }
      String ns = namespace(w.manifest());
      int others = gpuJobs.get(ns) - 1;
      if (others > 0 && queued.getOrDefault(ns, 0) == others) {
        out.add(
            Finding.of(
                Severity.WARNING,
                Rule.KUEUE_QUEUE_MISSING,
                w.manifest(),
                "metadata.labels[" + KueueNames.QUEUE_LABEL + "]",
                "every other GPU Job of namespace "
                    + ns
                    + " goes through a Kueue queue and this one does not: it takes GPUs outside"
                    + " the queue's quota (Kueue ignores a Job without a queue unless its"
                    + " manageJobsWithoutQueueName is on)",
                "label it " + KueueNames.QUEUE_LABEL + " with its team's LocalQueue"));
      }
    }
  }
}
