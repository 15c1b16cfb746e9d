package io.schedlens.check;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.schedlens.check.Finding.Severity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code disruption-budget} and {@code selector-matches-nothing}: PodDisruptionBudgets (of the
 * manifests and, with --cluster, of the cluster) against every workload they select, and Services
 * against the workloads they serve.
 */
final class BudgetRules {

  private BudgetRules() {}

  /** A budget and where to point a finding about it. */
  private record Budget(PodDisruptionBudget pdb, Manifest manifest, boolean fromCluster) {
    String ref() {
      return "PodDisruptionBudget "
          + pdb.getMetadata().getNamespace()
          + "/"
          + pdb.getMetadata().getName()
          + (fromCluster ? " (in the cluster)" : "");
    }
  }

  static void check(Inventory inv, List<Finding> out) {
    List<Budget> budgets = new ArrayList<>();
    Set<String> written = new HashSet<>();
    for (Manifest m : inv.disruptionBudgets) {
      budgets.add(new Budget((PodDisruptionBudget) m.object(), m, false));
      written.add(m.namespace() + "/" + m.name());
    }
    inv.cluster.ifPresent(
        c -> {
          for (PodDisruptionBudget p : c.disruptionBudgets()) {
            // The manifests' version of a budget replaces the cluster's when applied.
            if (!written.contains(
                p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())) {
              budgets.add(new Budget(p, null, true));
            }
          }
        });
    Set<Workload> protectedWorkloads = new HashSet<>();
    for (Budget b : budgets) {
      Map<Workload, Integer> selected = selected(b.pdb(), inv);
      protectedWorkloads.addAll(selected.keySet());
      budget(b, selected, inv, out);
    }
    for (Workload w : inv.workloads) {
      if (inv.serving(w) && w.gpuIntended(inv.settings) && !protectedWorkloads.contains(w)) {
        missing(w, out);
      }
    }
    for (Manifest s : inv.services) {
      service(s, inv, out);
    }
  }

  /** The workloads of the budget's namespace with pods it selects, and how many pods of each. */
  private static Map<Workload, Integer> selected(PodDisruptionBudget p, Inventory inv) {
    Map<Workload, Integer> out = new LinkedHashMap<>();
    if (p.getSpec() == null) {
      return out;
    }
    for (Workload w : inv.workloads) {
      if (Objects.equals(p.getMetadata().getNamespace(), w.manifest().namespace())) {
        int pods = w.podsSelected(labels -> Selectors.matches(p.getSpec().getSelector(), labels));
        if (pods > 0) {
          out.put(w, pods);
        }
      }
    }
    return out;
  }

  private static void budget(
      Budget b, Map<Workload, Integer> selected, Inventory inv, List<Finding> out) {
    if (selected.isEmpty()) {
      if (!b.fromCluster() && inv.hasWorkloadsIn(b.manifest())) {
        out.add(
            Finding.of(
                Severity.WARNING,
                Rule.SELECTOR_MATCHES_NOTHING,
                b.manifest(),
                "spec.selector",
                "it selects no workload of namespace "
                    + b.manifest().namespace()
                    + " in these manifests: it protects nothing, and the workload it was meant for can lose every pod in a drain",
                "make spec.selector match the pod template labels of the workload it protects"));
      }
      return;
    }
    int total = selected.values().stream().mapToInt(Integer::intValue).sum();
    Integer allowed = allowedDisruptions(b.pdb(), total);
    if (allowed == null || total <= 0) {
      return;
    }
    String names = selected.keySet().stream().map(Workload::ref).collect(Collectors.joining(", "));
    Manifest at = b.fromCluster() ? selected.keySet().iterator().next().manifest() : b.manifest();
    String field = b.fromCluster() ? "metadata.labels" : "spec";
    if (allowed <= 0) {
      out.add(
          Finding.about(
              Severity.ERROR,
              Rule.DISRUPTION_BUDGET,
              b.ref(),
              at,
              field,
              "with "
                  + total
                  + " replica(s) of "
                  + names
                  + " it allows no eviction at all: a drain never finishes and the autoscaler cannot remove the node",
              "allow at least one: maxUnavailable: 1 (with 2 or more replicas)"));
    } else if (allowed >= total
        && selected.keySet().stream()
            .anyMatch(w -> inv.serving(w) && w.gpuIntended(inv.settings))) {
      out.add(
          Finding.about(
              Severity.WARNING,
              Rule.DISRUPTION_BUDGET,
              b.ref(),
              at,
              field,
              "it lets all "
                  + total
                  + " replica(s) of "
                  + names
                  + " be evicted at once: the service can drop to zero during a drain",
              "maxUnavailable: 1, or minAvailable: " + Math.max(1, total - 1)));
    }
  }

  private static void missing(Workload w, List<Finding> out) {
    int r = w.replicas();
    out.add(
        Finding.of(
            Severity.WARNING,
            Rule.DISRUPTION_BUDGET,
            w.manifest(),
            "PodDisruptionBudget",
            r < 2
                ? "one replica and no PodDisruptionBudget: every drain, node upgrade or preemption is a service interruption until a replacement loads its model"
                : "no PodDisruptionBudget: a drain may evict all "
                    + r
                    + " replicas at once, and users wait for every model to load again",
            r < 2
                ? "run at least 2 replicas with a PodDisruptionBudget maxUnavailable: 1"
                : "add a PodDisruptionBudget with maxUnavailable: 1"));
  }

  private static void service(Manifest s, Inventory inv, List<Finding> out) {
    var spec = ((Service) s.object()).getSpec();
    if (spec == null
        || spec.getSelector() == null
        || spec.getSelector().isEmpty()
        || !inv.hasWorkloadsIn(s)) {
      return;
    }
    boolean any =
        inv.workloads.stream()
            .anyMatch(
                w ->
                    w.manifest().sameNamespace(s)
                        && w.podsSelected(l -> Selectors.matchesService(spec.getSelector(), l))
                            > 0);
    if (!any) {
      out.add(
          Finding.of(
              Severity.WARNING,
              Rule.SELECTOR_MATCHES_NOTHING,
              s,
              "spec.selector",
              "it selects no workload of namespace "
                  + s.namespace()
                  + " in these manifests: it has no endpoints, and its clients get connection errors",
              "make spec.selector match the pod template labels of the workload it serves"));
    }
  }

  /** How many pods the budget lets go at once; null when it cannot be told. */
  static Integer allowedDisruptions(PodDisruptionBudget p, int replicas) {
    IntOrString min = p.getSpec().getMinAvailable();
    IntOrString max = p.getSpec().getMaxUnavailable();
    if (max != null) {
      return scaled(max, replicas);
    }
    if (min != null) {
      Integer m = scaled(min, replicas);
      return m == null ? null : replicas - m;
    }
    return null;
  }

  /** An int, or a percentage of replicas (rounded up, as the disruption controller does). */
  private static Integer scaled(IntOrString v, int replicas) {
    if (v.getIntVal() != null) {
      return v.getIntVal();
    }
    String s = v.getStrVal();
    if (s != null && s.endsWith("%")) {
      try {
        double pct = Double.parseDouble(s.substring(0, s.length() - 1));
        return (int) Math.ceil(replicas * pct / 100.0);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    if (s != null) {
      try {
        return Integer.parseInt(s);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
