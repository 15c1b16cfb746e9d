package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pods and workloads of one observed run: one arm and repeat of an experiment, or, outside an
 * experiment, everything the timelines hold.
 *
 * @param start the earliest creation of its pods, or submission of a Job Kueue held before it had
 *     pods ({@code admittedAt − queueWaitMs})
 * @param end the latest creation or termination of its pods
 * @param workloads the timelines of its workloads: its Jobs, and the Deployments and StatefulSets
 *     whose desired or Ready replicas changed within it (one applied for every run has one timeline
 *     for all)
 */
public record ObservedRun(
    String experiment,
    String arm,
    String repeat,
    long start,
    long end,
    List<PodTimeline> pods,
    List<WorkloadTimeline> workloads) {

  /** The runs in the timelines, in order of their start. */
  public static List<ObservedRun> of(
      Collection<PodTimeline> timelines, Collection<WorkloadTimeline> workloads) {
    Map<String, List<PodTimeline>> pods = new TreeMap<>();
    for (PodTimeline t : timelines) {
      pods.computeIfAbsent(key(t.getArm(), t.getRepeat()), k -> new ArrayList<>()).add(t);
    }
    Map<String, List<WorkloadTimeline>> objects = new HashMap<>();
    for (WorkloadTimeline w : workloads) {
      objects.computeIfAbsent(key(w.getArm(), w.getRepeat()), k -> new ArrayList<>()).add(w);
    }
    List<ObservedRun> runs = new ArrayList<>();
    pods.forEach(
        (k, list) -> {
          list.sort(
              Comparator.comparingLong(PodTimeline::getCreatedAt)
                  .thenComparing(PodTimeline::getUid));
          long start = Long.MAX_VALUE;
          long end = Long.MIN_VALUE;
          for (PodTimeline t : list) {
            start = Math.min(start, ObservedJob.submittedAt(t));
            end = Math.max(end, t.getCreatedAt());
            if (t.getTerminatedAt() != null) {
              end = Math.max(end, t.getTerminatedAt());
            }
          }
          // A Deployment applied once serves every run: its one timeline (labelled with the arm
          // of its latest pod) belongs to each run it changed in.
          List<WorkloadTimeline> ws = new ArrayList<>(objects.getOrDefault(k, List.of()));
          for (WorkloadTimeline w : workloads) {
            if (!ws.contains(w) && !w.getKind().equals("Job") && changedIn(w, start, end)) {
              ws.add(w);
            }
          }
          PodTimeline first = list.get(0);
          runs.add(
              new ObservedRun(
                  first.getExperiment(),
                  first.getArm(),
                  first.getRepeat(),
                  start,
                  end,
                  List.copyOf(list),
                  List.copyOf(ws)));
        });
    runs.sort(Comparator.comparingLong(ObservedRun::start));
    return runs;
  }

  private static boolean changedIn(WorkloadTimeline w, long start, long end) {
    return w.getSeries().stream().anyMatch(p -> p.getAt() >= start && p.getAt() <= end);
  }

  private static String key(String arm, String repeat) {
    return (arm == null ? "" : arm) + "\u0000" + (repeat == null ? "" : repeat);
  }

  /** The repeat as a number (1 when the pods carry none). */
  public int repeatNumber() {
    try {
      return repeat == null || repeat.isEmpty() ? 1 : Integer.parseInt(repeat);
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** "arm control, repeat 2", or "the timelines" outside an experiment. */
  public String label() {
    if ((arm == null || arm.isEmpty()) && (repeat == null || repeat.isEmpty())) {
      return "the timelines";
    }
    return "arm " + arm + ", repeat " + repeat;
  }
}
