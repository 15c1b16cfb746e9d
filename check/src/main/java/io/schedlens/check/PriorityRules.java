package io.schedlens.check;

import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.schedlens.check.Finding.Severity;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** {@code priority-class} and {@code batch-preemption-policy}. */
final class PriorityRules {

  /** Classes every cluster has. */
  static final Set<String> BUILT_IN_CLASSES =
      Set.of("system-cluster-critical", "system-node-critical");

  private PriorityRules() {}

  static void check(Inventory inv, List<Finding> out) {
    for (Workload w : inv.workloads) {
      priorityClass(w, inv, out);
    }
    batchPreemption(inv, out);
  }

  /**
   * Every workload's class must exist, since admission rejects a pod that names an unknown class; a
   * GPU-intended workload should name one.
   */
  private static void priorityClass(Workload w, Inventory inv, List<Finding> out) {
    String name = w.spec().getPriorityClassName();
    String field = w.prefix() + ".priorityClassName";
    if (name == null || name.isEmpty()) {
      // Only pods that compete for GPUs: those asking for one, and serving workloads meant to
      // (gpu-request already names the missing request of the latter).
      if (!w.requestsGpu(inv.settings) && !(w.gpuIntended(inv.settings) && inv.serving(w))) {
        return;
      }
      Optional<PriorityClass> global = globalDefault(inv);
      out.add(
          Finding.of(
              Severity.WARNING,
              Rule.PRIORITY_CLASS,
              w.manifest(),
              field,
              global
                  .map(
                      g ->
                          "a GPU workload without a PriorityClass gets the global default "
                              + g.getMetadata().getName()
                              + " ("
                              + g.getValue()
                              + "), whatever kind of work it is")
                  .orElse(
                      "a GPU workload without a PriorityClass gets priority 0 (or the global default): it is scheduled last and preempted first"),
              "set priorityClassName to the class meant for this kind of work"));
      return;
    }
    if (BUILT_IN_CLASSES.contains(name)
        || inv.settings.externalPriorityClasses().contains(name)
        || inv.priorityClass(name).isPresent()) {
      return;
    }
    String why =
        inv.cluster
            .map(
                c ->
                    "PriorityClass "
                        + name
                        + " is neither among these manifests nor in the cluster ("
                        + c.source()
                        + ", which has "
                        + (c.priorityClasses().isEmpty()
                            ? "none"
                            : String.join(", ", c.priorityClasses().keySet()))
                        + "): the API server rejects every pod of this workload")
            .orElse(
                "PriorityClass "
                    + name
                    + " is neither among these manifests nor declared external: if it does not exist on the cluster, the API server rejects every pod of this workload");
    out.add(
        Finding.of(
            Severity.ERROR,
            Rule.PRIORITY_CLASS,
            w.manifest(),
            field,
            why,
            "add the PriorityClass to the manifests, or pass --external-priority-classes "
                + name
                + " if the cluster already has it"));
  }

  private static Optional<PriorityClass> globalDefault(Inventory inv) {
    for (Manifest m : inv.priorityClasses.values()) {
      PriorityClass pc = (PriorityClass) m.object();
      if (Boolean.TRUE.equals(pc.getGlobalDefault())) {
        return Optional.of(pc);
      }
    }
    return inv.cluster.flatMap(
        c ->
            c.priorityClasses().values().stream()
                .filter(pc -> Boolean.TRUE.equals(pc.getGlobalDefault()))
                .findFirst());
  }

  /** A batch class that may preempt a lower batch class of the manifests. */
  private static void batchPreemption(Inventory inv, List<Finding> out) {
    Map<String, Integer> batchClasses = new TreeMap<>();
    for (Workload w : inv.workloads) {
      String name = w.spec().getPriorityClassName();
      if (w.batch()
          && name != null
          && inv.priorityClasses.containsKey(name)
          && w.gpuIntended(inv.settings)) {
        batchClasses.put(name, ((PriorityClass) inv.priorityClasses.get(name).object()).getValue());
      }
    }
    for (var e : batchClasses.entrySet()) {
      Manifest m = inv.priorityClasses.get(e.getKey());
      PriorityClass pc = (PriorityClass) m.object();
      String policy =
          pc.getPreemptionPolicy() == null ? "PreemptLowerPriority" : pc.getPreemptionPolicy();
      if (policy.equals("Never")) {
        continue;
      }
      List<String> lower =
          batchClasses.entrySet().stream()
              .filter(o -> o.getValue() < e.getValue())
              .map(Map.Entry::getKey)
              .toList();
      if (!lower.isEmpty()) {
        out.add(
            Finding.of(
                Severity.WARNING,
                Rule.BATCH_PREEMPTION_POLICY,
                m,
                "preemptionPolicy",
                "batch jobs of this class may preempt batch jobs of "
                    + String.join(", ", lower)
                    + ", throwing away their GPU work since the last checkpoint so that one batch finishes before another",
                "preemptionPolicy: Never keeps its place ahead in the queue without killing other batch work; leave preemption to the interactive class"));
      }
    }
  }
}
