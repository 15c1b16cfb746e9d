package io.schedlens.timeline;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.schemas.EventTimes;
import java.util.ArrayList;
import java.util.List;

/**
 * What an observation or an event does to the pods of a name: the pod stage's decisions, pure.
 * Which incarnation it is for; whether it came after that pod's final timeline; what the pod's
 * state becomes ({@link TimelineReducer}); and what follows, as {@link PodEffect}s in the order the
 * stage carries them out: the messages to other pods, the facts for the workload and node stages,
 * the timers, the timeline to publish. It changes the {@code PodsOfName} it is given and nothing
 * else; the stage stores it.
 */
public final class PodLife {

  /** Creation timestamps are whole seconds, and clocks differ a little. */
  public static final long CREATION_TOLERANCE_MS = 5_000;

  /** What an input came to: late (with the kind it is counted as), or its effects. */
  public record Step(String late, List<PodEffect> effects) {

    static Step late(String kind) {
      return new Step(kind, List.of());
    }

    public boolean isLate() {
      return late != null;
    }
  }

  /** Counted as: an observation of a pod whose final timeline went out. */
  public static final String POD_AFTER_FINAL = "pod-after-final";

  /** An event about a pod whose final timeline went out (a dead letter, not a count). */
  public static final String EVENT_AFTER_FINAL = "event-after-final";

  private final TimelineReducer reducer;
  private final long graceMs;
  private final long orphanMs;
  private final long starvationMs;

  /**
   * @param orphanMs how long inputs for a UID no observation showed wait for one
   */
  public PodLife(TimelineReducer reducer, long orphanMs) {
    this.reducer = reducer;
    this.graceMs = reducer.settings().grace().toMillis();
    this.orphanMs = orphanMs;
    this.starvationMs = reducer.settings().starvationPending().toMillis();
  }

  /**
   * An observation of a pod of this name, read when the pods stream had come to {@code
   * podsProgress}.
   */
  public Step observe(PodsOfName pods, PodObservation o, long podsProgress) {
    if (Incarnations.retired(pods, o.getUid()) != null) {
      return Step.late(POD_AFTER_FINAL);
    }
    TimelineState s = Incarnations.live(pods, o.getUid());
    if (s != null && FinalDue.passed(s, podsProgress, graceMs)) {
      return Step.late(POD_AFTER_FINAL);
    }
    if (s == null) {
      s = TimelineReducer.empty(o.getUid());
      pods.getPods().add(s);
    }
    boolean sawPod = s.getSawPod();
    boolean wasGone = s.getLifecycle().getGone();
    List<PodEffect> effects = new ArrayList<>();
    Change change = reducer.apply(s, o);
    PodMoments now = TimelineView.moments(s);
    if (!sawPod && s.getSawPod()) {
      firstSeen(pods, s, now, effects);
    }
    afterChange(s, now, change, wasGone, o.getObservedAt(), effects);
    return new Step(null, effects);
  }

  /**
   * An event about the pod {@code uid} of this name, read when the events stream had come to {@code
   * eventsProgress}. An event before the pod's first observation starts its incarnation, and its
   * orphan timer.
   */
  public Step event(PodsOfName pods, String uid, ClusterEvent e, long eventsProgress) {
    TimelineState s = Incarnations.live(pods, uid);
    if (Incarnations.retired(pods, uid) != null
        || (s != null && FinalDue.passed(s, eventsProgress, graceMs))) {
      return Step.late(EVENT_AFTER_FINAL);
    }
    List<PodEffect> effects = new ArrayList<>();
    long at = EventTimes.of(e);
    if (s == null) {
      s = TimelineReducer.empty(uid);
      s.getBookkeeping().setFirstInputAt(at);
      pods.getPods().add(s);
      effects.add(new PodEffect.CallAt(PodTimer.ORPHAN, at + orphanMs, uid));
    }
    boolean wasGone = s.getLifecycle().getGone();
    Change change = reducer.apply(s, e);
    afterChange(s, TimelineView.moments(s), change, wasGone, at, effects);
    return new Step(null, effects);
  }

  /**
   * A victim names {@code s} as its preemptor: add it, and answer who this pod is (unless the node
   * stage inferred the link: it told the victim already, and an answer to an answer would be a
   * third round the watermarks do not wait for).
   */
  public List<PodEffect> link(TimelineState s, VictimLink l) {
    List<PodEffect> effects = new ArrayList<>();
    link(s, l, effects);
    return effects;
  }

  private void link(TimelineState s, VictimLink l, List<PodEffect> effects) {
    Change change = reducer.apply(s, l);
    if (l.getInferred()) {
      List<String> owed = new ArrayList<>(s.getBookkeeping().getDetailsOwed());
      owed.removeIf(o -> o.startsWith(l.getVictimUid()));
      s.getBookkeeping().setDetailsOwed(owed);
    } else {
      for (Outbound o : change.outbound()) {
        effects.add(new PodEffect.Send(o, l.getAt()));
      }
    }
    if (change.meaningful()) {
      effects.add(new PodEffect.Publish(s, false));
    }
  }

  /** A pod first observed: its starvation timer, the links that waited for it. */
  private void firstSeen(
      PodsOfName pods, TimelineState s, PodMoments now, List<PodEffect> effects) {
    if (now.scheduledAt() == null && s.getLifecycle().getCreatedAt() != null) {
      effects.add(
          new PodEffect.CallAt(
              PodTimer.STARVE, s.getLifecycle().getCreatedAt() + starvationMs, s.getUid()));
    }
    if (!pods.getWaitingLinks().isEmpty()) {
      List<VictimLink> still = new ArrayList<>();
      for (VictimLink l : pods.getWaitingLinks()) {
        TimelineState holder = Incarnations.holderAt(pods, l.getAt(), CREATION_TOLERANCE_MS);
        if (holder == null) {
          still.add(l);
        } else {
          link(holder, l, effects);
        }
      }
      pods.setWaitingLinks(still);
    }
  }

  /**
   * After the pod's own facts changed: messages, facts, timers, the timeline if its story moved.
   */
  private void afterChange(
      TimelineState s,
      PodMoments now,
      Change change,
      boolean wasGone,
      long at,
      List<PodEffect> effects) {
    for (Outbound o : change.outbound()) {
      effects.add(new PodEffect.Send(o, at));
    }
    if (!wasGone && s.getLifecycle().getGone()) {
      long due =
          FinalDue.at(
              now.terminatedAt(),
              s.getLifecycle().getDeletedObservedAt(),
              s.getUpdatedAt(),
              graceMs);
      effects.add(new PodEffect.CallAt(PodTimer.FINAL, due, s.getUid()));
    }
    for (FactsToTell.Tell t : FactsToTell.afterChange(s, now, at)) {
      effects.add(new PodEffect.Tell(t));
    }
    // Wait a grace period for the event that names the preemptor; then ask the node.
    FactsToTell.askNodeAt(s)
        .ifPresent(t -> effects.add(new PodEffect.CallAt(PodTimer.ASK, t + graceMs, s.getUid())));
    effects.add(new PodEffect.Observed(s));
    if (change.meaningful()) {
      effects.add(new PodEffect.Publish(s, true));
    } else if (change.counters()) {
      effects.add(new PodEffect.Dirty(s));
    }
  }
}
