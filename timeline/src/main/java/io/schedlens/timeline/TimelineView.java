package io.schedlens.timeline;

import com.datadoghq.sketch.ddsketch.DDSketch;
import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueEviction;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.base.DisruptionCause;
import io.schedlens.base.KueueNames;
import io.schedlens.base.Outcome;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;

/**
 * Derives the published {@link PodTimeline} from a pod's state, with every number of docs/design.md
 * section 4. Pure. A duration is null, never 0, when one of its ends is unknown.
 */
public final class TimelineView {

  public static final String SUCCEEDED = Outcome.SUCCEEDED.wire();
  public static final String FAILED = Outcome.FAILED.wire();
  public static final String PREEMPTED = Outcome.PREEMPTED.wire();
  public static final String EVICTED = Outcome.EVICTED.wire();
  public static final String DELETED = Outcome.DELETED.wire();
  public static final String RUNNING = Outcome.RUNNING.wire();
  public static final String PENDING = Outcome.PENDING.wire();

  private final TimelineSettings settings;

  public TimelineView(TimelineSettings settings) {
    this.settings = settings;
  }

  /** What the pod's state says now, read once for all that acts on a change. */
  public static PodMoments moments(TimelineState s) {
    String outcome = outcome(s);
    Long scheduledAt = scheduledAt(s);
    Long terminatedAt = terminatedAt(s);
    Long preemptedAt = new PodState(s).preemptedAt();
    String workloadKey = OwningWorkload.keyOf(s);
    return new PodMoments(scheduledAt, terminatedAt, outcome, preemptedAt, workloadKey);
  }

  /**
   * When the pod was scheduled: the Scheduled event (microseconds) or the PodScheduled condition.
   */
  public static Long scheduledAt(TimelineState s) {
    return s.getLifecycle().getScheduledEventAt() != null
        ? s.getLifecycle().getScheduledEventAt()
        : s.getLifecycle().getScheduledConditionAt();
  }

  /**
   * When the pod stopped: its containers' last finish once it is terminal or gone; for a pod gone
   * without that, the deletion request if it never ran, else the earlier of the deletion deadline
   * and when the deletion was seen.
   */
  public static Long terminatedAt(TimelineState s) {
    if (s.getLifecycle().getFinishedAt() != null
        && (s.getLifecycle().getTerminalPhase() != null || s.getLifecycle().getGone())) {
      return s.getLifecycle().getFinishedAt();
    }
    if (!s.getLifecycle().getGone()) {
      return null;
    }
    if (s.getLifecycle().getRunningAt() == null
        && s.getLifecycle().getDeletionRequestedAt() != null) {
      return s.getLifecycle().getDeletionRequestedAt();
    }
    return PodState.min(
        s.getLifecycle().getDeletionDeadline(), s.getLifecycle().getDeletedObservedAt());
  }

  /** The outcome: how the pod ended, or where it is. */
  public static String outcome(TimelineState s) {
    // Since Kubernetes 1.27 the kubelet gives a deleted pod a terminal phase from its containers'
    // exit codes: an inference server that exits 0 on SIGTERM ends Succeeded. Succeeded is the
    // outcome only when the pod finished before anyone asked it to stop; a preempted pod is
    // Preempted whatever its exit code, a scaled-down one Deleted.
    if (SUCCEEDED.equals(s.getLifecycle().getTerminalPhase()) && finishedOnItsOwn(s)) {
      return SUCCEEDED;
    }
    DisruptionCause cause = cause(s);
    if (cause == DisruptionCause.PREEMPTION || cause == DisruptionCause.QUEUE_PREEMPTION) {
      return PREEMPTED;
    }
    if (cause != null && cause != DisruptionCause.DELETION && cause != DisruptionCause.ROLLOUT) {
      return EVICTED;
    }
    if (FAILED.equals(s.getLifecycle().getTerminalPhase()) && finishedOnItsOwn(s)) {
      return FAILED;
    }
    if (s.getLifecycle().getGone() || s.getLifecycle().getTerminalPhase() != null) {
      // Stopped because it was deleted (SIGTERM's exit code says nothing more).
      return DELETED;
    }
    if (s.getLifecycle().getRunningAt() != null || "Running".equals(s.getLatest().getPhase())) {
      return RUNNING;
    }
    return PENDING;
  }

  /**
   * What ended the pod, from all the evidence: its own (conditions, status, events) and a rollout
   * the workload stage found; the one that decides by {@link DisruptionCause#decidesOver}.
   */
  static DisruptionCause cause(TimelineState s) {
    DisruptionCause cause = DisruptionCause.ofNullable(s.getDisruption().getDisruptionCause());
    Long at = s.getDisruption().getDisruptionAt();
    Long rolled = s.getDisruption().getRolledOutAt();
    if (rolled != null
        && (cause == null || DisruptionCause.ROLLOUT.decidesOver(rolled, cause, at))) {
      cause = DisruptionCause.ROLLOUT;
      at = rolled;
    }
    QueueEviction queue = queueEviction(s);
    if (queue != null) {
      DisruptionCause byQueue = QueueAdmissions.causeOf(queue);
      if (cause == null || byQueue.decidesOver(queue.getAt(), cause, at)) {
        cause = byQueue;
      }
    }
    return cause;
  }

  /** The Kueue eviction that found the pod running, as its workload stage told; or null. */
  static QueueEviction queueEviction(TimelineState s) {
    return QueueAdmissions.ofRunningPod(
        s.getWorkload().getQueueEvictions(), s.getLifecycle().getRunningAt(), terminatedAt(s));
  }

  /** The Kueue admission that let the pod exist or run, as its workload stage told; or null. */
  static QueueAdmission queueAdmission(TimelineState s) {
    Long created = s.getLifecycle().getCreatedAt();
    return created == null
        ? null
        : QueueAdmissions.ofPod(
            s.getWorkload().getQueueAdmissions(), created, s.getLifecycle().getGatedAt() != null);
  }

  /**
   * The part of Pending the pod spent behind scheduling gates: from its gated condition to the
   * condition that replaced it, or to its end when it never left its gates; null for a pod never
   * seen gated.
   */
  static Long gatedMs(TimelineState s, Long terminated) {
    Long gated = s.getLifecycle().getGatedAt();
    if (gated == null) {
      return null;
    }
    Long ungated = s.getLifecycle().getUngatedAt();
    Long end = ungated != null && ungated >= gated ? ungated : terminated;
    return diff(gated, end);
  }

  private static boolean finishedOnItsOwn(TimelineState s) {
    return s.getLifecycle().getDeletionRequestedAt() == null
        || (s.getLifecycle().getFinishedAt() != null
            && s.getLifecycle().getFinishedAt() < s.getLifecycle().getDeletionRequestedAt());
  }

  /** What ended the pod early, or null when it completed, failed on its own, or lives. */
  public static Disruption disruption(TimelineState s) {
    return disruption(s, cause(s));
  }

  /**
   * What the pod's own evidence says ended it, leaving out what the workload stage inferred (a
   * rollout): the facts a pod tells its workload must not depend on what the workload told it.
   */
  public static Disruption ownDisruption(TimelineState s) {
    return disruption(s, DisruptionCause.ofNullable(s.getDisruption().getDisruptionCause()));
  }

  private static Disruption disruption(TimelineState s, DisruptionCause cause) {
    String outcome = outcome(s);
    if (outcome.equals(SUCCEEDED) || outcome.equals(RUNNING) || outcome.equals(PENDING)) {
      return null;
    }
    if (outcome.equals(FAILED) && cause == null) {
      return null;
    }
    if (cause == DisruptionCause.QUEUE_PREEMPTION || cause == DisruptionCause.QUEUE_EVICTION) {
      QueueEviction e = queueEviction(s);
      if (e != null) {
        return new Disruption(cause.wire(), e.getAt(), QueueAdmissions.byOf(e));
      }
    }
    if (cause == DisruptionCause.ROLLOUT && s.getDisruption().getRolledOutAt() != null) {
      return new Disruption(
          cause.wire(), s.getDisruption().getRolledOutAt(), "deployment-controller");
    }
    if (cause != null) {
      String by = s.getDisruption().getDisruptionBy();
      if (cause == DisruptionCause.PREEMPTION
          && s.getDisruption().getPreemptor() != null
          && s.getDisruption().getPreemptor().getName() != null) {
        by =
            s.getDisruption().getPreemptor().getNamespace()
                + "/"
                + s.getDisruption().getPreemptor().getName();
      }
      return new Disruption(cause.wire(), s.getDisruption().getDisruptionAt(), by);
    }
    return new Disruption(
        DisruptionCause.DELETION.wire(),
        s.getLifecycle().getDeletionRequestedAt() != null
            ? s.getLifecycle().getDeletionRequestedAt()
            : terminatedAt(s),
        null);
  }

  /**
   * Pods of the pod's workload preempted by {@code until} (the pod's end, or now for a live pod):
   * what happened to its workload after a pod ended is not that pod's story. Compared at
   * Kubernetes' one-second granularity: a pod's end is often a whole second (its deletion or
   * container times), its own preemption event's time a precise one within that second.
   */
  static int workloadPreemptions(TimelineState s, long until) {
    int n = 0;
    for (long at : s.getWorkload().getWorkloadPreemptedAt()) {
      if (Math.floorDiv(at, 1000L) * 1000L <= until) {
        n++;
      }
    }
    // Kueue preempts a workload, not a pod: each of its preemptions counts once.
    return n + QueueAdmissions.preemptionsBy(s.getWorkload().getQueueEvictions(), until);
  }

  /** The pod's workload was preempted too often without completing, by {@code until}. */
  boolean workloadStarving(TimelineState s, long until) {
    Long completed = s.getWorkload().getWorkloadCompletedAt();
    return workloadPreemptions(s, until) >= settings.starvationPreemptions()
        && (completed == null || completed > until);
  }

  /** Workloads whose pods can finish their work (a Job); wasted work applies to these. */
  static boolean canComplete(WorkloadRef w) {
    return w == null || w.getKind().equals("Job") || w.getKind().equals("Pod");
  }

  /**
   * The timeline as of {@code now} (event time): for a pod still allocated, allocation runs to
   * {@code now}.
   */
  public PodTimeline view(TimelineState s, long now, boolean isFinal) {
    WorkloadRef workload = OwningWorkload.of(s.getIdentity());
    Long created = s.getLifecycle().getCreatedAt();
    Long scheduled = scheduledAt(s);
    Long running = s.getLifecycle().getRunningAt();
    Long ready = s.getLifecycle().getReadyAt();
    Long terminated = terminatedAt(s);
    Long firstOk = firstOkAfter(s, ready);
    boolean neverScheduled = scheduled == null && s.getLifecycle().getGone();
    Long pendingMs = diff(created, scheduled);
    if (neverScheduled) {
      pendingMs = diff(created, terminated);
    }
    String outcome = outcome(s);
    Disruption disruption = disruption(s);

    GpuEquivalents.Seconds gpu =
        GpuEquivalents.seconds(s, canComplete(workload), running, terminated, disruption, now);
    DDSketch sketch = LatencySketch.decodeForRead(s.getServing().getLatencySketch());
    boolean pendingTooLong = pendingTooLong(s, pendingMs, created, scheduled, now, isFinal);
    long until = terminated != null ? terminated : Long.MAX_VALUE;

    PodTimeline t =
        PodTimeline.newBuilder()
            .setUid(s.getUid())
            .setNamespace(s.getIdentity().getNamespace())
            .setName(s.getIdentity().getName())
            .setNode(s.getLatest().getNode())
            .setPriorityClass(s.getIdentity().getPriorityClass())
            .setPriority(s.getIdentity().getPriority())
            .setWorkload(workload)
            .setExperiment(s.getIdentity().getLabels().get(settings.experimentKey()))
            .setArm(s.getIdentity().getLabels().get(settings.armKey()))
            .setApplication(application(s, workload))
            .setRepeat(s.getIdentity().getLabels().get(settings.repeatKey()))
            .setCreatedAt(created)
            .setScheduledAt(scheduled)
            .setRunningAt(running)
            .setReadyAt(ready)
            .setFirstOkRequestAt(firstOk)
            .setTerminatedAt(terminated)
            .setPendingMs(pendingMs)
            .setNeverScheduled(neverScheduled)
            .setStartupMs(diff(scheduled, running))
            .setModelLoadMs(diff(running, ready))
            .setTimeToReadyMs(diff(created, ready))
            .setTimeToFirstOkMs(diff(created, firstOk))
            .setFailedSchedulingCount(sum(s.getScheduling().getFailedScheduling()))
            .setPendingReasons(new TreeMap<>(s.getScheduling().getPendingReasons()))
            .setPreemptionAttempted(s.getScheduling().getPreemptionAttempted())
            .setNominatedNode(s.getLatest().getNominatedNode())
            .setPreemptedAt(preemptedAt(s, disruption))
            .setPreemptor(s.getDisruption().getPreemptor())
            .setVictims(new ArrayList<>(s.getDisruption().getVictims()))
            .setGpus(s.getIdentity().getGpus())
            .setAllocatedGpuSeconds(gpu.allocated())
            .setBusyGpuSeconds(gpu.busy())
            .setIdleAllocatedGpuSeconds(gpu.idle())
            .setUnsampledGpuSeconds(gpu.unsampled())
            .setWastedGpuSeconds(gpu.wasted())
            .setWastedBusyGpuSeconds(gpu.wastedBusy())
            .setRequests(s.getServing().getRequests())
            .setErrors(s.getServing().getErrors())
            .setSloBreaches(s.getServing().getSloBreaches())
            .setLatencyP50Ms(LatencySketch.quantile(sketch, 0.50))
            .setLatencyP95Ms(LatencySketch.quantile(sketch, 0.95))
            .setLatencyP99Ms(LatencySketch.quantile(sketch, 0.99))
            .setRestarts(sum(s.getLifecycle().getRestarts()))
            .setOutcome(outcome)
            .setDisruption(disruption)
            .setPreemptionsOfWorkload(workloadPreemptions(s, until))
            .setStarving(pendingTooLong || workloadStarving(s, until))
            .setUpdatedAt(s.getUpdatedAt())
            .setFinal$(isFinal)
            .setSeries(s.getSeries())
            .build();
    queued(t, s, terminated);
    GpuEquivalents.describe(t, s, gpu.share());
    return t;
  }

  /** The queue's fields: the pod's LocalQueue and the Kueue admission that let it exist or run. */
  private static void queued(PodTimeline t, TimelineState s, Long terminated) {
    QueueAdmission admission = queueAdmission(s);
    String label = s.getIdentity().getLabels().get(KueueNames.QUEUE_LABEL);
    t.setQueue(label != null ? label : admission == null ? null : admission.getQueue());
    t.setAdmittedAt(admission == null ? null : admission.getAdmittedAt());
    t.setQueueWaitMs(admission == null ? null : admission.getQueueWaitMs());
    t.setGatedMs(gatedMs(s, terminated));
  }

  private static int sum(Map<String, Integer> counts) {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** The pod's own preemption; else, for a pod Kueue preempted, the eviction's time. */
  private static Long preemptedAt(TimelineState s, Disruption disruption) {
    Long own = new PodState(s).preemptedAt();
    if (own == null
        && disruption != null
        && DisruptionCause.QUEUE_PREEMPTION.wire().equals(disruption.getCause())) {
      return disruption.getAt();
    }
    return own;
  }

  /** The first successful request at or after Ready, or null. */
  private static Long firstOkAfter(TimelineState s, Long ready) {
    if (ready != null) {
      for (Long t : s.getServing().getOkTimes()) {
        if (t >= ready) {
          return t;
        }
      }
    }
    return null;
  }

  /**
   * Starving by its wait: waited (or has been waiting) longer than the threshold to be scheduled.
   * The live flag is set when the pods stream passed the threshold with the pod unscheduled; a
   * final timeline knows the exact pending time and needs no flag.
   */
  private boolean pendingTooLong(
      TimelineState s, Long pendingMs, Long created, Long scheduled, long now, boolean isFinal) {
    long pendingFor =
        pendingMs != null ? pendingMs : (created != null && scheduled == null ? now - created : 0);
    return pendingFor > settings.starvationPending().toMillis()
        || (!isFinal && s.getScheduling().getStarvingFlagged());
  }

  /** The preemption record of a victim, from its state and view. */
  public static Preemption preemption(TimelineState s, PodTimeline t) {
    PodRef victim =
        PodRef.newBuilder()
            .setUid(t.getUid())
            .setNamespace(t.getNamespace())
            .setName(t.getName())
            .setPriorityClass(t.getPriorityClass())
            .setPriority(t.getPriority())
            .build();
    return Preemption.newBuilder()
        .setVictim(victim)
        .setPreemptor(t.getPreemptor())
        .setNode(t.getNode())
        .setAt(t.getPreemptedAt())
        .setSource(
            s.getDisruption().getPreemptedEventAt() != null
                ? "event"
                : new PodState(s).preemptedAt() != null ? "condition" : "kueue")
        .setVictimWorkload(t.getWorkload())
        .setVictimGpus(t.getGpus())
        .setWastedGpuSeconds(t.getWastedGpuSeconds())
        .setWastedBusyGpuSeconds(t.getWastedBusyGpuSeconds())
        .build();
  }

  static Long diff(Long from, Long to) {
    return from == null || to == null ? null : to - from;
  }

  /** The pod's application: its first application label, else its workload's name. */
  private String application(TimelineState s, WorkloadRef workload) {
    return settings.applicationOf(
        s.getIdentity().getLabels(), workload == null ? null : workload.getName());
  }
}
