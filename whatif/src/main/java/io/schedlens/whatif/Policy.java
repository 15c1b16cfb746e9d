package io.schedlens.whatif;

import io.schedlens.simulator.scenario.Kueue;
import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import io.schedlens.simulator.scenario.Scenario.GpuQuota;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A scheduling policy to try on what was observed, read by {@link PolicyLoader} (see {@code
 * docs/operators/whatif.md} for the file with every field).
 *
 * @param name the predicted arm's name on every predicted timeline
 * @param priorityClasses the PriorityClasses that exist under the policy
 * @param workloads per application ({@code app.kubernetes.io/name}) or workload name: its class
 *     under the policy and what its pods do that no timeline shows
 * @param quotas GPU quotas (Kueue ClusterQueue nominal quota, no borrowing)
 * @param kueue Kueue in front of the scheduler, as a scenario states it: ClusterQueues (cohorts,
 *     borrowing, preemption), LocalQueues, WorkloadPriorityClasses; {@link Kueue#NONE} without
 * @param unserved what a request that arrives while no replica is Ready is
 * @param nodes the cluster's nodes, or empty: every node an observed pod ran on, with the most GPUs
 *     its pods held at once
 * @param seed the random seed of the simulated traffic and timing
 */
public record Policy(
    String name,
    List<PriorityClassSpec> priorityClasses,
    Map<String, WorkloadRule> workloads,
    List<GpuQuota> quotas,
    Kueue kueue,
    Unserved unserved,
    List<Node> nodes,
    long seed) {

  public Policy {
    priorityClasses = List.copyOf(priorityClasses);
    workloads = Map.copyOf(workloads);
    quotas = List.copyOf(quotas);
    nodes = List.copyOf(nodes);
  }

  /** The class name that means "no PriorityClass" (priority 0). */
  public static final String NO_CLASS = "none";

  /**
   * What the policy says of one application.
   *
   * @param priorityClass its class under the policy, {@link #NO_CLASS}, or null: the class it had
   * @param setup time after each container start before a Job's productive work (loading data)
   * @param checkpointEvery productive time between a Job's checkpoints; null: never checkpoints
   * @param queue the Kueue LocalQueue its Jobs wait in, {@link #NO_CLASS} for none, or null: the
   *     one they were observed in if the policy's Kueue has it, else a quota's that covers them
   * @param workloadPriorityClass the Kueue WorkloadPriorityClass its Jobs name, or null
   */
  public record WorkloadRule(
      String priorityClass,
      Duration setup,
      Duration checkpointEvery,
      String queue,
      String workloadPriorityClass) {

    /** A rule that says nothing of Kueue. */
    public WorkloadRule(String priorityClass, Duration setup, Duration checkpointEvery) {
      this(priorityClass, setup, checkpointEvery, null, null);
    }

    /** The same rule with another checkpoint interval. */
    public WorkloadRule withCheckpointEvery(Duration every) {
      return new WorkloadRule(priorityClass, setup, every, queue, workloadPriorityClass);
    }
  }

  /** A request that arrives while no replica is Ready: failed (5xx), or queued until one is. */
  public enum Unserved {
    FAILED,
    QUEUED
  }

  /**
   * {@code count} nodes named {@code name-1 … name-count} with {@code gpus} GPUs of {@code
   * gpuModel} each, offered as {@code layout} says (MIG slices, time-sliced replicas).
   */
  public record Node(String name, int count, int gpus, String gpuModel, GpuLayout layout) {

    /** Whole GPUs of no model in particular. */
    public Node(String name, int count, int gpus) {
      this(name, count, gpus, "", GpuLayout.WHOLE);
    }
  }

  /** The same policy with another random seed for the simulated traffic and timing. */
  public Policy withSeed(long otherSeed) {
    return new Policy(name, priorityClasses, workloads, quotas, kueue, unserved, nodes, otherSeed);
  }

  /** The rule of an application, or one that keeps its class and assumes nothing. */
  public WorkloadRule rule(String application) {
    WorkloadRule r = workloads.get(application);
    return r != null ? r : new WorkloadRule(null, Duration.ZERO, null);
  }

  /** The class named {@code name}, or null. */
  public PriorityClassSpec priorityClass(String className) {
    return priorityClasses.stream()
        .filter(c -> c.name().equals(className))
        .findFirst()
        .orElse(null);
  }
}
