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
import java.util.List;
import java.util.Objects;

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

  /** How a preemptor is known, weakest to strongest. */
  static final int BY_CONDITION_NAME = 1;

  static final int BY_NOTE_NAME = 2;
  static final int BY_NOTE_UID = 3;
  static final int BY_RELATED = 4;
  static final int BY_PREEMPTOR_ITSELF = 5;

  /** The PodScheduled reason while scheduling gates hold a pod (KEP-3521). */
  static final String GATED = "SchedulingGated";

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
  public Change apply(TimelineState state, PodObservation o) {
    TimelineStory before = TimelineStory.of(state);
    PodState p = new PodState(state);
    List<Outbound> out = new ArrayList<>();
    boolean first = p.observed();
    p.touched(EventTimes.latestFact(o));
    p.named(o.getNamespace(), o.getName());
    p.created(o.getCreatedAt());

    boolean latest = p.latest(numericVersion(o.getResourceVersion()), o.getObservedAt());
    if (latest) {
      p.describedAs(
          o.getOwner(),
          o.getPriorityClassName(),
          o.getPriority(),
          o.getPreemptionPolicy(),
          new PodState.Gpus(
              o.getGpus(),
              o.getGpuResource(),
              o.getGpuShared(),
              o.getGpuReplicas(),
              o.getGpuSharing(),
              o.getGpuProduct()),
          o.getLabels(),
          o.getPhase(),
          o.getReason());
    }
    if (first) {
      p.workloadIs(o.getWorkload());
    }
    p.boundTo(o.getNodeName(), latest);
    if (o.getNominatedNodeName() != null) {
      p.nominatedTo(o.getNominatedNodeName(), latest);
    }
    String checkpoint = o.getAnnotations().get(settings.checkpointAnnotation());
    p.checkpointed(checkpoint == null ? null : Rfc3339.toEpochMilli(checkpoint));

    conditions(p, o, latest, out);
    if (o.getReason() != null && Disruptions.STATUS_REASONS.containsKey(o.getReason())) {
      p.disrupted(
          Disruptions.STATUS_REASONS.get(o.getReason()), EventTimes.latestFact(o), "kubelet");
    }

    containers(p, o);
    if (first && !p.detailsOwed().isEmpty()) {
      for (String owed : p.detailsOwed()) {
        // "uid|namespace/name" of a victim that linked before this pod was observed
        int bar = owed.indexOf('|');
        String victim = bar < 0 ? owed : owed.substring(0, bar);
        String name = bar < 0 ? null : owed.substring(bar + 1);
        out.add(new Outbound.ToVictim(new PreemptorDetails(victim, selfRef(state)), name));
      }
      p.paidDetails();
    }
    out.addAll(linkToPreemptor(p));
    return changed(before, state, out);
  }

  /** The pod's conditions: scheduled, Ready, a disruption target. */
  private void conditions(PodState p, PodObservation o, boolean latest, List<Outbound> out) {
    for (PodCondition c : o.getConditions()) {
      Long t = c.getLastTransitionTime();
      boolean isTrue = "True".equals(c.getStatus());
      switch (c.getType()) {
        case "PodScheduled" -> {
          if (GATED.equals(c.getReason())) {
            p.gated(t);
          } else {
            p.ungated(t);
          }
          if (isTrue) {
            p.scheduledByCondition(t);
          } else if ("Unschedulable".equals(c.getReason()) && c.getMessage() != null && t != null) {
            // The scheduler writes its FailedScheduling note into the condition too. Events
            // expire after an hour (and a `kubectl get pods` capture has none): the condition
            // still says why the pod waits. It counts no scheduling attempt.
            pendingReasons(p, FailedSchedulingNote.parse(c.getMessage()), t);
          }
        }
        case "Ready" -> {
          if (isTrue) {
            p.ready(t);
          }
          if (latest) {
            p.readyNow(isTrue, t);
          }
        }
        case "DisruptionTarget" -> {
          if (isTrue) {
            out.addAll(disruptionCondition(p, c));
          }
        }
        default -> {}
      }
    }
  }

  /** The containers' starts, restarts and ends; the phase, the deletion, the pod gone. */
  private static void containers(PodState p, PodObservation o) {
    Long finished = null;
    for (ContainerStatus c : o.getContainers()) {
      if (c.getInit()) {
        continue;
      }
      p.running(c.getRunningStartedAt());
      p.running(c.getTerminatedStartedAt());
      p.running(c.getLastTerminatedStartedAt());
      p.restarted(c.getName(), c.getRestartCount());
      finished = PodState.max(finished, c.getTerminatedFinishedAt());
    }
    boolean terminalPhase = "Succeeded".equals(o.getPhase()) || "Failed".equals(o.getPhase());
    if (terminalPhase) {
      p.terminalPhase(o.getPhase());
    }
    if ((terminalPhase || o.getChangeType() == ChangeType.DELETED) && finished != null) {
      p.finished(finished);
    }
    if (o.getDeletionTimestamp() != null) {
      long grace =
          o.getDeletionGracePeriodSeconds() == null ? 0 : o.getDeletionGracePeriodSeconds();
      p.deletionRequested(o.getDeletionTimestamp(), o.getDeletionTimestamp() - grace * 1000);
    }
    if (o.getChangeType() == ChangeType.DELETED) {
      p.gone(o.getObservedAt());
    }
  }

  /** A story change, or messages to send, or nothing. */
  private static Change changed(TimelineStory before, TimelineState state, List<Outbound> out) {
    return !before.equals(TimelineStory.of(state)) || !out.isEmpty()
        ? Change.story(out)
        : Change.NONE;
  }

  // ---------------------------------------------------------------- events

  /** Applies a Kubernetes event about this pod. */
  public Change apply(TimelineState state, ClusterEvent e) {
    TimelineStory before = TimelineStory.of(state);
    PodState p = new PodState(state);
    List<Outbound> out = new ArrayList<>();
    long when = EventTimes.of(e);
    long first = firstOccurrence(e);
    p.touched(when);
    String reason = e.getReason() == null ? "" : e.getReason();
    switch (reason) {
      case "FailedScheduling" -> failedScheduling(p, e, when);
      case "Scheduled" -> p.scheduledByEvent(first);
      case "Preempted" -> out.addAll(preempted(p, e, first));
      default -> {
        DisruptionCause cause = Disruptions.EVENT_REASONS.get(reason);
        if (cause != null) {
          p.disrupted(cause, first, e.getReportingController());
        }
      }
    }
    return changed(before, state, out);
  }

  private void failedScheduling(PodState p, ClusterEvent e, long when) {
    String note = e.getNote();
    if (note != null && note.startsWith("skip schedule deleting pod")) {
      return; // the scheduler saw the pod being deleted; not an attempt to place it
    }
    p.failedToSchedule(
        e.getUid(), Math.max(1, Math.max(orZero(e.getCount()), orZero(e.getSeriesCount()))));
    pendingReasons(p, FailedSchedulingNote.parse(note), when);
  }

  private static void pendingReasons(PodState p, FailedSchedulingNote.Parsed parsed, long when) {
    if (parsed.preemptionAttempted()) {
      p.preemptionAttempted();
    }
    p.pendingBecause(parsed.reasons(), when);
  }

  private List<Outbound> preempted(PodState p, ClusterEvent e, long at) {
    p.preemptedByEvent(at);
    p.disrupted(DisruptionCause.PREEMPTION, at, "default-scheduler");
    var related = e.getRelated();
    if (related != null
        && related.getUid() != null
        && (related.getKind() == null || "Pod".equals(related.getKind()))) {
      p.preemptedBy(
          PodRef.newBuilder()
              .setUid(related.getUid())
              .setNamespace(related.getNamespace())
              .setName(related.getName())
              .build(),
          BY_RELATED);
    } else {
      PreemptionNotes.fromNote(e.getNote())
          .ifPresent(
              n ->
                  p.preemptedBy(
                      PodRef.newBuilder()
                          .setUid(n.uid())
                          .setNamespace(n.namespace())
                          .setName(n.name())
                          .build(),
                      n.uid() != null ? BY_NOTE_UID : BY_NOTE_NAME));
    }
    return linkToPreemptor(p);
  }

  private List<Outbound> disruptionCondition(PodState p, PodCondition c) {
    DisruptionCause cause = Disruptions.ofCondition(c.getReason(), c.getMessage());
    if (cause == null) {
      return List.of();
    }
    Long at = c.getLastTransitionTime();
    p.disrupted(cause, at, Disruptions.byOf(c.getMessage(), c.getReason()));
    if (cause == DisruptionCause.PREEMPTION) {
      p.preemptedByCondition(at);
      PreemptionNotes.fromConditionMessage(c.getMessage())
          .ifPresent(
              n ->
                  p.preemptedBy(
                      PodRef.newBuilder().setNamespace(n.namespace()).setName(n.name()).build(),
                      BY_CONDITION_NAME));
      return linkToPreemptor(p);
    }
    return List.of();
  }

  /**
   * Tells the preemptor, once per better knowledge of who it is, and only once the victim knows its
   * own namespace and name: the preemptor's answer is routed by them. (A victim's Preempted event
   * may come before its first pod observation; the link then goes out with that observation.)
   */
  private static List<Outbound> linkToPreemptor(PodState p) {
    PodRef preemptor = p.preemptor();
    int quality = p.preemptorQuality();
    if (preemptor == null
        || quality <= p.linkedQuality()
        || quality == BY_PREEMPTOR_ITSELF
        || p.namespace() == null
        || p.name() == null) {
      return List.of();
    }
    if (preemptor.getUid() == null
        && (preemptor.getNamespace() == null || preemptor.getName() == null)) {
      return List.of();
    }
    p.linked(quality);
    long at = p.preemptedAt() == null ? 0 : p.preemptedAt();
    return List.of(
        new Outbound.ToPreemptor(
            VictimLink.newBuilder()
                .setVictimUid(p.uid())
                .setVictimNamespace(p.namespace())
                .setVictimName(p.name())
                .setPreemptorUid(preemptor.getUid())
                .setPreemptorNamespace(preemptor.getNamespace())
                .setPreemptorName(preemptor.getName())
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
    GpuBusy.sampled(s, GpuBusy.share(g), GpuBusy.shared(g));
    PodSeriesPoints.addSampleTo(s, g.getTime(), util, span, settings);
    return Change.countersOnly();
  }

  /** Applies one second of the pod's GPU samples and requests (see {@link InputSeconds}). */
  public void apply(TimelineState s, InputSecond in) {
    s.setUpdatedAt(Math.max(s.getUpdatedAt(), in.getLatest()));
    long breaches = in.getRequests() > 0 ? breaches(s, in) : 0;
    if (!in.getGpu().isEmpty() || in.getRequests() > 0) {
      PodSeriesPoints.addSecondTo(s, in, breaches, classSlo(s), settings);
    }
    for (GpuReading r : in.getGpu()) {
      GpuBusy.add(s, r.getTime(), r.getUtil(), GpuBusy.span(r.getIntervalMs(), settings));
      GpuBusy.sampled(s, r.getShare(), r.getShared());
    }
    if (in.getRequests() > 0) {
      PodState p = new PodState(s);
      p.served(in.getRequests(), in.getErrors(), breaches);
      p.answeredOk(in.getOkTimes());
      if (!in.getLatencies().isEmpty()) {
        DDSketch sketch = LatencySketch.decodeForUpdate(p.latencySketch());
        for (double latency : in.getLatencies()) {
          sketch.accept(latency);
        }
        p.latencySketch(LatencySketch.encodeAndKeep(sketch));
      }
    }
  }

  private Double classSlo(TimelineState s) {
    return settings.classSlo(s.getIdentity().getPriorityClass());
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
    PodState p = new PodState(s);
    p.touched(r.getTime());
    boolean error = isError(r);
    if (!error) {
      p.answeredOk(List.of(r.getTime()));
    }
    long breach = 0;
    if (r.getLatencyMs() != null) {
      DDSketch sketch = LatencySketch.decode(p.latencySketch());
      sketch.accept(r.getLatencyMs());
      p.latencySketch(LatencySketch.encode(sketch));
      Double slo = slo(s, r);
      if (slo != null && r.getLatencyMs() > slo) {
        breach = 1;
      }
    }
    p.served(1, error ? 1 : 0, breach);
    PodSeriesPoints.addRequestTo(s, r, error, breach, classSlo(s), settings);
    return Change.countersOnly();
  }

  /** An error is a 5xx answer or no answer at all (transport failure). */
  public static boolean isError(RequestLog r) {
    return r.getStatus() == null || r.getStatus() >= 500;
  }

  /** The latency SLO of a request: its service's, else its pod's priority class's. */
  public Double slo(TimelineState s, RequestLog r) {
    return settings.slo(r.getService(), s.getIdentity().getPriorityClass());
  }

  // ---------------------------------------------------------------- links between pods

  /** A victim says this pod preempted it. */
  public Change apply(TimelineState s, VictimLink l) {
    PodState p = new PodState(s);
    if (!p.preempted(l.getVictimUid())) {
      return Change.NONE; // already linked and answered (a repeated or improved link)
    }
    String name = victimName(l);
    if (p.sawPod()) {
      return Change.story(
          List.of(new Outbound.ToVictim(new PreemptorDetails(l.getVictimUid(), selfRef(s)), name)));
    }
    p.owe(name == null ? l.getVictimUid() : l.getVictimUid() + "|" + name);
    return Change.story(List.of());
  }

  private static String victimName(VictimLink l) {
    return l.getVictimNamespace() == null || l.getVictimName() == null
        ? null
        : new PodName(l.getVictimNamespace(), l.getVictimName()).key();
  }

  /** The preemptor says who it is. */
  public Change apply(TimelineState s, PreemptorDetails d) {
    PodState p = new PodState(s);
    PodRef before = p.preemptor();
    p.preemptedBy(d.getPreemptor(), BY_PREEMPTOR_ITSELF);
    return Objects.equals(before, p.preemptor()) ? Change.NONE : Change.story(List.of());
  }

  /**
   * The workload stage says how its pods fare together: when its pods were preempted and first
   * succeeded (the timeline counts those up to its own end), or that a rollout deleted this pod (a
   * cause inferred there, kept apart from the pod's own evidence).
   */
  public Change apply(TimelineState s, WorkloadStatus w) {
    return new PodState(s).workloadTold(w) ? Change.story(List.of()) : Change.NONE;
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

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }
}
