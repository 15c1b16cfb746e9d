package io.schedlens.whatif;

import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.ClassOverride;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The policy a simulated experiment's arm ran under, as a policy file would state it: its
 * PriorityClasses (with the arm's overrides), which workload has which (none in an arm without
 * classes), its quotas and Kueue (each Job in the queue it names, or in none, with its
 * WorkloadPriorityClass in an arm with classes), and what the scenario knows of each Job (setup,
 * checkpoint interval).
 */
public final class ScenarioPolicy {

  private ScenarioPolicy() {}

  public static Policy of(Scenario s, Arm arm) {
    List<PriorityClassSpec> classes = new ArrayList<>();
    if (arm.priorityClasses()) {
      for (PriorityClassSpec c : s.priorityClasses()) {
        ClassOverride o = arm.overrides().get(c.name());
        classes.add(
            new PriorityClassSpec(
                c.name(),
                o != null && o.value() != null ? o.value() : c.value(),
                o != null && o.preemptionPolicy() != null
                    ? o.preemptionPolicy()
                    : c.preemptionPolicy()));
      }
    }
    Map<String, Policy.WorkloadRule> rules = new LinkedHashMap<>();
    for (Workload w : s.workloads()) {
      String cls =
          arm.priorityClasses() && w.priorityClass() != null ? w.priorityClass() : Policy.NO_CLASS;
      Duration setup = Duration.ZERO;
      Duration every = null;
      String queue = null;
      String wpc = null;
      if (w.spec() instanceof JobSpec j) {
        setup = j.setup();
        every = j.checkpointInterval().isZero() ? null : j.checkpointInterval();
        queue = j.queue() != null ? j.queue() : Policy.NO_CLASS;
        wpc = arm.priorityClasses() ? j.workloadPriorityClass() : null;
      }
      rules.put(w.name(), new Policy.WorkloadRule(cls, setup, every, queue, wpc));
    }
    return new Policy(
        arm.name() + "-policy",
        classes,
        rules,
        arm.quotas(),
        s.kueue(),
        Policy.Unserved.FAILED,
        s.nodes().stream()
            .map(n -> new Policy.Node(n.name(), n.count(), n.gpus(), n.gpuModel(), n.layout()))
            .toList(),
        s.seed());
  }
}
