package io.schedlens.simulator.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * What a simulated JobSet's gang lived, at the simulator's exact times: when all its pods first
 * ran, and the GPU-seconds its running pods held while another of its pods waited to run (DESIGN
 * section 4, gangs). A pod waits from its creation until its container starts or it stops (its
 * deletion is asked for, or its container ends), and holds its GPUs from its container's start
 * until it stops.
 *
 * @param jobSet the JobSet's name
 * @param workload the scenario workload it is a run of
 * @param runningAt the first moment a pod ran and none waited; null when never
 */
public record GangTruth(
    String jobSet, String workload, String arm, int repeat, Long runningAt, double waitGpuSeconds) {

  /** The gang of a JobSet's pods (every pod its Job created), lived up to {@code end}. */
  static GangTruth of(
      String jobSet, String workload, String arm, int repeat, List<SimPod> pods, long end) {
    // +1 a pod starts waiting or holding, -1 it stops: the changes at each time, in time order
    TreeMap<Long, long[]> changes = new TreeMap<>(); // {waiting, holding GPUs}
    for (SimPod p : pods) {
      long stop = stopOf(p, end);
      long run = p.containerStartedAt == null ? stop : Math.min(p.containerStartedAt, stop);
      change(changes, p.createdAt, 1, 0);
      change(changes, run, -1, 0);
      if (p.containerStartedAt != null && p.containerStartedAt < stop) {
        change(changes, p.containerStartedAt, 0, p.gpus);
        change(changes, stop, 0, -p.gpus);
      }
    }
    long waiting = 0;
    long holding = 0;
    Long runningAt = null;
    long waitGpuMs = 0;
    Long last = null;
    for (var e : new ArrayList<>(changes.entrySet())) {
      long t = e.getKey();
      if (last != null && waiting > 0) {
        waitGpuMs += holding * (t - last);
      }
      waiting += e.getValue()[0];
      holding += e.getValue()[1];
      if (runningAt == null && waiting == 0 && holding > 0) {
        runningAt = t;
      }
      last = t;
    }
    return new GangTruth(jobSet, workload, arm, repeat, runningAt, waitGpuMs / 1000.0);
  }

  private static long stopOf(SimPod p, long end) {
    long stop = end;
    if (p.deletionRequestedAt != null) {
      stop = Math.min(stop, p.deletionRequestedAt);
    }
    if (p.containerFinishedAt != null) {
      stop = Math.min(stop, p.containerFinishedAt);
    }
    return stop;
  }

  private static void change(TreeMap<Long, long[]> changes, long at, long waiting, long gpus) {
    long[] c = changes.computeIfAbsent(at, k -> new long[2]);
    c[0] += waiting;
    c[1] += gpus;
  }
}
