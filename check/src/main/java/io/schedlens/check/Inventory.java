package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.schedlens.base.KueueNames;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The manifests sorted into what the rules look at: workloads, PriorityClasses, disruption budgets
 * and Services, with the settings and, where asked for, the live cluster.
 */
final class Inventory {

  final CheckSettings settings;
  final Optional<ClusterFacts> cluster;
  final List<Workload> workloads = new ArrayList<>();
  final Map<String, Manifest> priorityClasses = new LinkedHashMap<>();
  final List<Manifest> disruptionBudgets = new ArrayList<>();
  final List<Manifest> services = new ArrayList<>();

  /** Kueue's objects among the manifests: LocalQueues, WorkloadPriorityClasses, … */
  final List<Manifest> kueueObjects = new ArrayList<>();

  Inventory(List<Manifest> manifests, CheckSettings settings, Optional<ClusterFacts> cluster) {
    this.settings = settings;
    this.cluster = cluster;
    for (Manifest m : manifests) {
      if (m.object() instanceof PriorityClass) {
        priorityClasses.put(m.name(), m);
      } else if (m.object() instanceof PodDisruptionBudget) {
        disruptionBudgets.add(m);
      } else if (m.object() instanceof Service) {
        services.add(m);
      } else if (m.object().getApiVersion() != null
          && m.object().getApiVersion().startsWith(KueueNames.GROUP + "/")) {
        kueueObjects.add(m);
      } else {
        Workload.of(m).ifPresent(workloads::add);
      }
    }
  }

  /** A PriorityClass by name: from the manifests first, else from the cluster. */
  Optional<PriorityClass> priorityClass(String name) {
    Manifest m = priorityClasses.get(name);
    if (m != null) {
      return Optional.of((PriorityClass) m.object());
    }
    return cluster.map(c -> c.priorityClasses().get(name));
  }

  /** The Services of the manifests that select this workload's pods. */
  List<Manifest> servicesOf(Workload w) {
    List<Manifest> out = new ArrayList<>();
    for (Manifest s : services) {
      var spec = ((Service) s.object()).getSpec();
      if (spec != null
          && s.sameNamespace(w.manifest())
          && w.podsSelected(labels -> Selectors.matchesService(spec.getSelector(), labels)) > 0) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * Serving: a Deployment or StatefulSet that a Service of the manifests selects, or that carries
   * the serving label (on the object or its pods).
   */
  boolean serving(Workload w) {
    // Asked by several rules per workload; a StatefulSet's pods are matched one by one.
    return serving.computeIfAbsent(w, this::isServing);
  }

  private final Map<Workload, Boolean> serving = new IdentityHashMap<>();

  private boolean isServing(Workload w) {
    if (!w.replicated()) {
      return false;
    }
    String[] kv = settings.servingLabel().split("=", 2);
    String value = kv.length > 1 ? kv[1] : "true";
    var own = w.manifest().object().getMetadata().getLabels();
    boolean labelled =
        value.equals(w.podLabels().get(kv[0])) || (own != null && value.equals(own.get(kv[0])));
    return labelled || !servicesOf(w).isEmpty();
  }

  /** Whether any workload of the manifests is in this namespace. */
  boolean hasWorkloadsIn(Manifest m) {
    return workloads.stream().anyMatch(w -> w.manifest().sameNamespace(m));
  }
}
