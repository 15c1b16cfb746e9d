package io.schedlens.check;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.List;
import java.util.Map;

/** Kubernetes' label selector semantics, for pods (label selectors) and nodes (node selectors). */
final class Selectors {

  private Selectors() {}

  /**
   * Whether a label selector selects these labels. An empty selector selects everything (as a
   * PodDisruptionBudget's does in policy/v1); a null one selects nothing.
   */
  static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    if (selector.getMatchLabels() != null
        && !labels.entrySet().containsAll(selector.getMatchLabels().entrySet())) {
      return false;
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!requirement(r.getKey(), r.getOperator(), r.getValues(), labels)) {
          return false;
        }
      }
    }
    return true;
  }

  /** A Service's selector: equality on every key; an empty one selects nothing (no endpoints). */
  static boolean matchesService(Map<String, String> selector, Map<String, String> labels) {
    return selector != null
        && !selector.isEmpty()
        && labels.entrySet().containsAll(selector.entrySet());
  }

  /** A node's labels against a pod's nodeSelector and required node affinity (terms ORed). */
  static boolean nodeMatches(
      Map<String, String> nodeSelector, List<NodeSelectorTerm> terms, Map<String, String> node) {
    if (nodeSelector != null && !node.entrySet().containsAll(nodeSelector.entrySet())) {
      return false;
    }
    if (terms == null || terms.isEmpty()) {
      return true;
    }
    for (NodeSelectorTerm t : terms) {
      if (t.getMatchExpressions() == null || t.getMatchExpressions().isEmpty()) {
        continue; // an empty term matches no node
      }
      boolean all = true;
      for (NodeSelectorRequirement r : t.getMatchExpressions()) {
        all &= requirement(r.getKey(), r.getOperator(), r.getValues(), node);
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private static boolean requirement(
      String key, String operator, List<String> values, Map<String, String> labels) {
    String v = labels.get(key);
    List<String> vs = values == null ? List.of() : values;
    return switch (operator == null ? "" : operator) {
      case "In" -> v != null && vs.contains(v);
      case "NotIn" -> v == null || !vs.contains(v);
      case "Exists" -> v != null;
      case "DoesNotExist" -> v == null;
      case "Gt" -> v != null && !vs.isEmpty() && compare(v, vs.get(0)) > 0;
      case "Lt" -> v != null && !vs.isEmpty() && compare(v, vs.get(0)) < 0;
      default -> false;
    };
  }

  private static int compare(String a, String b) {
    try {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
