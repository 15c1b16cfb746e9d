package io.schedlens.timeline;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.DesiredStep;
import io.schedlens.avro.internal.SecondCount;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.schemas.TemplateHashNames;
import io.schedlens.schemas.WorkloadKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A workload as its users feel it, computed from its pods' facts (and, when the collector watches
 * the workload object, its desired replicas): wanted vs Ready replicas over time, service
 * interruptions, degraded intervals, and the recovery from every disruption. Pure: the same inputs
 * give the same timeline, in whatever order they arrived.
 *
 * <p>What the numbers mean:
 *
 * <ul>
 *   <li>A pod is Ready from its first Ready=True until it stops taking traffic: the earliest of its
 *       disruption, its deletion request (a terminating pod leaves the Service's endpoints), a
 *       later Ready=False (a node gone unreachable: the node controller marks its pods NotReady
 *       long before the taint manager evicts them) and its containers' end. A pod Ready again is
 *       Ready again; the spell it was not is then no longer shown.
 *   <li>Wanted (desired) replicas are the workload object's when observed; otherwise inferred: a
 *       pod is wanted from its creation until its deletion is asked for (a scale-down, a completed
 *       Job), and a pod ended early by a disruption stays wanted until its controller creates the
 *       replacement (a bare pod has none: it stops being wanted).
 *   <li>A service interruption is an interval with no Ready replica while one is wanted, and a
 *       degraded interval one with some but fewer Ready replicas than wanted (the two are
 *       disjoint). Both begin only when a Ready replica is lost (a cold start or a scale-up is on
 *       the pods' time to Ready, not an interruption) and end when the workload is back to the
 *       Ready count it had before the loss, or to what it wants now if that is less; an
 *       interruption partly recovered goes on as a degraded interval.
 *   <li>A recovery follows each pod ended early (every cause but a plain deletion): its replacement
 *       (the first pod created at or after the disruption; for a rollout, the first newer pod of
 *       the new ReplicaSet, which may come first), and the times from the disruption to the
 *       replacement's scheduling, Ready and first OK request.
 * </ul>
 */
public final class WorkloadContinuity {

  public static final int MAX_SERIES = 500;
  public static final int MAX_PODS = 200;

  /** The controller reacts to a disruption it saw; creation times have second granularity. */
  static final long REPLACEMENT_SLACK_MS = 1000;

  /** How much earlier than the workload object's scale-down its pod's deletion may appear. */
  static final long SCALE_DOWN_SLACK_MS = 2000;

  public static final String OBSERVED = "observed";
  public static final String INFERRED = "inferred";
  public static final String NOT_READY = "not-ready";

  private WorkloadContinuity() {}

  /** The workload's timeline as of {@code now} (event time). */
  public static WorkloadTimeline view(
      WorkloadKey id,
      List<WorkloadMember> pods,
      List<DesiredStep> desiredSteps,
      List<SecondCount> errorSeconds,
      List<SecondCount> breachSeconds,
      long now) {
    List<WorkloadMember> byCreation = withRollouts(pods);
    byCreation.sort(
        Comparator.comparing(
                (WorkloadMember p) -> p.getCreatedAt() == null ? Long.MAX_VALUE : p.getCreatedAt())
            .thenComparing(WorkloadMember::getUid));
    Map<String, WorkloadMember> replacements = replacements(byCreation);
    List<DesiredStep> steps = new ArrayList<>(desiredSteps);
    steps.sort(Comparator.comparingLong(DesiredStep::getAt));
    Wanted wanted = new Wanted(id, byCreation, replacements, steps);

    TreeSet<Long> times = new TreeSet<>();
    for (WorkloadMember p : byCreation) {
      add(times, p.getCreatedAt(), now);
      add(times, p.getReadyAt(), now);
      add(times, readyEnd(p), now);
      add(times, p.getStoppedAt(), now);
      WorkloadMember r = replacements.get(p.getUid());
      if (r != null) {
        add(times, r.getCreatedAt(), now);
      }
    }
    for (DesiredStep s : steps) {
      add(times, s.getAt(), now);
    }

    ServiceSweep sweep = ServiceSweep.over(times, wanted::at, byCreation);
    List<ReplicaPoint> series = sweep.series;
    List<ServiceInterval> interruptions = sweep.interruptions;
    List<ServiceInterval> degraded = sweep.degraded;
    for (List<ServiceInterval> intervals : List.of(interruptions, degraded)) {
      for (ServiceInterval i : intervals) {
        long end = i.getEnd() == null ? now : i.getEnd();
        i.setErrors(countWithin(errorSeconds, i.getStart(), end));
        i.setSloBreaches(countWithin(breachSeconds, i.getStart(), end));
      }
    }

    WorkloadMember latest = byCreation.isEmpty() ? null : byCreation.get(byCreation.size() - 1);
    WorkloadTimeline.Builder b =
        WorkloadTimeline.newBuilder()
            .setNamespace(id.namespace())
            .setKind(id.kind())
            .setName(id.name())
            .setControllerUid(id.controllerUid())
            .setPriorityClass(latest == null ? null : latest.getPriorityClass())
            .setExperiment(latest == null ? null : latest.getExperiment())
            .setArm(latest == null ? null : latest.getArm())
            .setRepeat(latest == null ? null : latest.getRepeat())
            .setApplication(latest == null ? null : latest.getApplication())
            .setDesiredSource(steps.isEmpty() ? INFERRED : OBSERVED)
            .setDesired(wanted.at(now))
            .setReady(ready(byCreation, now))
            .setSeries(
                series.size() > MAX_SERIES
                    ? new ArrayList<>(series.subList(series.size() - MAX_SERIES, series.size()))
                    : series)
            .setInterruptions(interruptions)
            .setDegraded(degraded)
            .setInterruptionMs(total(interruptions, now))
            .setDegradedMs(total(degraded, now))
            .setRecoveries(recoveries(byCreation, replacements))
            .setPods(byCreation.size())
            .setUpdatedAt(now);
    GangStart.Figures gang = GangStart.of(id.kind(), byCreation, now);
    b.setGangRunningAt(gang.runningAt()).setGangWaitGpuSeconds(gang.waitGpuSeconds());
    return totals(b, byCreation);
  }

  /** The workload's counters: its pods' summed, its disruptions counted by kind. */
  private static WorkloadTimeline totals(
      WorkloadTimeline.Builder b, List<WorkloadMember> byCreation) {
    int restarts = 0;
    int preemptions = 0;
    int evictions = 0;
    long requests = 0;
    long errors = 0;
    long breaches = 0;
    for (WorkloadMember p : byCreation) {
      restarts += p.getRestarts();
      requests += p.getRequests();
      errors += p.getErrors();
      breaches += p.getSloBreaches();
      if (Disruptions.PREEMPTION.equals(p.getDisruptionCause())) {
        preemptions++;
      } else if (endedEarly(p) && !Disruptions.ROLLOUT.equals(p.getDisruptionCause())) {
        evictions++;
      }
    }
    return b.setRestarts(restarts)
        .setPreemptions(preemptions)
        .setEvictions(evictions)
        .setRequests(requests)
        .setErrors(errors)
        .setSloBreaches(breaches)
        .build();
  }

  /**
   * What the workload needs of a pod, from its timeline and its state (the deletion request, which
   * the timeline shows only once the pod is gone; a later loss of Ready; its ReplicaSet's hash).
   * The disruption is the pod's own evidence only: a rollout is what the workload stage infers from
   * these facts, so telling it back would make the facts depend on the answer.
   */
  public static WorkloadMember memberOf(PodTimeline t, TimelineState s) {
    Disruption own = TimelineView.ownDisruption(s);
    Long deletionRequestedAt = s.getLifecycle().getDeletionRequestedAt();
    // A pod that finished on its own (a Job's, then deleted by its TTL) stopped being wanted when
    // it finished; a deleted one when its deletion was asked for.
    Long stopped = PodState.min(deletionRequestedAt, t.getTerminatedAt());
    Long lost =
        s.getLatest().getReadyLostAt() != null
                && t.getReadyAt() != null
                && s.getLatest().getReadyLostAt() > t.getReadyAt()
            ? s.getLatest().getReadyLostAt()
            : null;
    Long readyEnd =
        t.getReadyAt() == null
            ? null
            : PodState.min(stopped, PodState.min(lost, own == null ? null : own.getAt()));
    return WorkloadMember.newBuilder()
        .setUid(t.getUid())
        .setName(t.getName())
        .setCreatedAt(t.getCreatedAt())
        .setScheduledAt(t.getScheduledAt())
        .setReadyAt(t.getReadyAt())
        .setReadyEndAt(readyEnd)
        .setStoppedAt(stopped)
        .setFirstOkAt(t.getFirstOkRequestAt())
        .setOutcome(t.getOutcome())
        .setDisruptionCause(own == null ? null : own.getCause())
        .setDisruptionAt(own == null ? null : own.getAt())
        .setRestarts(t.getRestarts())
        .setRequests(t.getRequests())
        .setErrors(t.getErrors())
        .setSloBreaches(t.getSloBreaches())
        .setPriorityClass(t.getPriorityClass())
        .setExperiment(t.getExperiment())
        .setArm(t.getArm())
        .setRepeat(t.getRepeat())
        .setApplication(t.getApplication())
        .setTemplateHash(TemplateHashNames.hashOf(s.getIdentity().getLabels()))
        .setFinal$(t.getFinal$())
        .setRunningAt(t.getRunningAt())
        .setGpus(t.getGpus())
        .setGpuShare(t.getGpuShare() == null ? 1.0 : t.getGpuShare())
        .setGang(GangStart.groupOf(s.getIdentity().getLabels()))
        .build();
  }

  /**
   * The pods a rollout deleted, with when: a Deployment's pod deleted (no other cause) while a pod
   * of another ReplicaSet (another pod-template-hash) had been created after it, up to the deletion
   * (a rollout with maxSurge creates the new pod first; one with maxUnavailable deletes the old pod
   * first, and its ReplicaSet creates the new one at once). Kubernetes marks such a pod with
   * nothing of its own: the ReplicaSet's SuccessfulDelete event regards the ReplicaSet.
   */
  public static Map<String, Long> rolledOut(List<WorkloadMember> pods) {
    Map<String, Long> out = new HashMap<>();
    // The candidate replacements (a template hash and a creation time), by creation time; asked
    // for each deleted pod by binary search, so a workload's members cost n log n, not n^2 (every
    // pod fact of a Deployment asks: 15 % of the stream thread in StreamsLoad's sparse shape).
    List<WorkloadMember> created = new ArrayList<>(pods.size());
    for (WorkloadMember q : pods) {
      if (q.getTemplateHash() != null && q.getCreatedAt() != null) {
        created.add(q);
      }
    }
    if (created.size() < 2) {
      return out;
    }
    created.sort(Comparator.comparingLong(WorkloadMember::getCreatedAt));
    int n = created.size();
    long[] at = new long[n];
    // nextOther[i]: the first index after i whose hash differs from i's (n when none)
    int[] nextOther = new int[n];
    for (int i = n - 1; i >= 0; i--) {
      at[i] = created.get(i).getCreatedAt();
      nextOther[i] =
          i == n - 1
              ? n
              : created.get(i + 1).getTemplateHash().equals(created.get(i).getTemplateHash())
                  ? nextOther[i + 1]
                  : i + 1;
    }
    for (WorkloadMember p : pods) {
      boolean plainDeletion =
          p.getDisruptionCause() == null || Disruptions.DELETION.equals(p.getDisruptionCause());
      if (!plainDeletion
          || p.getTemplateHash() == null
          || p.getStoppedAt() == null
          || p.getCreatedAt() == null
          || "Succeeded".equals(p.getOutcome())) {
        continue;
      }
      // [from, to): the pods created after p, up to its deletion (and the slack)
      int from = firstAfter(at, p.getCreatedAt());
      int to = firstAfter(at, p.getStoppedAt() + REPLACEMENT_SLACK_MS);
      if (from >= to) {
        continue;
      }
      int other =
          created.get(from).getTemplateHash().equals(p.getTemplateHash()) ? nextOther[from] : from;
      if (other < to) {
        out.put(p.getUid(), p.getStoppedAt());
      }
    }
    return out;
  }

  /**
   * The first index of the sorted {@code times} holding a time after {@code t}. Written here:
   * {@code Arrays.binarySearch} finds one of several equal times, not the first after them.
   */
  private static int firstAfter(long[] times, long t) {
    int lo = 0;
    int hi = times.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (times[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static List<WorkloadMember> withRollouts(List<WorkloadMember> pods) {
    Map<String, Long> rolled = rolledOut(pods);
    List<WorkloadMember> out = new ArrayList<>(pods.size());
    for (WorkloadMember p : pods) {
      Long at = rolled.get(p.getUid());
      out.add(
          at == null
              ? p
              : WorkloadMember.newBuilder(p)
                  .setDisruptionCause(Disruptions.ROLLOUT)
                  .setDisruptionAt(at)
                  .build());
    }
    return out;
  }

  /** The latest time any fact of the pod happened at; 0 when none. */
  public static long latestFact(WorkloadMember p) {
    long t = 0;
    for (Long x :
        new Long[] {
          p.getCreatedAt(),
          p.getScheduledAt(),
          p.getReadyAt(),
          p.getReadyEndAt(),
          p.getStoppedAt(),
          p.getFirstOkAt(),
          p.getDisruptionAt(),
          p.getRunningAt()
        }) {
      if (x != null) {
        t = Math.max(t, x);
      }
    }
    return t;
  }

  /** Closed interval time, for counters that must only grow. */
  public static long closedMs(List<ServiceInterval> intervals) {
    long sum = 0;
    for (ServiceInterval i : intervals) {
      if (i.getDurationMs() != null) {
        sum += i.getDurationMs();
      }
    }
    return sum;
  }

  /** When the pod stopped taking traffic, or null while it is Ready (or never was). */
  static Long readyEnd(WorkloadMember p) {
    if (p.getReadyAt() == null) {
      return null;
    }
    Long end = PodState.min(p.getReadyEndAt(), p.getDisruptionAt());
    return end == null ? null : Math.max(end, p.getReadyAt());
  }

  /** Ended by a disruption other than a plain deletion: a controller replaces it. */
  static boolean endedEarly(WorkloadMember p) {
    return p.getDisruptionCause() != null && !Disruptions.DELETION.equals(p.getDisruptionCause());
  }

  private static long disruptedAt(WorkloadMember p) {
    Long at = p.getDisruptionAt();
    if (at == null) {
      at = readyEnd(p);
    }
    if (at == null) {
      at = p.getStoppedAt();
    }
    return at == null ? Long.MAX_VALUE : at;
  }

  /** Each pod ended early to the first pod created in its place (at most one each). */
  private static Map<String, WorkloadMember> replacements(List<WorkloadMember> byCreation) {
    List<WorkloadMember> disrupted = new ArrayList<>();
    for (WorkloadMember p : byCreation) {
      if (endedEarly(p)) {
        disrupted.add(p);
      }
    }
    disrupted.sort(
        Comparator.comparingLong(WorkloadContinuity::disruptedAt)
            .thenComparing(WorkloadMember::getUid));
    Map<String, WorkloadMember> out = new HashMap<>();
    Set<String> taken = new HashSet<>();
    for (WorkloadMember d : disrupted) {
      long at = disruptedAt(d);
      // A rollout's new pod may come first (maxSurge): any newer pod of the new ReplicaSet.
      boolean rollout = Disruptions.ROLLOUT.equals(d.getDisruptionCause());
      for (WorkloadMember r : byCreation) {
        if (r.getUid().equals(d.getUid())
            || taken.contains(r.getUid())
            || r.getCreatedAt() == null
            || d.getCreatedAt() != null && r.getCreatedAt() < d.getCreatedAt()
            || (rollout
                ? Objects.equals(r.getTemplateHash(), d.getTemplateHash())
                : r.getCreatedAt() < at - REPLACEMENT_SLACK_MS)) {
          continue;
        }
        out.put(d.getUid(), r);
        taken.add(r.getUid());
        break;
      }
    }
    return out;
  }

  private static List<Recovery> recoveries(
      List<WorkloadMember> byCreation, Map<String, WorkloadMember> replacements) {
    List<Recovery> out = new ArrayList<>();
    for (WorkloadMember d : byCreation) {
      if (!endedEarly(d)) {
        continue;
      }
      long at = disruptedAt(d);
      if (at == Long.MAX_VALUE) {
        continue;
      }
      WorkloadMember r = replacements.get(d.getUid());
      Recovery.Builder b =
          Recovery.newBuilder()
              .setPod(d.getUid())
              .setCause(d.getDisruptionCause())
              .setAt(at)
              .setArm(d.getArm())
              .setRepeat(d.getRepeat());
      if (r != null) {
        b.setReplacement(r.getUid())
            .setScheduledAt(r.getScheduledAt())
            .setReadyAt(r.getReadyAt())
            .setFirstOkAt(r.getFirstOkAt())
            .setToScheduledMs(since(at, r.getScheduledAt()))
            .setToReadyMs(since(at, r.getReadyAt()))
            .setToFirstOkMs(since(at, r.getFirstOkAt()));
      }
      out.add(b.build());
    }
    out.sort(Comparator.comparingLong(Recovery::getAt).thenComparing(Recovery::getPod));
    return out;
  }

  private static Long since(long at, Long to) {
    return to == null ? null : Math.max(0, to - at);
  }

  /** Wanted replicas at a time: observed steps, or inferred from the pods before the first. */
  private record Wanted(
      WorkloadKey id,
      List<WorkloadMember> pods,
      Map<String, WorkloadMember> replacements,
      List<DesiredStep> steps) {

    int at(long t) {
      DesiredStep step = null;
      for (DesiredStep s : steps) {
        if (s.getAt() <= t) {
          step = s;
        }
      }
      if (step != null) {
        return step.getDesired();
      }
      int n = 0;
      for (WorkloadMember p : pods) {
        if (p.getCreatedAt() != null && p.getCreatedAt() <= t && t < wantedUntil(p)) {
          n++;
        }
      }
      return n;
    }

    private long wantedUntil(WorkloadMember p) {
      long stopped = p.getStoppedAt() == null ? Long.MAX_VALUE : p.getStoppedAt();
      if (!endedEarly(p) || id.kind().equals("Pod")) {
        return stopped;
      }
      WorkloadMember r = replacements.get(p.getUid());
      if (r == null) {
        return Long.MAX_VALUE; // its controller owes a replacement
      }
      return Math.max(Math.min(stopped, disruptedAt(p)), r.getCreatedAt());
    }
  }

  static int ready(List<WorkloadMember> pods, long t) {
    int n = 0;
    for (WorkloadMember p : pods) {
      Long end = readyEnd(p);
      if (p.getReadyAt() != null && p.getReadyAt() <= t && (end == null || t < end)) {
        n++;
      }
    }
    return n;
  }

  private static long total(List<ServiceInterval> intervals, long now) {
    long sum = 0;
    for (ServiceInterval i : intervals) {
      sum += (i.getEnd() == null ? Math.max(now, i.getStart()) : i.getEnd()) - i.getStart();
    }
    return sum;
  }

  /**
   * Requests counted in the seconds that begin within [from, to). Request errors and breaches are
   * kept per second; the intervals' ends are condition times, whole seconds too.
   */
  private static long countWithin(List<SecondCount> seconds, long from, long to) {
    long n = 0;
    for (SecondCount c : seconds) {
      if (c.getAt() >= from && c.getAt() < to) {
        n += c.getN();
      }
    }
    return n;
  }

  private static void add(TreeSet<Long> times, Long t, long now) {
    if (t != null && t <= now) {
      times.add(t);
    }
  }
}
