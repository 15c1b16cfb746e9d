package io.schedlens.simulator.scenario;

import io.schedlens.base.GpuShares;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a scenario's parts must agree on, checked once they are read: unique names, actions on
 * nodes, Deployments and failures that exist, PriorityClasses that are declared, pods that fit on a
 * node.
 */
final class ScenarioCrossCheck {

  private final YamlFields fields;

  ScenarioCrossCheck(YamlFields fields) {
    this.fields = fields;
  }

  void check(Scenario s) {
    fields.unique(s.nodes().stream().map(NodePool::name).toList(), "nodes", "name");
    Set<String> nodeNames = new TreeSet<>();
    s.nodes()
        .forEach(
            pool -> {
              for (int i = 1; i <= pool.count(); i++) {
                nodeNames.add(pool.name() + "-" + i);
              }
            });
    actions(s, nodeNames);
    fields.unique(
        s.priorityClasses().stream().map(PriorityClassSpec::name).toList(),
        "priorityClasses",
        "name");
    fields.unique(s.arms().stream().map(Arm::name).toList(), "arms", "name");
    fields.unique(s.workloads().stream().map(Workload::name).toList(), "workloads", "name");
    for (int i = 0; i < s.workloads().size(); i++) {
      Workload w = s.workloads().get(i);
      if (w.priorityClass() != null && s.priorityClass(w.priorityClass()) == null) {
        throw fields.fail(
            "workloads[" + i + "].priorityClass",
            "'" + w.priorityClass() + "' is not one of priorityClasses " + names(s));
      }
      String resource = w.template().gpuResource();
      int largest = s.nodes().stream().mapToInt(n -> n.devices(resource)).max().orElse(0);
      if (w.template().gpus() > largest) {
        throw fields.fail(
            "workloads[" + i + "].gpus",
            GpuShares.WHOLE.equals(resource)
                ? w.template().gpus() + " GPUs fit on no node (the largest has " + largest + ")"
                : w.template().gpus()
                    + " of "
                    + resource
                    + " fit on no node (the most a node offers is "
                    + largest
                    + ")");
      }
    }
    for (int i = 0; i < s.arms().size(); i++) {
      for (String c : s.arms().get(i).overrides().keySet()) {
        if (s.priorityClass(c) == null) {
          throw fields.fail("arms[" + i + "].overrides." + c, "no such PriorityClass " + names(s));
        }
      }
    }
    if (s.duration().isZero() || s.duration().isNegative()) {
      throw fields.fail("duration", "must be positive");
    }
  }

  /** Each action names a node, a Deployment or an earlier failure that exists, within the run. */
  private void actions(Scenario s, Set<String> nodeNames) {
    for (int i = 0; i < s.actions().size(); i++) {
      Scenario.Action a = s.actions().get(i);
      String p = "actions[" + i + "]." + a.action();
      if (Scenario.Action.NODE_ACTIONS.contains(a.action()) && !nodeNames.contains(a.target())) {
        throw fields.fail(
            p,
            "no node "
                + a.target()
                + "; nodes are named POOL-1 … POOL-count: "
                + String.join(", ", nodeNames));
      }
      if (a.action().equals("rollout")
          && s.workloads().stream()
              .noneMatch(w -> w.kind().equals("Deployment") && w.name().equals(a.target()))) {
        throw fields.fail(p, "no Deployment " + a.target() + " among the workloads");
      }
      if (a.action().equals("rollout")
          && Scenario.Action.resolve(a.maxSurge(), 1, true) == 0
          && Scenario.Action.resolve(a.maxUnavailable(), 1, false) == 0
          && a.maxSurge() != null
          && !a.maxSurge().endsWith("%")
          && a.maxUnavailable() != null
          && !a.maxUnavailable().endsWith("%")) {
        throw fields.fail(
            p, "maxSurge and maxUnavailable cannot both be 0 (the rollout could not move)");
      }
      if (a.action().equals("rejoin")) {
        Scenario.Action failed = null;
        for (Scenario.Action b : s.actions()) {
          if (b.action().equals("fail")
              && b.target().equals(a.target())
              && b.at().compareTo(a.at()) < 0) {
            failed = b;
          }
        }
        if (failed == null) {
          throw fields.fail(p, "rejoin of " + a.target() + " without an earlier fail of it");
        }
        if (a.at().minus(failed.at()).compareTo(Duration.ofSeconds(340)) <= 0) {
          throw fields.fail(
              p,
              "re-joining within 340 s of failing is not simulated: give the taint manager its"
                  + " 40 s (node monitor grace) + 300 s (unreachable toleration) first");
        }
      }
      if (a.at().compareTo(s.duration()) >= 0) {
        throw fields.fail(
            "actions[" + i + "].at", "must be within the run's duration " + s.duration());
      }
    }
  }

  private static List<String> names(Scenario s) {
    return s.priorityClasses().stream().map(PriorityClassSpec::name).toList();
  }
}
