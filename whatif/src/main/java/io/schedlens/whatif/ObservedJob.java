package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.base.Outcome;
import io.schedlens.simulator.scenario.Scenario.Arrival;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A Job of an observed run, as the simulator's scenario replays it. */
final class ObservedJob {

  private ObservedJob() {}

  /**
   * A Job as its pods show it. Each completion is a unit of work that a replacement pod resumes
   * from the last checkpoint, as the Job controller gives a pod that ended early's unit to the next
   * pod it creates: the units are followed from pod to pod in order of creation. A unit's work is
   * what its pods did productively (each pod's run less its setup, less the work lost since its
   * last checkpoint for a pod that ended early); a unit the run's end cut off needed at least what
   * it did, and is taken as the Job's typical unit (the median of its finished ones) if that is
   * more.
   *
   * @param gang the pods are one gang (a JobSet's): replayed as the simulator's JobSet
   * @param queue the Kueue LocalQueue it waits in under the policy, or null
   * @param workloadPriorityClass the WorkloadPriorityClass it names there, or null
   */
  static JobSpec of(
      ObservedRun run,
      List<PodTimeline> pods,
      Policy.WorkloadRule rule,
      List<String> assumptions,
      String application,
      boolean gang,
      String queue,
      String workloadPriorityClass) {
    long setup = rule.setup().toMillis();
    // A Job Kueue held suspended arrived when its Workload was created (its first admission's
    // start of wait), not when its first pod was.
    long arrival = pods.stream().mapToLong(ObservedJob::submittedAt).min().orElse(run.start());
    List<long[]> cut = new ArrayList<>();
    List<long[]> units = units(run, pods, setup, cut);
    List<Long> finished = new ArrayList<>();
    for (long[] u : units) {
      if (u[1] == 1 && !cut.contains(u)) {
        finished.add(u[0]);
      }
    }
    long typical = ObservedArrivals.median(finished, 0);
    for (long[] u : cut) {
      u[0] = Math.max(u[0], typical);
    }
    List<Duration> work = new ArrayList<>();
    for (long[] u : units) {
      if (u[1] == 1) {
        work.add(Duration.ofMillis(Math.max(1000, u[0])));
      }
    }
    if (work.isEmpty()) {
      // every pod ended early and none was replaced: the work it needed is more than it did
      units.forEach(u -> work.add(Duration.ofMillis(Math.max(1000, Math.max(u[0], typical)))));
    }
    if (finished.isEmpty()) {
      assumptions.add(
          application
              + ": a Job of it never completed in "
              + run.label()
              + "; its work is taken as what its pods did (a lower bound)");
    }
    if (rule.checkpointEvery() == null) {
      assumptions.add(application + " never checkpoints (say checkpointEvery in the policy)");
    }
    int completions = work.size();
    return new JobSpec(
        new Arrival(Duration.ofMillis(arrival - run.start()), Duration.ZERO, 1, Duration.ZERO),
        Math.min(completions, concurrent(pods)),
        completions,
        work.get(0),
        0,
        rule.setup(),
        rule.checkpointEvery() == null ? Duration.ZERO : rule.checkpointEvery(),
        6,
        true,
        Duration.ofSeconds(60),
        work,
        gang,
        queue,
        workloadPriorityClass);
  }

  /**
   * When the pod's Job was submitted, as far as the pod tells: its queue wait's start, else its
   * creation.
   */
  static long submittedAt(PodTimeline t) {
    if (t.getAdmittedAt() != null && t.getQueueWaitMs() != null) {
      return Math.min(t.getCreatedAt(), t.getAdmittedAt() - t.getQueueWaitMs());
    }
    return t.getCreatedAt();
  }

  /**
   * The units of work followed from pod to pod in order of creation, each {work so far, 1 when
   * finished or cut}; those the run's end cut off also to {@code cut}.
   */
  private static List<long[]> units(
      ObservedRun run, List<PodTimeline> pods, long setup, List<long[]> cut) {
    List<long[]> units = new ArrayList<>(); // {work so far, 1 when finished or cut}
    List<PodTimeline> byCreation = new ArrayList<>(pods);
    byCreation.sort(Comparator.comparingLong(PodTimeline::getCreatedAt));
    long lastCreated = byCreation.get(byCreation.size() - 1).getCreatedAt();
    List<PodTimeline> endedEarly = new ArrayList<>();
    ArrayDeque<long[]> resumable = new ArrayDeque<>();
    Map<String, long[]> unitOf = new HashMap<>();
    for (PodTimeline t : byCreation) {
      // units of pods that ended early before this one was created go back first
      endedEarly.sort(Comparator.comparingLong(PodTimeline::getTerminatedAt));
      for (var it = endedEarly.iterator(); it.hasNext(); ) {
        PodTimeline e = it.next();
        if (e.getTerminatedAt() <= t.getCreatedAt()) {
          resumable.addFirst(unitOf.get(e.getUid()));
          it.remove();
        }
      }
      long[] unit = resumable.isEmpty() ? new long[] {0, 0} : resumable.pollFirst();
      if (!units.contains(unit)) {
        units.add(unit);
      }
      unitOf.put(t.getUid(), unit);
      long ran =
          t.getRunningAt() == null
              ? 0
              : (t.getTerminatedAt() != null ? t.getTerminatedAt() : run.end()) - t.getRunningAt();
      // deleted with no pod of the Job created after it: the run's end cut it off; one that has a
      // later pod was deleted while the Job went on (Kueue suspended the Job before it ran, to
      // re-admit it later) and ended early
      boolean cutOff =
          t.getTerminatedAt() == null
              || (t.getDisruption() != null
                  && "deletion".equals(t.getDisruption().getCause())
                  && t.getTerminatedAt() > lastCreated);
      if (Outcome.SUCCEEDED.wire().equals(t.getOutcome())) {
        unit[0] += Math.max(0, ran - setup);
        unit[1] = 1;
      } else if (cutOff) {
        unit[0] += Math.max(0, ran - setup);
        unit[1] = 1;
        cut.add(unit);
      } else {
        long lost =
            t.getWastedGpuSeconds() == null || t.getGpus() == 0
                ? ran
                : Math.round(t.getWastedGpuSeconds() * 1000 / t.getGpus());
        unit[0] += Math.max(0, ran - lost - setup);
        endedEarly.add(t);
      }
    }
    return units;
  }

  /** The most pods of the list that existed at once. */
  private static int concurrent(List<PodTimeline> pods) {
    TreeMap<Long, Integer> d = new TreeMap<>();
    for (PodTimeline t : pods) {
      d.merge(t.getCreatedAt(), 1, Integer::sum);
      long end = t.getTerminatedAt() != null ? t.getTerminatedAt() : Long.MAX_VALUE - 1;
      d.merge(end, -1, Integer::sum);
    }
    int n = 0;
    int max = 1;
    for (int delta : d.values()) {
      n += delta;
      max = Math.max(max, n);
    }
    return max;
  }
}
