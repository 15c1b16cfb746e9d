package io.schedlens.check;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.schedlens.base.KueueNames;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the check knows of the live cluster (read-only): its nodes (labels, taints, allocatable
 * resources), PriorityClasses and PodDisruptionBudgets. Built from objects, so that the reader and
 * the tests share one path.
 *
 * @param localQueues Kueue's LocalQueues, {@code namespace/name}
 * @param workloadPriorityClasses Kueue's WorkloadPriorityClasses, by name
 * @param kueue whether the cluster serves Kueue's API (a LocalQueue or WorkloadPriorityClass was
 *     read, or the reader found the API)
 * @param source where the facts came from, for messages (the API server's address)
 */
public record ClusterFacts(
    List<Node> nodes,
    Map<String, PriorityClass> priorityClasses,
    List<PodDisruptionBudget> disruptionBudgets,
    Set<String> localQueues,
    Set<String> workloadPriorityClasses,
    boolean kueue,
    String source) {

  public static ClusterFacts of(List<? extends HasMetadata> objects, String source) {
    return of(objects, false, source);
  }

  /**
   * @param kueueServed whether the reader found Kueue's API (Kueue's objects read count too)
   */
  public static ClusterFacts of(
      List<? extends HasMetadata> objects, boolean kueueServed, String source) {
    List<Node> nodes = new ArrayList<>();
    Map<String, PriorityClass> classes = new TreeMap<>();
    List<PodDisruptionBudget> pdbs = new ArrayList<>();
    Set<String> queues = new TreeSet<>();
    Set<String> workloadClasses = new TreeSet<>();
    boolean kueue = kueueServed;
    for (HasMetadata o : objects) {
      if (o instanceof Node n) {
        nodes.add(n);
      } else if (o instanceof PriorityClass pc) {
        classes.put(pc.getMetadata().getName(), pc);
      } else if (o instanceof PodDisruptionBudget p) {
        pdbs.add(p);
      } else if (o.getApiVersion() != null
          && o.getApiVersion().startsWith(KueueNames.GROUP + "/")) {
        kueue = true;
        if (o.getKind().equals("LocalQueue")) {
          String ns =
              o.getMetadata().getNamespace() == null ? "default" : o.getMetadata().getNamespace();
          queues.add(ns + "/" + o.getMetadata().getName());
        } else if (o.getKind().equals("WorkloadPriorityClass")) {
          workloadClasses.add(o.getMetadata().getName());
        }
      }
    }
    return new ClusterFacts(nodes, classes, pdbs, queues, workloadClasses, kueue, source);
  }

  static Map<String, String> labels(Node n) {
    return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
  }

  static List<Taint> taints(Node n) {
    return n.getSpec() == null || n.getSpec().getTaints() == null
        ? List.of()
        : n.getSpec().getTaints();
  }

  /** A node's allocatable amount of a resource, zero when it has none. */
  static BigDecimal allocatable(Node n, String resource) {
    if (n.getStatus() == null || n.getStatus().getAllocatable() == null) {
      return BigDecimal.ZERO;
    }
    Quantity q = n.getStatus().getAllocatable().get(resource);
    return q == null ? BigDecimal.ZERO : Quantity.getAmountInBytes(q);
  }

  /** Whether a node is cordoned (spec.unschedulable): new pods do not go there. */
  static boolean cordoned(Node n) {
    return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
  }
}
