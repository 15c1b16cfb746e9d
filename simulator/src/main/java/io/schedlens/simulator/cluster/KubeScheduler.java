package io.schedlens.simulator.cluster;

import io.schedlens.base.GpuShares;
import io.schedlens.base.KubeTime;
import io.schedlens.simulator.scenario.Scenario.Taint;
import io.schedlens.simulator.scenario.Scenario.Toleration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One scheduling cycle of kube-scheduler's default profile for one pod, as a pure function of the
 * cluster's state: filter (taints and tolerations, node selector, {@code nvidia.com/gpu} fit with
 * the resources of pods nominated to a node at the same or higher priority), score
 * (least-allocated) and, when no node fits, the DefaultPreemption post-filter: on each node where
 * removing lower-priority pods makes room, the fewest and lowest-priority victims (remove all
 * lower-priority pods, then reprieve the most important ones while the pod still fits), and the
 * node whose victims matter least. Notes are written in kube-scheduler's own wording.
 */
public final class KubeScheduler {

  static final String INSUFFICIENT_GPU = "Insufficient nvidia.com/gpu";
  static final String SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector";
  static final String NO_VICTIMS = "No preemption victims found for incoming pod";
  static final String NOT_HELPFUL = "Preemption is not helpful for scheduling";
  static final String WAITING_ON_TERMINATING =
      "preemption: not eligible due to a terminating pod on the nominated node.";
  static final String POLICY_NEVER = "preemption: not eligible due to preemptionPolicy=Never.";

  private KubeScheduler() {}

  /** The outcome of one scheduling cycle. */
  public sealed interface Decision {}

  /** The pod fits: bind it to {@code node}. */
  public record Bind(String node) implements Decision {}

  /**
   * No node fits, but evicting {@code victims} from {@code node} makes room: nominate the node,
   * preempt the victims; {@code note} is the FailedScheduling note of this cycle.
   */
  public record Preempt(String node, List<SimPod> victims, String note) implements Decision {}

  /** No node fits and preemption cannot help (or is not allowed): the FailedScheduling note. */
  public record Unschedulable(String note) implements Decision {}

  /** Why a node does not fit, and whether evicting pods could change that. */
  record NodeStatus(String reason, boolean resolvable) {}

  public static Decision schedule(SimPod pod, List<SimNode> nodes, Collection<SimPod> pods) {
    return schedule(pod, nodes, pods, Set.of());
  }

  /**
   * As above, with cordoned nodes: the NodeUnschedulable filter (before TaintToleration) rejects
   * them, and preemption cannot help there.
   */
  public static Decision schedule(
      SimPod pod, List<SimNode> nodes, Collection<SimPod> pods, Set<String> cordoned) {
    // Every filter and the post-filter look at one node's pods: those bound to it and those
    // nominated to it. Grouped once per cycle (in the order given, which the victim order's ties
    // keep), so that a cycle costs the pods once, not once per node.
    Map<String, List<SimPod>> byNode = new HashMap<>();
    for (SimPod p : pods) {
      String at = p.node != null ? p.node : p.nominatedNode;
      if (at != null) {
        byNode.computeIfAbsent(at, k -> new ArrayList<>()).add(p);
      }
    }
    Map<String, NodeStatus> failures = new TreeMap<>();
    SimNode best = null;
    int bestFree = -1;
    for (SimNode node : nodes) {
      NodeStatus status =
          cordoned.contains(node.name())
              ? new NodeStatus(UNSCHEDULABLE_NODE, false)
              : filter(pod, node, on(byNode, node), List.of());
      if (status == null) {
        int free = free(pod, node, on(byNode, node), List.of()) - pod.gpus;
        if (free > bestFree) {
          best = node;
          bestFree = free;
        }
      } else {
        failures.put(node.name(), status);
      }
    }
    if (best != null) {
      return new Bind(best.name());
    }
    String note = fitError(nodes.size(), failures.values().stream().map(NodeStatus::reason));
    // The DefaultPreemption post-filter.
    if ("Never".equals(pod.preemptionPolicy)) {
      return new Unschedulable(note + " " + POLICY_NEVER);
    }
    if (pod.nominatedNode != null) {
      NodeStatus nominated = failures.get(pod.nominatedNode);
      if (nominated != null && nominated.resolvable()) {
        for (SimPod p : byNode.getOrDefault(pod.nominatedNode, List.of())) {
          if (pod.nominatedNode.equals(p.node)
              && p.priority < pod.priority
              && p.terminatingByPreemption()) {
            return new Unschedulable(note + " " + WAITING_ON_TERMINATING);
          }
        }
      }
    }
    Candidate chosen = null;
    Map<String, String> postFilter = new TreeMap<>();
    for (SimNode node : nodes) {
      NodeStatus status = failures.get(node.name());
      if (!status.resolvable()) {
        postFilter.put(node.name(), NOT_HELPFUL);
        continue;
      }
      Candidate c = victimsOn(pod, node, on(byNode, node));
      if (c == null) {
        postFilter.put(node.name(), NO_VICTIMS);
      } else if (chosen == null || c.betterThan(chosen)) {
        chosen = c;
      }
    }
    if (chosen == null) {
      return new Unschedulable(
          note + " preemption: " + fitError(nodes.size(), postFilter.values().stream()));
    }
    return new Preempt(chosen.node.name(), chosen.victims, note);
  }

  private static List<SimPod> on(Map<String, List<SimPod>> byNode, SimNode node) {
    return byNode.getOrDefault(node.name(), List.of());
  }

  /** The NodeUnschedulable plugin's reason for a cordoned node. */
  static final String UNSCHEDULABLE_NODE = "node(s) were unschedulable";

  /** kube-scheduler's FitError text: {@code 0/N nodes are available: 1 reason, 2 reason.} */
  static String fitError(int nodes, Stream<String> reasons) {
    Map<String, Integer> histogram = new TreeMap<>();
    reasons.forEach(r -> histogram.merge(r, 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    histogram.forEach((r, n) -> parts.add(n + " " + r));
    parts.sort(Comparator.naturalOrder());
    return "0/" + nodes + " nodes are available: " + String.join(", ", parts) + ".";
  }

  /**
   * The first filter that rejects the pod on the node (plugin order: TaintToleration, NodeAffinity,
   * NodeResourcesFit), or null when it fits; {@code removed} are pods treated as gone.
   */
  static NodeStatus filter(
      SimPod pod, SimNode node, Collection<SimPod> pods, List<SimPod> removed) {
    for (Taint t : node.taints()) {
      if ((t.effect().equals("NoSchedule") || t.effect().equals("NoExecute"))
          && !tolerates(pod.tolerations, t)) {
        return new NodeStatus(
            "node(s) had untolerated taint {" + t.key() + ": " + t.value() + "}", false);
      }
    }
    for (Map.Entry<String, String> e : pod.nodeSelector.entrySet()) {
      if (!e.getValue().equals(node.labels().get(e.getKey()))) {
        return new NodeStatus(SELECTOR_MISMATCH, false);
      }
    }
    if (pod.gpus > free(pod, node, pods, removed)) {
      return new NodeStatus(
          GpuShares.WHOLE.equals(pod.gpuResource)
              ? INSUFFICIENT_GPU
              : "Insufficient " + pod.gpuResource,
          true);
    }
    return null;
  }

  /**
   * Devices of the pod's resource left on the node for it: allocatable minus pods bound there
   * (terminating ones still hold theirs) minus pods nominated there with at least this pod's
   * priority.
   */
  static int free(SimPod pod, SimNode node, Collection<SimPod> pods, List<SimPod> removed) {
    int used = 0;
    for (SimPod p : pods) {
      if (p == pod || removed.contains(p) || !p.gpuResource.equals(pod.gpuResource)) {
        continue;
      }
      if (p.holdsNode() && p.node.equals(node.name())) {
        used += p.gpus;
      } else if (p.pending() && node.name().equals(p.nominatedNode) && p.priority >= pod.priority) {
        used += p.gpus;
      }
    }
    return node.devices(pod.gpuResource) - used;
  }

  static boolean tolerates(List<Toleration> tolerations, Taint taint) {
    for (Toleration t : tolerations) {
      boolean effect = t.effect().isEmpty() || t.effect().equals(taint.effect());
      boolean key = t.key().isEmpty() ? t.operator().equals("Exists") : t.key().equals(taint.key());
      boolean value = t.operator().equals("Exists") || t.value().equals(taint.value());
      if (effect && key && value) {
        return true;
      }
    }
    return false;
  }

  /** A node where preemption helps, with its victims. */
  private record Candidate(SimNode node, List<SimPod> victims) {

    int highest() {
      return victims.stream().mapToInt(p -> p.priority).max().orElse(Integer.MIN_VALUE);
    }

    long sum() {
      // As kube-scheduler: priorities shifted to be positive, so that more victims never sum less.
      return victims.stream().mapToLong(p -> (long) p.priority + Integer.MAX_VALUE + 1L).sum();
    }

    /** Start time of the earliest-started victim among those of the highest priority. */
    long earliestStartOfHighest() {
      int h = highest();
      return victims.stream()
          .filter(p -> p.priority == h)
          .mapToLong(KubeScheduler::startTime)
          .min()
          .orElse(Long.MAX_VALUE);
    }

    /** kube-scheduler's pickOneNodeForPreemption order (no PodDisruptionBudgets here). */
    boolean betterThan(Candidate other) {
      if (highest() != other.highest()) {
        return highest() < other.highest();
      }
      if (sum() != other.sum()) {
        return sum() < other.sum();
      }
      if (victims.size() != other.victims.size()) {
        return victims.size() < other.victims.size();
      }
      // The node whose most important victims started latest loses the least work.
      return earliestStartOfHighest() > other.earliestStartOfHighest();
    }
  }

  /**
   * A pod's start as kube-scheduler's GetPodStartTime reads it: {@code status.startTime}, when the
   * kubelet acknowledged the pod (before its image pull, not when its container started), to the
   * second as the API holds it (pods acknowledged within one second tie); for a pod the kubelet has
   * not acknowledged yet, now — later than any acknowledged pod.
   */
  static long startTime(SimPod p) {
    return p.kubeletStartedAt == null ? Long.MAX_VALUE : KubeTime.truncated(p.kubeletStartedAt);
  }

  /** SelectVictimsOnNode: the minimal set of lower-priority pods to evict, or null. */
  private static Candidate victimsOn(SimPod pod, SimNode node, Collection<SimPod> pods) {
    List<SimPod> potential = new ArrayList<>();
    for (SimPod p : pods) {
      if (p.holdsNode()
          && p.node.equals(node.name())
          && p.priority < pod.priority
          && !p.terminating()) {
        potential.add(p);
      }
    }
    if (potential.isEmpty() || filter(pod, node, pods, potential) != null) {
      return null;
    }
    // Most important first: higher priority, then the earlier started.
    potential.sort(
        Comparator.comparingInt((SimPod p) -> -p.priority)
            .thenComparingLong(KubeScheduler::startTime));
    List<SimPod> removed = new ArrayList<>(potential);
    List<SimPod> victims = new ArrayList<>();
    for (SimPod p : potential) {
      removed.remove(p);
      if (filter(pod, node, pods, removed) != null) {
        removed.add(p);
        victims.add(p);
      }
    }
    return new Candidate(node, victims);
  }
}
