package io.schedlens.timeline;

import com.datadoghq.sketch.ddsketch.DDSketch;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.GpuReading;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.base.DisruptionCause;
import io.schedlens.base.Rfc3339;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.PodName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Folds one input at a time into a pod's {@link TimelineState}. Pure apart from mutating the state
 * it is given; no Kafka.
 *
 * <p>Every field merges so that the order of inputs does not matter: times of first facts take the
 * earliest evidence (first Ready=True, earliest container start), counts of repeated events take
 * the largest count seen per event UID (so a re-listed or duplicated event adds nothing), sets are
 * sets, and the fields that describe the pod's current state come from the observation with the
 * highest resourceVersion. Duplicates and relists therefore change nothing, and inputs reordered
 * within the grace period give the same timeline as in order.
 */
public final class TimelineReducer {

  static final int OK_TIMES_KEPT = 8;

  /** How a preemptor is known, weakest to strongest. */
  static final int BY_CONDITION_NAME = 1;

  static final int BY_NOTE_NAME = 2;
  static final int BY_NOTE_UID = 3;
  static final int BY_RELATED = 4;
  static final int BY_PREEMPTOR_ITSELF = 5;

  private final TimelineSettings settings;

  public TimelineReducer(TimelineSettings settings) {
    this.settings = settings;
  }

  public TimelineSettings settings() {
    return settings;
  }

  /** A state for a pod nothing is known of yet. */
  public static TimelineState empty(String uid) {
    return TimelineState.newBuilder().setUid(uid).build();
  }

  /** Applies any input the timeline takes; unknown types change nothing. */
  public Change applyAny(TimelineState s, Object input) {
    if (input instanceof PodObservation o) {
      return apply(s, o);
    } else if (input instanceof ClusterEvent e) {
      return apply(s, e);
    } else if (input instanceof GpuSample g) {
      return apply(s, g);
    } else if (input instanceof RequestLog r) {
      return apply(s, r);
    } else if (input instanceof VictimLink l) {
      return apply(s, l);
    } else if (input instanceof PreemptorDetails d) {
      return apply(s, d);
    } else if (input instanceof WorkloadStatus w) {
      return apply(s, w);
    }
    return Change.NONE;
  }

  // ---------------------------------------------------------------- pod observations

  /** Applies a pod observation (any change type). */
  public Change apply(TimelineState s, PodObservation o) {
    TimelineStory before = TimelineStory.of(s);
    List<Outbound> out = new ArrayList<>();
    boolean first = !s.getSawPod();
    s.setSawPod(true);
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), EventTimes.latestFact(o)));

    // Identity and creation do not change over a pod's life.
    s.getIdentity().setNamespace(o.getNamespace());
    s.getIdentity().setName(o.getName());
    s.getLifecycle()
        .setCreatedAt(o.getCreatedAt() > 0 ? o.getCreatedAt() : s.getLifecycle().getCreatedAt());

    long version = numericVersion(o.getResourceVersion());
    boolean latest =
        version > s.getLatest().getLatestVersion()
            || (version == s.getLatest().getLatestVersion()
                && o.getObservedAt() >= s.getLatest().getLatestObservedAt())
            || (version < 0 && o.getObservedAt() >= s.getLatest().getLatestObservedAt());
    if (latest) {
      s.getLatest().setLatestVersion(Math.max(version, s.getLatest().getLatestVersion()));
      s.getLatest().setLatestObservedAt(o.getObservedAt());
      if (o.getOwner() != null) {
        s.getIdentity().setOwnerKind(o.getOwner().getKind());
        s.getIdentity().setOwnerName(o.getOwner().getName());
        s.getIdentity().setOwnerUid(o.getOwner().getUid());
      }
      s.getIdentity().setPriorityClass(o.getPriorityClassName());
      s.getIdentity().setPriority(o.getPriority());
      s.getIdentity().setPreemptionPolicy(o.getPreemptionPolicy());
      s.getIdentity().setGpus(o.getGpus());
      s.getIdentity().setLabels(new HashMap<>(o.getLabels()));
      s.getLatest().setPhase(o.getPhase());
      s.getLatest().setStatusReason(o.getReason());
      if (o.getNodeName() != null) {
        s.getLatest().setNode(o.getNodeName());
      }
    }
    if (o.getNominatedNodeName() != null) {
      if (latest || s.getLatest().getNominatedNode() == null) {
        s.getLatest().setNominatedNode(o.getNominatedNodeName());
      }
      s.getScheduling().setPreemptionAttempted(true);
    }
    if (s.getLatest().getNode() == null && o.getNodeName() != null) {
      s.getLatest().setNode(o.getNodeName());
    }
    String checkpoint = o.getAnnotations().get(settings.checkpointAnnotation());
    Long checkpointAt = checkpoint == null ? null : Rfc3339.toEpochMilli(checkpoint);
    s.getLatest().setCheckpointAt(max(s.getLatest().getCheckpointAt(), checkpointAt));

    for (PodCondition c : o.getConditions()) {
      Long t = c.getLastTransitionTime();
      boolean isTrue = "True".equals(c.getStatus());
      switch (c.getType()) {
        case "PodScheduled" -> {
          if (isTrue) {
            s.getLifecycle()
                .setScheduledConditionAt(min(s.getLifecycle().getScheduledConditionAt(), t));
          } else if ("Unschedulable".equals(c.getReason()) && c.getMessage() != null && t != null) {
            // The scheduler writes its FailedScheduling note into the condition too. Events
            // expire after an hour (and a `kubectl get pods` capture has none): the condition
            // still says why the pod waits. It counts no scheduling attempt.
            pendingReasons(s, FailedSchedulingNote.parse(c.getMessage()), t);
          }
        }
        case "Ready" -> {
          if (isTrue) {
            s.getLifecycle().setReadyAt(min(s.getLifecycle().getReadyAt(), t));
          }
          if (latest) {
            s.getLatest().setReadyLostAt(isTrue ? null : t);
          }
        }
        case "DisruptionTarget" -> {
          if (isTrue) {
            out.addAll(disruptionCondition(s, c));
          }
        }
        default -> {}
      }
    }
    if (o.getReason() != null && Disruptions.STATUS_REASONS.containsKey(o.getReason())) {
      disrupt(
          s, Disruptions.STATUS_REASONS.get(o.getReason()), EventTimes.latestFact(o), "kubelet");
    }

    Long finished = null;
    for (ContainerStatus c : o.getContainers()) {
      if (c.getInit()) {
        continue;
      }
      s.getLifecycle().setRunningAt(min(s.getLifecycle().getRunningAt(), c.getRunningStartedAt()));
      s.getLifecycle()
          .setRunningAt(min(s.getLifecycle().getRunningAt(), c.getTerminatedStartedAt()));
      s.getLifecycle()
          .setRunningAt(min(s.getLifecycle().getRunningAt(), c.getLastTerminatedStartedAt()));
      Map<String, Integer> restarts = new HashMap<>(s.getLifecycle().getRestarts());
      restarts.merge(c.getName(), c.getRestartCount(), Math::max);
      s.getLifecycle().setRestarts(restarts);
      finished = max(finished, c.getTerminatedFinishedAt());
    }
    boolean terminalPhase = "Succeeded".equals(o.getPhase()) || "Failed".equals(o.getPhase());
    if (terminalPhase) {
      s.getLifecycle().setTerminalPhase(o.getPhase());
    }
    if ((terminalPhase || o.getChangeType() == ChangeType.DELETED) && finished != null) {
      s.getLifecycle().setFinishedAt(max(s.getLifecycle().getFinishedAt(), finished));
    }
    if (o.getDeletionTimestamp() != null) {
      long grace =
          o.getDeletionGracePeriodSeconds() == null ? 0 : o.getDeletionGracePeriodSeconds();
      s.getLifecycle()
          .setDeletionDeadline(
              min(s.getLifecycle().getDeletionDeadline(), o.getDeletionTimestamp()));
      s.getLifecycle()
          .setDeletionRequestedAt(
              min(
                  s.getLifecycle().getDeletionRequestedAt(),
                  o.getDeletionTimestamp() - grace * 1000));
    }
    if (o.getChangeType() == ChangeType.DELETED) {
      s.getLifecycle().setGone(true);
      s.getLifecycle()
          .setDeletedObservedAt(min(s.getLifecycle().getDeletedObservedAt(), o.getObservedAt()));
    }

    if (first && !s.getBookkeeping().getDetailsOwed().isEmpty()) {
      for (String owed : s.getBookkeeping().getDetailsOwed()) {
        // "uid|namespace/name" of a victim that linked before this pod was observed
        int bar = owed.indexOf('|');
        String victim = bar < 0 ? owed : owed.substring(0, bar);
        String name = bar < 0 ? null : owed.substring(bar + 1);
        out.add(new Outbound.ToVictim(new PreemptorDetails(victim, selfRef(s)), name));
      }
      s.getBookkeeping().setDetailsOwed(new ArrayList<>());
    }
    out.addAll(linkToPreemptor(s));
    boolean changed = !before.equals(TimelineStory.of(s));
    return changed || !out.isEmpty() ? Change.story(out) : Change.NONE;
  }

  // ---------------------------------------------------------------- events

  /** Applies a Kubernetes event about this pod. */
  public Change apply(TimelineState s, ClusterEvent e) {
    TimelineStory before = TimelineStory.of(s);
    List<Outbound> out = new ArrayList<>();
    long when = EventTimes.of(e);
    long first = firstOccurrence(e);
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), when));
    String reason = e.getReason() == null ? "" : e.getReason();
    switch (reason) {
      case "FailedScheduling" -> failedScheduling(s, e, when);
      case "Scheduled" ->
          s.getLifecycle().setScheduledEventAt(min(s.getLifecycle().getScheduledEventAt(), first));
      case "Preempted" -> out.addAll(preempted(s, e, first));
      default -> {
        DisruptionCause cause = Disruptions.EVENT_REASONS.get(reason);
        if (cause != null) {
          disrupt(s, cause, first, e.getReportingController());
        }
      }
    }
    boolean changed = !before.equals(TimelineStory.of(s));
    return changed || !out.isEmpty() ? Change.story(out) : Change.NONE;
  }

  private void failedScheduling(TimelineState s, ClusterEvent e, long when) {
    String note = e.getNote();
    if (note != null && note.startsWith("skip schedule deleting pod")) {
      return; // the scheduler saw the pod being deleted; not an attempt to place it
    }
    int occurrences = Math.max(1, Math.max(orZero(e.getCount()), orZero(e.getSeriesCount())));
    Map<String, Integer> counts = new HashMap<>(s.getScheduling().getFailedScheduling());
    counts.merge(e.getUid(), occurrences, Math::max);
    s.getScheduling().setFailedScheduling(counts);
    pendingReasons(s, FailedSchedulingNote.parse(note), when);
  }

  private static void pendingReasons(
      TimelineState s, FailedSchedulingNote.Parsed parsed, long when) {
    if (parsed.preemptionAttempted()) {
      s.getScheduling().setPreemptionAttempted(true);
    }
    // The latest note says why the pod is pending now; ties keep the larger map for determinism.
    if (s.getScheduling().getPendingReasonsAt() == null
        || when > s.getScheduling().getPendingReasonsAt()
        || (when == s.getScheduling().getPendingReasonsAt()
            && parsed
                    .reasons()
                    .toString()
                    .compareTo(s.getScheduling().getPendingReasons().toString())
                > 0)) {
      s.getScheduling().setPendingReasonsAt(when);
      s.getScheduling().setPendingReasons(new HashMap<>(parsed.reasons()));
    }
  }

  private List<Outbound> preempted(TimelineState s, ClusterEvent e, long at) {
    s.getDisruption().setPreemptedEventAt(min(s.getDisruption().getPreemptedEventAt(), at));
    disrupt(s, DisruptionCause.PREEMPTION, at, "default-scheduler");
    var related = e.getRelated();
    if (related != null
        && related.getUid() != null
        && (related.getKind() == null || "Pod".equals(related.getKind()))) {
      improvePreemptor(
          s,
          PodRef.newBuilder()
              .setUid(related.getUid())
              .setNamespace(related.getNamespace())
              .setName(related.getName())
              .build(),
          BY_RELATED);
    } else {
      Optional<PreemptionNotes.Named> named = PreemptionNotes.fromNote(e.getNote());
      named.ifPresent(
          n ->
              improvePreemptor(
                  s,
                  PodRef.newBuilder()
                      .setUid(n.uid())
                      .setNamespace(n.namespace())
                      .setName(n.name())
                      .build(),
                  n.uid() != null ? BY_NOTE_UID : BY_NOTE_NAME));
    }
    return linkToPreemptor(s);
  }

  private List<Outbound> disruptionCondition(TimelineState s, PodCondition c) {
    DisruptionCause cause = Disruptions.ofCondition(c.getReason(), c.getMessage());
    if (cause == null) {
      return List.of();
    }
    Long at = c.getLastTransitionTime();
    disrupt(s, cause, at, Disruptions.byOf(c.getMessage(), c.getReason()));
    if (cause == DisruptionCause.PREEMPTION) {
      s.getDisruption()
          .setPreemptedConditionAt(min(s.getDisruption().getPreemptedConditionAt(), at));
      PreemptionNotes.fromConditionMessage(c.getMessage())
          .ifPresent(
              n ->
                  improvePreemptor(
                      s,
                      PodRef.newBuilder().setNamespace(n.namespace()).setName(n.name()).build(),
                      BY_CONDITION_NAME));
      return linkToPreemptor(s);
    }
    return List.of();
  }

  /**
   * Keeps the evidence that decides what ended the pod ({@link DisruptionCause#decidesOver}: the
   * earliest second, then the cause's precedence), so the result does not depend on the order the
   * evidence arrived in.
   */
  private static void disrupt(TimelineState s, DisruptionCause cause, Long at, String by) {
    if (at == null) {
      return;
    }
    DisruptionCause current = DisruptionCause.ofNullable(s.getDisruption().getDisruptionCause());
    boolean decides =
        current == null || cause.decidesOver(at, current, s.getDisruption().getDisruptionAt());
    boolean sameNamedEarlier =
        cause == current && at.equals(s.getDisruption().getDisruptionAt()) && byFirst(by, s);
    if (decides || sameNamedEarlier) {
      s.getDisruption().setDisruptionCause(cause.wire());
      s.getDisruption().setDisruptionAt(at);
      s.getDisruption().setDisruptionBy(by);
    }
  }

  /** Of two reports of the same cause at the same time, the one naming who comes first. */
  private static boolean byFirst(String by, TimelineState s) {
    String current = s.getDisruption().getDisruptionBy();
    return by != null && (current == null || by.compareTo(current) < 0);
  }

  private static void improvePreemptor(TimelineState s, PodRef candidate, int quality) {
    if (quality > s.getDisruption().getPreemptorQuality()) {
      PodRef merged = candidate;
      PodRef old = s.getDisruption().getPreemptor();
      if (old != null) {
        merged =
            PodRef.newBuilder()
                .setUid(candidate.getUid() != null ? candidate.getUid() : old.getUid())
                .setNamespace(
                    candidate.getNamespace() != null
                        ? candidate.getNamespace()
                        : old.getNamespace())
                .setName(candidate.getName() != null ? candidate.getName() : old.getName())
                .setPriorityClass(
                    candidate.getPriorityClass() != null
                        ? candidate.getPriorityClass()
                        : old.getPriorityClass())
                .setPriority(
                    candidate.getPriority() != null ? candidate.getPriority() : old.getPriority())
                .build();
      }
      s.getDisruption().setPreemptor(merged);
      s.getDisruption().setPreemptorQuality(quality);
    }
  }

  /**
   * Tells the preemptor, once per better knowledge of who it is, and only once the victim knows its
   * own namespace and name: the preemptor's answer is routed by them. (A victim's Preempted event
   * may come before its first pod observation; the link then goes out with that observation.)
   */
  private static List<Outbound> linkToPreemptor(TimelineState s) {
    PodRef p = s.getDisruption().getPreemptor();
    if (p == null
        || s.getDisruption().getPreemptorQuality() <= s.getBookkeeping().getLinkedQuality()
        || s.getDisruption().getPreemptorQuality() == BY_PREEMPTOR_ITSELF
        || s.getIdentity().getNamespace() == null
        || s.getIdentity().getName() == null) {
      return List.of();
    }
    if (p.getUid() == null && (p.getNamespace() == null || p.getName() == null)) {
      return List.of();
    }
    s.getBookkeeping().setLinkedQuality(s.getDisruption().getPreemptorQuality());
    long at = preemptedAt(s) == null ? 0 : preemptedAt(s);
    return List.of(
        new Outbound.ToPreemptor(
            VictimLink.newBuilder()
                .setVictimUid(s.getUid())
                .setVictimNamespace(s.getIdentity().getNamespace())
                .setVictimName(s.getIdentity().getName())
                .setPreemptorUid(p.getUid())
                .setPreemptorNamespace(p.getNamespace())
                .setPreemptorName(p.getName())
                .setAt(at)
                .build()));
  }

  // ---------------------------------------------------------------- GPU samples and requests

  /**
   * Applies a DCGM sample of one of the pod's GPUs on its own: the tests' and tools' way in. The
   * pod stage gives samples a second at a time ({@link #apply(TimelineState, InputSecond)}), having
   * counted each sample once.
   */
  public Change apply(TimelineState s, GpuSample g) {
    Double util = GpuBusy.utilisation(g);
    if (util == null) {
      return Change.NONE;
    }
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), g.getTime()));
    long span = GpuBusy.span(g.getIntervalMs(), settings);
    GpuBusy.add(s, g.getTime(), util, span);
    s.setSeries(PodSeriesPoints.addSample(s.getSeries(), g.getTime(), util, span));
    return Change.countersOnly();
  }

  /** Applies one second of the pod's GPU samples and requests (see {@link InputSeconds}). */
  public void apply(TimelineState s, InputSecond in) {
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), in.getLatest()));
    long breaches = in.getRequests() > 0 ? breaches(s, in) : 0;
    if (!in.getGpu().isEmpty() || in.getRequests() > 0) {
      s.setSeries(PodSeriesPoints.add(s.getSeries(), in, breaches, classSlo(s), settings));
    }
    for (GpuReading r : in.getGpu()) {
      GpuBusy.add(s, r.getTime(), r.getUtil(), GpuBusy.span(r.getIntervalMs(), settings));
    }
    if (in.getRequests() > 0) {
      s.getServing().setRequests(s.getServing().getRequests() + in.getRequests());
      s.getServing().setErrors(s.getServing().getErrors() + in.getErrors());
      if (!in.getOkTimes().isEmpty()) {
        TreeSet<Long> ok = new TreeSet<>(s.getServing().getOkTimes());
        ok.addAll(in.getOkTimes());
        while (ok.size() > OK_TIMES_KEPT) {
          ok.pollLast();
        }
        s.getServing().setOkTimes(new ArrayList<>(ok));
      }
      if (!in.getLatencies().isEmpty()) {
        DDSketch sketch = LatencySketch.decodeForUpdate(s.getServing().getLatencySketch());
        for (double latency : in.getLatencies()) {
          sketch.accept(latency);
        }
        s.getServing().setLatencySketch(LatencySketch.encodeAndKeep(sketch));
      }
      s.getServing().setSloBreaches(s.getServing().getSloBreaches() + breaches);
    }
  }

  private Double classSlo(TimelineState s) {
    return s.getIdentity().getPriorityClass() == null
        ? null
        : settings.slosMs().get(s.getIdentity().getPriorityClass());
  }

  /** SLO breaches among one second's requests, for the pod of {@code s}. */
  public long breaches(TimelineState s, InputSecond in) {
    long breaches = in.getServiceBreaches();
    Double classSlo = classSlo(s);
    if (classSlo != null) {
      for (double latency : in.getClassLatencies()) {
        if (latency > classSlo) {
          breaches++;
        }
      }
    }
    return breaches;
  }

  /** Applies a request the pod served (or failed to). */
  public Change apply(TimelineState s, RequestLog r) {
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), r.getTime()));
    s.getServing().setRequests(s.getServing().getRequests() + 1);
    boolean error = isError(r);
    if (error) {
      s.getServing().setErrors(s.getServing().getErrors() + 1);
    } else {
      TreeSet<Long> ok = new TreeSet<>(s.getServing().getOkTimes());
      ok.add(r.getTime());
      while (ok.size() > OK_TIMES_KEPT) {
        ok.pollLast();
      }
      s.getServing().setOkTimes(new ArrayList<>(ok));
    }
    long breach = 0;
    if (r.getLatencyMs() != null) {
      DDSketch sketch = LatencySketch.decode(s.getServing().getLatencySketch());
      sketch.accept(r.getLatencyMs());
      s.getServing().setLatencySketch(LatencySketch.encode(sketch));
      Double slo = slo(s, r);
      if (slo != null && r.getLatencyMs() > slo) {
        s.getServing().setSloBreaches(s.getServing().getSloBreaches() + 1);
        breach = 1;
      }
    }
    Double serviceSlo = r.getService() == null ? null : settings.slosMs().get(r.getService());
    s.setSeries(
        PodSeriesPoints.addRequests(
            s.getSeries(),
            InputSeconds.secondOf(r.getTime()),
            1,
            error ? 1 : 0,
            breach,
            r.getLatencyMs() == null ? List.of() : List.of(r.getLatencyMs()),
            serviceSlo,
            serviceSlo == null && r.getLatencyMs() != null ? classSlo(s) : null));
    return Change.countersOnly();
  }

  /** An error is a 5xx answer or no answer at all (transport failure). */
  public static boolean isError(RequestLog r) {
    return r.getStatus() == null || r.getStatus() >= 500;
  }

  /** The latency SLO of a request: its service's, else its pod's priority class's. */
  public Double slo(TimelineState s, RequestLog r) {
    Double slo = r.getService() == null ? null : settings.slosMs().get(r.getService());
    if (slo == null && s.getIdentity().getPriorityClass() != null) {
      slo = settings.slosMs().get(s.getIdentity().getPriorityClass());
    }
    return slo;
  }

  // ---------------------------------------------------------------- links between pods

  /** A victim says this pod preempted it. */
  public Change apply(TimelineState s, VictimLink l) {
    TreeSet<String> victims = new TreeSet<>(s.getDisruption().getVictims());
    boolean added = victims.add(l.getVictimUid());
    s.getDisruption().setVictims(new ArrayList<>(victims));
    s.getScheduling().setPreemptionAttempted(true);
    List<Outbound> out = new ArrayList<>();
    if (!added) {
      return Change.NONE; // already linked and answered (a repeated or improved link)
    }
    if (s.getSawPod()) {
      out.add(
          new Outbound.ToVictim(new PreemptorDetails(l.getVictimUid(), selfRef(s)), victimName(l)));
    } else {
      List<String> owed = new ArrayList<>(s.getBookkeeping().getDetailsOwed());
      String name = victimName(l);
      owed.add(name == null ? l.getVictimUid() : l.getVictimUid() + "|" + name);
      s.getBookkeeping().setDetailsOwed(owed);
    }
    return Change.story(out);
  }

  private static String victimName(VictimLink l) {
    return l.getVictimNamespace() == null || l.getVictimName() == null
        ? null
        : new PodName(l.getVictimNamespace(), l.getVictimName()).key();
  }

  /** The preemptor says who it is. */
  public Change apply(TimelineState s, PreemptorDetails d) {
    PodRef before = s.getDisruption().getPreemptor();
    improvePreemptor(s, d.getPreemptor(), BY_PREEMPTOR_ITSELF);
    return Objects.equals(before, s.getDisruption().getPreemptor())
        ? Change.NONE
        : Change.story(List.of());
  }

  /**
   * The workload stage says how its pods fare together: when its pods were preempted and first
   * succeeded (the timeline counts those up to its own end), or that a rollout deleted this pod (a
   * cause inferred there, kept apart from the pod's own evidence).
   */
  public Change apply(TimelineState s, WorkloadStatus w) {
    if (w.getRolledOutAt() != null) {
      Long before = s.getDisruption().getRolledOutAt();
      s.getDisruption().setRolledOutAt(min(before, w.getRolledOutAt()));
      return Objects.equals(before, s.getDisruption().getRolledOutAt())
          ? Change.NONE
          : Change.story(List.of());
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
    if (all.size() < s.getWorkload().getWorkloadPreemptedAt().size()) {
      all = s.getWorkload().getWorkloadPreemptedAt();
    }
    completed = min(s.getWorkload().getWorkloadCompletedAt(), completed);
    if (all.equals(s.getWorkload().getWorkloadPreemptedAt())
        && Objects.equals(completed, s.getWorkload().getWorkloadCompletedAt())) {
      return Change.NONE;
    }
    s.getWorkload().setWorkloadPreemptedAt(all);
    s.getWorkload().setWorkloadCompletedAt(completed);
    s.getWorkload().setWorkloadPreemptions(all.size());
    s.getWorkload().setWorkloadCompleted(completed != null);
    return Change.story(List.of());
  }

  // ---------------------------------------------------------------- helpers

  static PodRef selfRef(TimelineState s) {
    return PodRef.newBuilder()
        .setUid(s.getUid())
        .setNamespace(s.getIdentity().getNamespace())
        .setName(s.getIdentity().getName())
        .setPriorityClass(s.getIdentity().getPriorityClass())
        .setPriority(s.getIdentity().getPriority())
        .build();
  }

  /** When the pod was preempted: the Preempted event (precise) or else the condition. */
  static Long preemptedAt(TimelineState s) {
    return s.getDisruption().getPreemptedEventAt() != null
        ? s.getDisruption().getPreemptedEventAt()
        : s.getDisruption().getPreemptedConditionAt();
  }

  /** The first occurrence of an event: eventTime (events.k8s.io), else firstTimestamp (core). */
  static long firstOccurrence(ClusterEvent e) {
    if (e.getEventTime() != null) {
      return e.getEventTime();
    }
    if (e.getFirstTimestamp() != null) {
      return e.getFirstTimestamp();
    }
    return EventTimes.of(e);
  }

  static long numericVersion(String rv) {
    if (rv == null || rv.isEmpty() || rv.length() > 18) {
      return -1;
    }
    for (int i = 0; i < rv.length(); i++) {
      if (!Character.isDigit(rv.charAt(i))) {
        return -1;
      }
    }
    return Long.parseLong(rv);
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

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }
}
