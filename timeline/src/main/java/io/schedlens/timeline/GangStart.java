package io.schedlens.timeline;

import io.schedlens.avro.internal.WorkloadMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * When a gang first ran, and what its early pods held while they waited for the rest: the two
 * figures of a workload whose pods must all run before any does useful work (DESIGN section 4,
 * gangs). Pure: the same members give the same answer in whatever order they were told.
 *
 * <ul>
 *   <li>A pod of the gang is <em>pending</em> from its creation until it runs or stops (its
 *       deletion is asked for, or it ends) and <em>holding</em> its GPUs from {@code runningAt}
 *       until it stops.
 *   <li>{@code gangWaitGpuSeconds}: over every interval in which some pod of a group is pending,
 *       the GPUs the group's holding pods hold, in GPU-equivalents (a MIG slice or a shared replica
 *       its part of a GPU), times the interval. A gang restarted (a JobSet's failure policy
 *       recreates every Job) waits again and counts again.
 *   <li>{@code gangRunningAt}: the first time a group had a pod running and none pending; for a
 *       workload of several groups (a LeaderWorkerSet's, one per group index), the latest of the
 *       groups' that got there.
 * </ul>
 *
 * <p>The gang is the pods the workload has created so far: the controllers named here create a
 * gang's pods together, and kube-scheduler places them one by one. A JobSet with {@code
 * startupPolicy: InOrder} creates its later Jobs only once the earlier ones are Ready; its {@code
 * gangRunningAt} is then when the earlier ones ran, and their wait for the later ones still counts.
 */
public final class GangStart {

  /** The top controllers whose pods start together. */
  public static final Set<String> GANG_KINDS =
      Set.of("JobSet", "TrainJob", "LeaderWorkerSet", "RayCluster", "RayJob");

  /** The label a LeaderWorkerSet puts on each pod: which of its groups the pod is in. */
  public static final String LWS_GROUP = "leaderworkerset.sigs.k8s.io/group-index";

  /** A gang's two figures: null for a workload that is not a gang. */
  public record Figures(Long runningAt, Double waitGpuSeconds) {
    static final Figures NONE = new Figures(null, null);
  }

  private GangStart() {}

  /** Whether a workload of this kind is a gang. */
  public static boolean isGang(String kind) {
    return GANG_KINDS.contains(kind);
  }

  /** The group of its workload a pod starts with, from its labels; null for the whole workload. */
  public static String groupOf(Map<String, String> labels) {
    return labels == null ? null : labels.get(LWS_GROUP);
  }

  /** The gang figures of a workload of {@code kind} with these pods, as of {@code now}. */
  public static Figures of(String kind, List<WorkloadMember> pods, long now) {
    if (!isGang(kind)) {
      return Figures.NONE;
    }
    Map<String, List<WorkloadMember>> groups = new TreeMap<>();
    for (WorkloadMember p : pods) {
      if (p.getCreatedAt() != null && p.getCreatedAt() <= now) {
        groups
            .computeIfAbsent(p.getGang() == null ? "" : p.getGang(), g -> new ArrayList<>())
            .add(p);
      }
    }
    Long runningAt = null;
    double wait = 0;
    for (List<WorkloadMember> group : groups.values()) {
      Figures f = ofGroup(group, now);
      wait += f.waitGpuSeconds();
      if (f.runningAt() != null) {
        runningAt = runningAt == null ? f.runningAt() : Math.max(runningAt, f.runningAt());
      }
    }
    return new Figures(runningAt, wait);
  }

  /** One group's figures: a sweep over the times its pods were created, ran and stopped. */
  private static Figures ofGroup(List<WorkloadMember> group, long now) {
    TreeSet<Long> times = new TreeSet<>();
    for (WorkloadMember p : group) {
      times.add(p.getCreatedAt());
      addIfBefore(times, p.getRunningAt(), now);
      addIfBefore(times, p.getStoppedAt(), now);
    }
    times.add(now);
    Long runningAt = null;
    double waitGpuMs = 0;
    // the group as it stands from each time on, to the next (the last, now, the latest fact)
    long previous = 0;
    At before = null;
    for (long t : times) {
      if (before != null && before.pending > 0) {
        waitGpuMs += before.nanoGpus / 1e9 * (t - previous);
      }
      At at = At.of(group, t);
      if (runningAt == null && at.pending == 0 && at.running > 0) {
        runningAt = t;
      }
      previous = t;
      before = at;
    }
    return new Figures(runningAt, waitGpuMs / 1000.0);
  }

  /**
   * A group at one time: its pods pending, its pods running, and the GPU-equivalents those hold, in
   * billionths (an integer sum, the same in whatever order the members come).
   */
  private record At(int pending, int running, long nanoGpus) {
    static At of(List<WorkloadMember> group, long t) {
      int pending = 0;
      int running = 0;
      long nanoGpus = 0;
      for (WorkloadMember p : group) {
        if (pendingAt(p, t)) {
          pending++;
        } else if (holdingAt(p, t)) {
          running++;
          nanoGpus += Math.round(p.getGpus() * p.getGpuShare() * 1e9);
        }
      }
      return new At(pending, running, nanoGpus);
    }
  }

  private static boolean pendingAt(WorkloadMember p, long t) {
    return p.getCreatedAt() <= t && before(t, p.getRunningAt()) && before(t, p.getStoppedAt());
  }

  private static boolean holdingAt(WorkloadMember p, long t) {
    return p.getRunningAt() != null && p.getRunningAt() <= t && before(t, p.getStoppedAt());
  }

  /** Whether t is before an end that may be unknown (null: not yet). */
  private static boolean before(long t, Long end) {
    return end == null || t < end;
  }

  private static void addIfBefore(TreeSet<Long> times, Long t, long now) {
    if (t != null && t <= now) {
      times.add(t);
    }
  }
}
