package io.schedlens.timeline;

import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueEviction;
import io.schedlens.avro.TopController;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.base.DisruptionCause;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A pod's state in the terms of its timeline: what the reducer records, by concern (identity, the
 * latest observation, lifecycle, scheduling, disruption, serving), each method with its merge rule,
 * so that the order of the evidence does not matter: first facts keep the earliest time, ends the
 * latest, counts the largest seen per source. Over the stored {@link TimelineState}, which it
 * changes in place; the stored schema is the state's, this is how it is spoken of.
 */
final class PodState {

  /** Successful-request times kept (the earliest): the first served request is among them. */
  static final int OK_TIMES_KEPT = 8;

  private final TimelineState s;

  PodState(TimelineState s) {
    this.s = s;
  }

  TimelineState stored() {
    return s;
  }

  String uid() {
    return s.getUid();
  }

  /** The latest event time any input told of. */
  void touched(long at) {
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), at));
  }

  // ---------------------------------------------------------------- identity and latest

  /** The pod was observed; true when this is its first observation. */
  boolean observed() {
    boolean first = !s.getSawPod();
    s.setSawPod(true);
    return first;
  }

  boolean sawPod() {
    return s.getSawPod();
  }

  String namespace() {
    return s.getIdentity().getNamespace();
  }

  String name() {
    return s.getIdentity().getName();
  }

  String priorityClass() {
    return s.getIdentity().getPriorityClass();
  }

  /** Namespace and name, which do not change over a pod's life. */
  void named(String namespace, String name) {
    s.getIdentity().setNamespace(namespace);
    s.getIdentity().setName(name);
  }

  /** The creation time, when the observation has one (it does not change over a pod's life). */
  void created(long createdAt) {
    if (createdAt > 0) {
      s.getLifecycle().setCreatedAt(createdAt);
    }
  }

  /**
   * Whether an observation of {@code version} (-1: not a number) seen at {@code observedAt} is the
   * latest so far; if so it becomes the latest.
   */
  boolean latest(long version, long observedAt) {
    var l = s.getLatest();
    boolean latest =
        version > l.getLatestVersion()
            || (version == l.getLatestVersion() && observedAt >= l.getLatestObservedAt())
            || (version < 0 && observedAt >= l.getLatestObservedAt());
    if (latest) {
      l.setLatestVersion(Math.max(version, l.getLatestVersion()));
      l.setLatestObservedAt(observedAt);
    }
    return latest;
  }

  /**
   * A pod's GPU request.
   *
   * @param count devices of {@code resource}
   * @param resource the extended resource, or null (from an older collector: nvidia.com/gpu)
   * @param shared whether the resource is a time-sliced or MPS replica
   * @param replicas replicas per GPU of the resource on the pod's node, or null
   * @param sharing the node's sharing strategy for the resource, or null
   * @param product the GPU model on the pod's node, or null
   */
  record Gpus(
      int count,
      String resource,
      boolean shared,
      Integer replicas,
      String sharing,
      String product) {}

  /** What the latest observation says the pod is: owner, priority, GPUs, labels, phase. */
  void describedAs(
      OwnerReference owner,
      String priorityClass,
      Integer priority,
      String preemptionPolicy,
      Gpus gpus,
      Map<String, String> labels,
      String phase,
      String statusReason) {
    var id = s.getIdentity();
    if (owner != null) {
      id.setOwnerKind(owner.getKind());
      id.setOwnerName(owner.getName());
      id.setOwnerUid(owner.getUid());
    }
    id.setPriorityClass(priorityClass);
    id.setPriority(priority);
    id.setPreemptionPolicy(preemptionPolicy);
    id.setGpus(gpus.count());
    id.setGpuResource(gpus.resource());
    id.setGpuShared(gpus.shared());
    // The node's labels, kept once told: an observation made while the collector's node cache
    // lacked the node (at its start, or after the node left) says nothing of them.
    if (gpus.replicas() != null) {
      id.setGpuReplicas(gpus.replicas());
    }
    if (gpus.sharing() != null) {
      id.setGpuSharing(gpus.sharing());
    }
    if (gpus.product() != null) {
      id.setGpuProduct(gpus.product());
    }
    id.setLabels(new HashMap<>(labels));
    s.getLatest().setPhase(phase);
    s.getLatest().setStatusReason(statusReason);
  }

  /**
   * The pod's top controller, as the collector resolved it, told with the pod's first observation
   * and kept for its life: the collector tells every observation of a pod the same one, and a pod
   * first observed without one (by a collector that did not resolve chains) keeps the workload its
   * owner gave it, so that its workload's facts never move to another key mid-life.
   */
  void workloadIs(TopController workload) {
    if (workload != null) {
      s.getIdentity().setWorkload(workload);
    }
  }

  /** The node the pod is bound to: the latest observation's, else the first one seen. */
  void boundTo(String node, boolean latest) {
    if (node != null && (latest || s.getLatest().getNode() == null)) {
      s.getLatest().setNode(node);
    }
  }

  /** The node the scheduler nominated for the pod (it preempts there). */
  void nominatedTo(String node, boolean latest) {
    if (latest || s.getLatest().getNominatedNode() == null) {
      s.getLatest().setNominatedNode(node);
    }
    preemptionAttempted();
  }

  /** The latest checkpoint the workload wrote. */
  void checkpointed(Long at) {
    s.getLatest().setCheckpointAt(max(s.getLatest().getCheckpointAt(), at));
  }

  // ---------------------------------------------------------------- lifecycle

  void scheduledByCondition(Long at) {
    s.getLifecycle().setScheduledConditionAt(min(s.getLifecycle().getScheduledConditionAt(), at));
  }

  /** The pod was held by scheduling gates from {@code at} (PodScheduled reason SchedulingGated). */
  void gated(Long at) {
    s.getLifecycle().setGatedAt(min(s.getLifecycle().getGatedAt(), at));
  }

  /** The PodScheduled condition moved on from its gates at {@code at}. */
  void ungated(Long at) {
    s.getLifecycle().setUngatedAt(min(s.getLifecycle().getUngatedAt(), at));
  }

  void scheduledByEvent(long at) {
    s.getLifecycle().setScheduledEventAt(min(s.getLifecycle().getScheduledEventAt(), at));
  }

  void running(Long at) {
    s.getLifecycle().setRunningAt(min(s.getLifecycle().getRunningAt(), at));
  }

  void ready(Long at) {
    s.getLifecycle().setReadyAt(min(s.getLifecycle().getReadyAt(), at));
  }

  /** Whether the pod is Ready now, by the latest observation: when it stopped being, if not. */
  void readyNow(boolean ready, Long transitionAt) {
    s.getLatest().setReadyLostAt(ready ? null : transitionAt);
  }

  /** A container's restarts, the largest count seen. */
  void restarted(String container, int count) {
    Map<String, Integer> restarts = new HashMap<>(s.getLifecycle().getRestarts());
    restarts.merge(container, count, Math::max);
    s.getLifecycle().setRestarts(restarts);
  }

  void terminalPhase(String phase) {
    s.getLifecycle().setTerminalPhase(phase);
  }

  void finished(Long at) {
    s.getLifecycle().setFinishedAt(max(s.getLifecycle().getFinishedAt(), at));
  }

  /** Deletion asked for: the deadline and when it was asked (the deadline less the grace). */
  void deletionRequested(long deadline, long requestedAt) {
    var l = s.getLifecycle();
    l.setDeletionDeadline(min(l.getDeletionDeadline(), deadline));
    l.setDeletionRequestedAt(min(l.getDeletionRequestedAt(), requestedAt));
  }

  /** The pod object is gone from the API (a DELETED observation at {@code observedAt}). */
  void gone(long observedAt) {
    s.getLifecycle().setGone(true);
    s.getLifecycle().setDeletedObservedAt(min(s.getLifecycle().getDeletedObservedAt(), observedAt));
  }

  boolean isGone() {
    return s.getLifecycle().getGone();
  }

  // ---------------------------------------------------------------- scheduling

  /** A FailedScheduling event, counted by its largest count seen. */
  void failedToSchedule(String eventUid, int occurrences) {
    Map<String, Integer> counts = new HashMap<>(s.getScheduling().getFailedScheduling());
    counts.merge(eventUid, occurrences, Math::max);
    s.getScheduling().setFailedScheduling(counts);
  }

  void preemptionAttempted() {
    s.getScheduling().setPreemptionAttempted(true);
  }

  /**
   * Why the pod is pending, as of {@code when}: the latest note says it; ties keep the larger map
   * (by its text), so the order of two notes of the same time does not matter.
   */
  void pendingBecause(Map<String, Integer> reasons, long when) {
    var sc = s.getScheduling();
    if (sc.getPendingReasonsAt() == null
        || when > sc.getPendingReasonsAt()
        || (when == sc.getPendingReasonsAt()
            && reasons.toString().compareTo(sc.getPendingReasons().toString()) > 0)) {
      sc.setPendingReasonsAt(when);
      sc.setPendingReasons(new HashMap<>(reasons));
    }
  }

  // ---------------------------------------------------------------- disruption

  void preemptedByEvent(long at) {
    s.getDisruption().setPreemptedEventAt(min(s.getDisruption().getPreemptedEventAt(), at));
  }

  void preemptedByCondition(Long at) {
    s.getDisruption().setPreemptedConditionAt(min(s.getDisruption().getPreemptedConditionAt(), at));
  }

  /** When the pod was preempted: the Preempted event (precise) or else the condition. */
  Long preemptedAt() {
    return s.getDisruption().getPreemptedEventAt() != null
        ? s.getDisruption().getPreemptedEventAt()
        : s.getDisruption().getPreemptedConditionAt();
  }

  /**
   * Evidence of what ended the pod: kept when it decides ({@link DisruptionCause#decidesOver}: the
   * earliest second, then the cause's precedence; of two reports of the same cause and second, the
   * one whose reporter sorts first), so the result does not depend on the order of the evidence.
   */
  void disrupted(DisruptionCause cause, Long at, String by) {
    if (at == null) {
      return;
    }
    var d = s.getDisruption();
    DisruptionCause current = DisruptionCause.ofNullable(d.getDisruptionCause());
    boolean decides = current == null || cause.decidesOver(at, current, d.getDisruptionAt());
    boolean sameNamedEarlier =
        cause == current
            && at.equals(d.getDisruptionAt())
            && by != null
            && (d.getDisruptionBy() == null || by.compareTo(d.getDisruptionBy()) < 0);
    if (decides || sameNamedEarlier) {
      d.setDisruptionCause(cause.wire());
      d.setDisruptionAt(at);
      d.setDisruptionBy(by);
    }
  }

  PodRef preemptor() {
    return s.getDisruption().getPreemptor();
  }

  int preemptorQuality() {
    return s.getDisruption().getPreemptorQuality();
  }

  /**
   * Who preempted the pod, from evidence of {@code quality}: better evidence fills in what it names
   * over what weaker evidence said; weaker or equal evidence changes nothing.
   */
  void preemptedBy(PodRef candidate, int quality) {
    var d = s.getDisruption();
    if (quality <= d.getPreemptorQuality()) {
      return;
    }
    PodRef merged = candidate;
    PodRef old = d.getPreemptor();
    if (old != null) {
      merged =
          PodRef.newBuilder()
              .setUid(candidate.getUid() != null ? candidate.getUid() : old.getUid())
              .setNamespace(
                  candidate.getNamespace() != null ? candidate.getNamespace() : old.getNamespace())
              .setName(candidate.getName() != null ? candidate.getName() : old.getName())
              .setPriorityClass(
                  candidate.getPriorityClass() != null
                      ? candidate.getPriorityClass()
                      : old.getPriorityClass())
              .setPriority(
                  candidate.getPriority() != null ? candidate.getPriority() : old.getPriority())
              .build();
    }
    d.setPreemptor(merged);
    d.setPreemptorQuality(quality);
  }

  /** A victim this pod preempted; false when it was known. */
  boolean preempted(String victimUid) {
    TreeSet<String> victims = new TreeSet<>(s.getDisruption().getVictims());
    boolean added = victims.add(victimUid);
    s.getDisruption().setVictims(new ArrayList<>(victims));
    preemptionAttempted();
    return added;
  }

  /** A rollout of the pod's workload deleted it (inferred by the workload stage); the earliest. */
  boolean rolledOut(long at) {
    Long before = s.getDisruption().getRolledOutAt();
    s.getDisruption().setRolledOutAt(min(before, at));
    return !Objects.equals(before, s.getDisruption().getRolledOutAt());
  }

  // ---------------------------------------------------------------- workload

  /**
   * How the pod's workload fared, as its stage last said: when its pods were preempted (the fuller
   * list wins) and when it first completed (the earliest); false when that changes nothing.
   */
  boolean workloadFared(List<Long> preemptedAt, Long completedAt) {
    var w = s.getWorkload();
    List<Long> all =
        preemptedAt.size() < w.getWorkloadPreemptedAt().size()
            ? w.getWorkloadPreemptedAt()
            : preemptedAt;
    Long completed = min(w.getWorkloadCompletedAt(), completedAt);
    if (all.equals(w.getWorkloadPreemptedAt())
        && Objects.equals(completed, w.getWorkloadCompletedAt())) {
      return false;
    }
    w.setWorkloadPreemptedAt(all);
    w.setWorkloadCompletedAt(completed);
    w.setWorkloadPreemptions(all.size());
    w.setWorkloadCompleted(completed != null);
    return true;
  }

  /** What the workload stage told: whether the pod's story changed. */
  boolean workloadTold(WorkloadStatus w) {
    boolean queue = queueTold(w.getQueueAdmissions(), w.getQueueEvictions());
    if (w.getRolledOutAt() != null) {
      return rolledOut(w.getRolledOutAt()) || queue;
    }
    // The workload stage sends its whole list each time, in order: the latest is the fullest.
    List<Long> all = new ArrayList<>(w.getPreemptedAt());
    all.sort(null);
    if (all.isEmpty() && w.getPreemptions() > 0) {
      // an older stage that told only a count: the count, at no particular time
      for (int i = 0; i < w.getPreemptions(); i++) {
        all.add(Long.MIN_VALUE);
      }
    }
    Long completed = w.getCompletedAt();
    if (completed == null && w.getCompleted()) {
      completed = Long.MIN_VALUE; // an older stage that told no time: completed, long ago
    }
    return workloadFared(all, completed) || queue;
  }

  /**
   * The workload stage told the Kueue admissions and evictions of the pod's workload: merged into
   * what it told before, so that the order of its messages does not matter.
   */
  boolean queueTold(List<QueueAdmission> admissions, List<QueueEviction> evictions) {
    var w = s.getWorkload();
    List<QueueAdmission> a = w.getQueueAdmissions();
    for (QueueAdmission x : admissions) {
      a = QueueAdmissions.with(a, x);
    }
    List<QueueEviction> e = w.getQueueEvictions();
    for (QueueEviction x : evictions) {
      e = QueueAdmissions.with(e, x);
    }
    if (a.equals(w.getQueueAdmissions()) && e.equals(w.getQueueEvictions())) {
      return false;
    }
    w.setQueueAdmissions(a);
    w.setQueueEvictions(e);
    return true;
  }

  // ---------------------------------------------------------------- serving

  /** Requests served in a second (or one): their count, errors and SLO breaches. */
  void served(long requests, long errors, long breaches) {
    var v = s.getServing();
    v.setRequests(v.getRequests() + requests);
    v.setErrors(v.getErrors() + errors);
    v.setSloBreaches(v.getSloBreaches() + breaches);
  }

  /** Times of successful requests: the earliest {@link #OK_TIMES_KEPT} are kept. */
  void answeredOk(Collection<Long> times) {
    if (times.isEmpty()) {
      return;
    }
    TreeSet<Long> ok = new TreeSet<>(s.getServing().getOkTimes());
    ok.addAll(times);
    while (ok.size() > OK_TIMES_KEPT) {
      ok.pollLast();
    }
    s.getServing().setOkTimes(new ArrayList<>(ok));
  }

  /** The latency sketch, as stored. */
  ByteBuffer latencySketch() {
    return s.getServing().getLatencySketch();
  }

  void latencySketch(ByteBuffer sketch) {
    s.getServing().setLatencySketch(sketch);
  }

  // ---------------------------------------------------------------- bookkeeping

  /** Victims that linked before this pod was observed, owed an answer ("uid|namespace/name"). */
  List<String> detailsOwed() {
    return s.getBookkeeping().getDetailsOwed();
  }

  void owe(String victim) {
    List<String> owed = new ArrayList<>(s.getBookkeeping().getDetailsOwed());
    owed.add(victim);
    s.getBookkeeping().setDetailsOwed(owed);
  }

  void paidDetails() {
    s.getBookkeeping().setDetailsOwed(new ArrayList<>());
  }

  /** How good the preemptor's identity was when this pod last told it. */
  int linkedQuality() {
    return s.getBookkeeping().getLinkedQuality();
  }

  void linked(int quality) {
    s.getBookkeeping().setLinkedQuality(quality);
  }

  static Long min(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : Math.min(a, b);
  }

  static Long max(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : Math.max(a, b);
  }
}
