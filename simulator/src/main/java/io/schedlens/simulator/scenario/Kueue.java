package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Kueue in front of kube-scheduler (v0.14+ semantics, one resource flavor, GPUs only): a Job that
 * names one of {@link #localQueues} waits suspended, without pods, until its Workload is admitted
 * to the LocalQueue's ClusterQueue. Without ClusterQueues, Kueue is not installed.
 *
 * @param workloadPriorityClasses Kueue's priorities, for Jobs that name one (in arms with {@code
 *     priorityClasses: true}); they order and preempt Workloads, not pods
 */
public record Kueue(
    List<ClusterQueue> clusterQueues,
    List<LocalQueue> localQueues,
    List<WorkloadPriorityClass> workloadPriorityClasses) {

  public static final Kueue NONE = new Kueue(List.of(), List.of(), List.of());

  public Kueue {
    clusterQueues = List.copyOf(clusterQueues);
    localQueues = List.copyOf(localQueues);
    workloadPriorityClasses = List.copyOf(workloadPriorityClasses);
  }

  /**
   * Reads the {@code kueue:} section of {@code root} (a scenario's or a what-if policy's), as
   * {@code scenarios/kueue.yaml} documents it; {@link #NONE} when there is none.
   *
   * @param source names the file in messages
   * @throws ScenarioException naming the file, the field's path and what was expected
   */
  public static Kueue parse(String source, JsonNode root) {
    return new KueueLoader(new YamlFields(source)).kueue(root);
  }

  /** The LocalQueue named {@code name}, or null. */
  public LocalQueue localQueue(String name) {
    return localQueues.stream().filter(q -> q.name().equals(name)).findFirst().orElse(null);
  }

  /** Whether Kueue is installed: it has a ClusterQueue. */
  public boolean installed() {
    return !clusterQueues.isEmpty();
  }

  /** The ClusterQueue a LocalQueue points to, or null. */
  public ClusterQueue clusterQueueOf(String localQueue) {
    String cq =
        localQueues.stream()
            .filter(q -> q.name().equals(localQueue))
            .map(LocalQueue::clusterQueue)
            .findFirst()
            .orElse(null);
    return clusterQueues.stream().filter(c -> c.name().equals(cq)).findFirst().orElse(null);
  }

  public WorkloadPriorityClass workloadPriorityClass(String name) {
    return workloadPriorityClasses.stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElse(null);
  }

  /**
   * A ClusterQueue with one flavor of {@code nvidia.com/gpu}.
   *
   * @param cohort the cohort whose unused nominal quota it may borrow, or null
   * @param nominalGpus its nominal quota
   * @param borrowingLimitGpus how far it may borrow beyond its nominal quota; null: no limit
   * @param withinClusterQueue {@code Never} or {@code LowerPriority}: whether a Workload preempts
   *     lower-priority Workloads of its own ClusterQueue
   * @param reclaimWithinCohort {@code Never}, {@code LowerPriority} or {@code Any}: whether a
   *     Workload that fits in its nominal quota preempts Workloads of cohort members that borrow
   */
  public record ClusterQueue(
      String name,
      String cohort,
      int nominalGpus,
      Integer borrowingLimitGpus,
      String withinClusterQueue,
      String reclaimWithinCohort) {}

  /** A LocalQueue of the scenario's namespace and the ClusterQueue it submits to. */
  public record LocalQueue(String name, String clusterQueue) {}

  /** A WorkloadPriorityClass (kueue.x-k8s.io/v1beta2). */
  public record WorkloadPriorityClass(String name, int value) {}
}
