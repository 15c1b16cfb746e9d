package io.schedlens.check;

/**
 * The check's rules. Each has a section in {@code docs/operators/check-rules.md} (anchor: its id)
 * with a bad and a good example, and {@code CheckRulesDocTest} runs both.
 */
public enum Rule {
  GPU_LIMITS(
      "gpu-limits",
      "GPU requests need an equal limit",
      "A GPU (extended resource) needs a limit, and a request, if given, equal to it: extended resources cannot be overcommitted and the API server rejects anything else."),
  GPU_REQUEST(
      "gpu-request",
      "GPU-intended workloads request a GPU",
      "A workload that tolerates a GPU taint or selects GPU nodes but requests no GPU holds a GPU node's CPU and memory without a GPU (or uses GPUs nobody accounts for): an error for serving workloads and for those pinned to GPU nodes, a warning for those that only tolerate."),
  PRIORITY_CLASS(
      "priority-class",
      "PriorityClasses exist",
      "Every workload's priorityClassName must exist (in the manifests, built in, in the cluster or declared external), or admission rejects its pods; a GPU-intended workload without one runs at the default priority."),
  READINESS_PROBE(
      "readiness-probe",
      "Serving containers have a readiness probe",
      "A serving workload (a Deployment or StatefulSet a Service selects, or labelled serving) needs a readiness probe on its serving containers: Ready must mean the model is loaded."),
  DISRUPTION_BUDGET(
      "disruption-budget",
      "Disruption budgets allow one eviction, and serving GPU workloads have one",
      "A PodDisruptionBudget that allows no eviction of the pods it selects blocks every drain; a serving GPU workload without one, or with one that lets every replica go, can lose all its servers at once."),
  SELECTOR_MATCHES_NOTHING(
      "selector-matches-nothing",
      "Selectors of PodDisruptionBudgets and Services match a workload",
      "A PodDisruptionBudget or Service whose selector matches no workload of its namespace protects or serves nothing; usually a label typo."),
  BATCH_PREEMPTION_POLICY(
      "batch-preemption-policy",
      "Batch classes do not preempt each other",
      "A batch PriorityClass that may preempt another batch class throws away GPU work for the order of two batches."),
  CHECKPOINT(
      "checkpoint",
      "GPU jobs declare their checkpoint interval and leave time for a final checkpoint",
      "GPU Jobs declare schedlens.io/checkpoint-interval; terminationGracePeriodSeconds leaves time for a final checkpoint (at least 10 s) and is not longer than the interval."),
  KUEUE_LOCAL_QUEUE(
      "kueue-local-queue",
      "Kueue LocalQueues exist",
      "A workload labelled kueue.x-k8s.io/queue-name must name a LocalQueue of its namespace (in the manifests or the cluster): Kueue keeps a Job naming a missing one suspended, Inadmissible, for ever."),
  KUEUE_PRIORITY_CLASS(
      "kueue-priority-class",
      "Kueue WorkloadPriorityClasses exist",
      "A workload labelled kueue.x-k8s.io/priority-class must name a WorkloadPriorityClass that the manifests or the cluster define: Kueue does not create the Workload of one that names a missing class."),
  KUEUE_QUEUE_MISSING(
      "kueue-queue-missing",
      "GPU Jobs go through the queue their namespace uses",
      "A GPU Job without kueue.x-k8s.io/queue-name in a namespace whose other GPU Jobs all have one bypasses the queue's quota: usually a forgotten label."),
  CLUSTER_GPU(
      "cluster-gpu",
      "Some node has the GPUs a pod asks for (--cluster)",
      "With --cluster: a pod that asks for more of a GPU resource than any node has allocatable stays Pending forever."),
  CLUSTER_NODE_SELECTOR(
      "cluster-node-selector",
      "Some node matches the node selector and affinity (--cluster)",
      "With --cluster: a pod whose nodeSelector or required node affinity matches no node stays Pending forever."),
  CLUSTER_TAINT(
      "cluster-taint",
      "Some fitting node's taints are tolerated (--cluster)",
      "With --cluster: when every node that has the GPUs and matches the selectors carries a taint the pod does not tolerate, it stays Pending (untolerated taint)."),
  CLUSTER_TOLERATION(
      "cluster-toleration",
      "Tolerated taints exist (--cluster)",
      "With --cluster: a toleration for a taint that is on no node is dead weight, usually a typo of the key the GPU nodes carry.");

  private final String id;
  private final String title;
  private final String description;

  Rule(String id, String title, String description) {
    this.id = id;
    this.title = title;
    this.description = description;
  }

  public String id() {
    return id;
  }

  public String title() {
    return title;
  }

  public String description() {
    return description;
  }

  /** Where its page is, relative to the repository. */
  public String doc() {
    return "docs/operators/check-rules.md#" + id;
  }

  public static Rule byId(String id) {
    for (Rule r : values()) {
      if (r.id.equals(id)) {
        return r;
      }
    }
    throw new IllegalArgumentException("no rule " + id);
  }
}
