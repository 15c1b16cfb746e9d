package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.schedlens.check.Finding.Severity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code cluster-*}: the workloads against the live cluster's nodes, as the scheduler's filters
 * would judge them (resources fit, node selector and affinity, taints and tolerations). Cordoned
 * nodes take no new pods and are left out.
 */
final class ClusterRules {

  /**
   * Taints that come and go on their own (the node lifecycle controller's and kubelet's, the
   * autoscalers') or that managed clusters hide with their control plane, tolerated by many charts
   * whether or not a node carries them now.
   */
  private static final List<String> TRANSIENT_TAINT_PREFIXES =
      List.of(
          "node.kubernetes.io/",
          "node.cloudprovider.kubernetes.io/",
          "node-role.kubernetes.io/",
          "CriticalAddonsOnly",
          "ToBeDeletedByClusterAutoscaler",
          "DeletionCandidateOfClusterAutoscaler",
          "karpenter.sh/");

  private ClusterRules() {}

  static void check(Inventory inv, List<Finding> out) {
    if (inv.cluster.isEmpty()) {
      return;
    }
    ClusterFacts c = inv.cluster.get();
    List<Node> nodes = c.nodes().stream().filter(n -> !ClusterFacts.cordoned(n)).toList();
    if (nodes.isEmpty()) {
      return;
    }
    for (Workload w : inv.workloads) {
      if (w.daemonSet()) {
        continue; // the DaemonSet controller places its pods by its own rules
      }
      boolean gpusFit = gpus(w, nodes, inv.settings, c, out);
      boolean selectorFits = selector(w, nodes, c, out);
      if (gpusFit && selectorFits) {
        taints(w, nodes, inv.settings, out);
      }
      tolerations(w, c.nodes(), out);
    }
  }

  /**
   * Some node the pod may run on (its node selector and required affinity; every node where none
   * matches, which the selector rule reports) has the GPUs one pod asks for. Returns whether every
   * resource fits on some node.
   */
  private static boolean gpus(
      Workload w, List<Node> all, CheckSettings s, ClusterFacts c, List<Finding> out) {
    List<Node> selected =
        all.stream()
            .filter(
                n ->
                    Selectors.nodeMatches(
                        w.spec().getNodeSelector(), w.requiredNodeTerms(), ClusterFacts.labels(n)))
            .toList();
    List<Node> nodes = selected.isEmpty() ? all : selected;
    boolean fits = true;
    for (Map.Entry<String, BigDecimal> e : w.gpusPerPod(s).entrySet()) {
      String resource = e.getKey();
      BigDecimal want = e.getValue();
      BigDecimal most = BigDecimal.ZERO;
      String mostOn = null;
      int having = 0;
      for (Node n : nodes) {
        BigDecimal a = ClusterFacts.allocatable(n, resource);
        if (a.signum() > 0) {
          having++;
        }
        if (a.compareTo(most) > 0) {
          most = a;
          mostOn = n.getMetadata().getName();
        }
      }
      if (most.compareTo(want) >= 0) {
        continue;
      }
      fits = false;
      Map<String, String> other = having == 0 ? otherGpus(nodes, resource, s) : Map.of();
      out.add(
          Finding.of(
              Severity.ERROR,
              Rule.CLUSTER_GPU,
              w.manifest(),
              containerField(w, resource, s),
              "a pod asks for "
                  + want.stripTrailingZeros().toPlainString()
                  + " "
                  + resource
                  + " but no schedulable node of "
                  + c.source()
                  + (selected.isEmpty() || selected.size() == all.size()
                      ? ""
                      : " that its node selector and affinity allow")
                  + " has that many allocatable ("
                  + (having == 0
                      ? "no node has " + resource + " at all" + offered(other)
                      : "the most is "
                          + most.stripTrailingZeros().toPlainString()
                          + " on "
                          + mostOn
                          + ", "
                          + having
                          + " node(s) have some")
                  + "): its pods stay Pending with Insufficient "
                  + resource,
              gpuFix(resource, having, most, other)));
    }
    return fits;
  }

  /** What to do about a GPU request no node fits, given what the nodes have and offer. */
  private static String gpuFix(
      String resource, int having, BigDecimal most, Map<String, String> other) {
    if (having > 0) {
      return "ask for at most "
          + most.stripTrailingZeros().toPlainString()
          + " per pod, or add nodes that have more";
    }
    if (other.isEmpty()) {
      return "check the resource name (MIG profiles are named like nvidia.com/mig-1g.10gb) and that the device plugin runs on the GPU nodes";
    }
    return "ask for what the nodes offer ("
        + String.join(", ", other.keySet())
        + ": a MIG profile's memory must hold the model), or run it on nodes that have "
        + resource;
  }

  /**
   * The GPU resources other than {@code resource} the nodes have, with their allocatable total and
   * how many nodes have each: what a pod asking for a MIG profile, or for whole GPUs on nodes
   * partitioned into MIG slices, could ask for instead.
   */
  private static Map<String, String> otherGpus(List<Node> nodes, String resource, CheckSettings s) {
    Map<String, BigDecimal> total = new TreeMap<>();
    Map<String, Integer> having = new TreeMap<>();
    for (Node n : nodes) {
      if (n.getStatus() == null || n.getStatus().getAllocatable() == null) {
        continue;
      }
      for (String r : n.getStatus().getAllocatable().keySet()) {
        BigDecimal a = ClusterFacts.allocatable(n, r);
        if (!r.equals(resource) && s.isGpuResource(r) && a.signum() > 0) {
          total.merge(r, a, BigDecimal::add);
          having.merge(r, 1, Integer::sum);
        }
      }
    }
    Map<String, String> out = new TreeMap<>();
    total.forEach(
        (r, a) ->
            out.put(
                r, a.stripTrailingZeros().toPlainString() + " on " + having.get(r) + " node(s)"));
    return out;
  }

  /** The GPU resources the nodes offer instead, for the finding's message; empty if none. */
  private static String offered(Map<String, String> other) {
    if (other.isEmpty()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    other.forEach((r, where) -> parts.add(r + " (" + where + ")"));
    return "; they offer " + String.join(", ", parts);
  }

  /** Some node matches the node selector and required node affinity. */
  private static boolean selector(Workload w, List<Node> nodes, ClusterFacts c, List<Finding> out) {
    Map<String, String> selector = w.spec().getNodeSelector();
    var terms = w.requiredNodeTerms();
    if ((selector == null || selector.isEmpty()) && terms.isEmpty()) {
      return true;
    }
    for (Node n : nodes) {
      if (Selectors.nodeMatches(selector, terms, ClusterFacts.labels(n))) {
        return true;
      }
    }
    String asked =
        (selector == null || selector.isEmpty() ? "" : "nodeSelector " + selector)
            + (terms.isEmpty()
                ? ""
                : (selector == null || selector.isEmpty() ? "" : " and ")
                    + "required node affinity");
    out.add(
        Finding.of(
            Severity.ERROR,
            Rule.CLUSTER_NODE_SELECTOR,
            w.manifest(),
            selector == null || selector.isEmpty()
                ? w.prefix() + ".affinity"
                : w.prefix() + ".nodeSelector",
            "no schedulable node of "
                + c.source()
                + " matches its "
                + asked
                + ": its pods stay Pending with \"didn't match Pod's node affinity/selector\""
                + seenValues(selector, nodes),
            "select a label the GPU nodes carry (kubectl get nodes --show-labels), or label the nodes"));
    return false;
  }

  /** The values the nodes have for the selector's keys, to show the likely typo. */
  private static String seenValues(Map<String, String> selector, List<Node> nodes) {
    if (selector == null || selector.isEmpty()) {
      return "";
    }
    Map<String, List<String>> seen = new TreeMap<>();
    for (String key : selector.keySet()) {
      List<String> values =
          nodes.stream()
              .map(n -> ClusterFacts.labels(n).get(key))
              .filter(v -> v != null)
              .distinct()
              .sorted()
              .toList();
      seen.put(key, values);
    }
    return "; the nodes have "
        + seen.entrySet().stream()
            .map(
                e ->
                    e.getKey()
                        + (e.getValue().isEmpty()
                            ? " on none"
                            : " = " + String.join(" | ", e.getValue())))
            .collect(Collectors.joining(", "));
  }

  /** Among the nodes that fit (GPUs, selector), some has only taints the pod tolerates. */
  private static void taints(Workload w, List<Node> nodes, CheckSettings s, List<Finding> out) {
    Map<String, BigDecimal> gpus = w.gpusPerPod(s);
    List<Node> fitting = new ArrayList<>();
    for (Node n : nodes) {
      boolean enough =
          gpus.entrySet().stream()
              .allMatch(e -> ClusterFacts.allocatable(n, e.getKey()).compareTo(e.getValue()) >= 0);
      if (enough
          && Selectors.nodeMatches(
              w.spec().getNodeSelector(), w.requiredNodeTerms(), ClusterFacts.labels(n))) {
        fitting.add(n);
      }
    }
    if (fitting.isEmpty()) {
      return;
    }
    List<Toleration> tolerations =
        w.spec().getTolerations() == null ? List.of() : w.spec().getTolerations();
    Map<String, Integer> untolerated = new TreeMap<>();
    for (Node n : fitting) {
      List<Taint> blocking =
          ClusterFacts.taints(n).stream()
              .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
              .filter(t -> tolerations.stream().noneMatch(tol -> tolerates(tol, t)))
              .toList();
      if (blocking.isEmpty()) {
        return;
      }
      blocking.forEach(t -> untolerated.merge(describe(t), 1, Integer::sum));
    }
    out.add(
        Finding.of(
            Severity.ERROR,
            Rule.CLUSTER_TAINT,
            w.manifest(),
            w.prefix() + ".tolerations",
            "every node that has its GPUs and matches its selectors ("
                + fitting.size()
                + ") carries a taint it does not tolerate: "
                + untolerated.entrySet().stream()
                    .map(e -> e.getKey() + " on " + e.getValue() + " node(s)")
                    .collect(Collectors.joining(", "))
                + "; its pods stay Pending with \"untolerated taint\"",
            "add a toleration for the GPU nodes' taint (e.g. key: nvidia.com/gpu, operator: Exists, effect: NoSchedule)"));
  }

  /** A toleration for a taint that is on no node (transient node-condition taints aside). */
  private static void tolerations(Workload w, List<Node> nodes, List<Finding> out) {
    if (w.spec().getTolerations() == null) {
      return;
    }
    List<Toleration> ts = w.spec().getTolerations();
    for (int i = 0; i < ts.size(); i++) {
      Toleration t = ts.get(i);
      if (t.getKey() == null || t.getKey().isEmpty() || transientTaint(t.getKey())) {
        continue;
      }
      boolean onSome =
          nodes.stream()
              .flatMap(n -> ClusterFacts.taints(n).stream())
              .anyMatch(taint -> t.getKey().equals(taint.getKey()));
      if (!onSome) {
        List<String> keys =
            nodes.stream()
                .flatMap(n -> ClusterFacts.taints(n).stream())
                .map(Taint::getKey)
                .filter(k -> !transientTaint(k))
                .distinct()
                .sorted()
                .toList();
        out.add(
            Finding.of(
                Severity.WARNING,
                Rule.CLUSTER_TOLERATION,
                w.manifest(),
                w.prefix() + ".tolerations[" + i + "]",
                "it tolerates taint "
                    + t.getKey()
                    + ", which no node carries ("
                    + (keys.isEmpty()
                        ? "no node has a taint"
                        : "the nodes' taints: " + String.join(", ", keys))
                    + "): if it was meant for the GPU nodes, their taint keeps these pods off them",
                "use the key the GPU nodes' taint has (kubectl get nodes -o jsonpath='{..taints}'), or remove the toleration"));
      }
    }
  }

  private static boolean transientTaint(String key) {
    return TRANSIENT_TAINT_PREFIXES.stream().anyMatch(key::startsWith);
  }

  /** Kubernetes' toleration semantics (an empty key with Exists tolerates every taint). */
  static boolean tolerates(Toleration tol, Taint taint) {
    if (tol.getEffect() != null
        && !tol.getEffect().isEmpty()
        && !tol.getEffect().equals(taint.getEffect())) {
      return false;
    }
    String op =
        tol.getOperator() == null || tol.getOperator().isEmpty() ? "Equal" : tol.getOperator();
    if (tol.getKey() == null || tol.getKey().isEmpty()) {
      return op.equals("Exists");
    }
    if (!tol.getKey().equals(taint.getKey())) {
      return false;
    }
    return op.equals("Exists")
        || Objects.equals(
            tol.getValue() == null ? "" : tol.getValue(),
            taint.getValue() == null ? "" : taint.getValue());
  }

  private static String describe(Taint t) {
    return t.getKey()
        + (t.getValue() == null || t.getValue().isEmpty() ? "" : "=" + t.getValue())
        + ":"
        + t.getEffect();
  }

  private static String containerField(Workload w, String resource, CheckSettings s) {
    for (Map.Entry<String, Container> e : w.allContainers().entrySet()) {
      var r = e.getValue().getResources();
      if (r != null
          && ((r.getLimits() != null && r.getLimits().containsKey(resource))
              || (r.getRequests() != null && r.getRequests().containsKey(resource)))) {
        return e.getKey() + ".resources";
      }
    }
    return w.prefix() + ".containers";
  }
}
