package io.schedlens.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.timeline.FactsToTell;
import io.schedlens.timeline.FinalDue;
import io.schedlens.timeline.Incarnations;
import io.schedlens.timeline.PodTimer;
import io.schedlens.timeline.TimelineView;
import io.schedlens.topology.metrics.PodMetrics;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * What the pod stage does when a pod's timer is due (in event time): publish its final timeline and
 * retire it, flag it starving, ask its node for its preemptor, dead-letter an orphan, forget a
 * retired incarnation.
 */
final class PodTimers {

  /** Publishes a pod's timeline; returns it, or null for a UID no observation showed yet. */
  @FunctionalInterface
  interface Publisher {
    PodTimeline publish(TimelineState s, boolean isFinal);
  }

  private final HotStore<PodsOfName> names;
  private final PodSeriesStore series;
  private final PodStageOutputs out;
  private final PodEventTime eventTime;
  private final PodMetrics podMetrics;
  private final Set<String> dirty;
  private final Publisher emit;
  private final long graceMs;
  private final Duration orphanTimeout;
  private final long orphanMs;

  PodTimers(
      HotStore<PodsOfName> names,
      PodSeriesStore series,
      PodStageOutputs out,
      PodEventTime eventTime,
      PodMetrics podMetrics,
      Set<String> dirty,
      Publisher emit,
      long graceMs,
      Duration orphanTimeout) {
    this.names = names;
    this.series = series;
    this.out = out;
    this.eventTime = eventTime;
    this.podMetrics = podMetrics;
    this.dirty = dirty;
    this.emit = emit;
    this.graceMs = graceMs;
    this.orphanTimeout = orphanTimeout;
    this.orphanMs = orphanTimeout.toMillis();
  }

  /**
   * @param podsProgress how far the pods stream has come
   */
  void due(PodTimer timer, TimerTarget target, long podsProgress) {
    switch (timer) {
      case FINAL -> finalTimeline(target);
      case STARVE -> starve(target);
      case ORPHAN -> orphan(target, podsProgress);
      case FORGET -> forget(target);
      case ASK -> ask(target);
    }
  }

  private void finalTimeline(TimerTarget id) {
    PodsOfName pods = names.get(id.key());
    TimelineState s = pods == null ? null : Incarnations.live(pods, id.uid());
    if (s == null) {
      return;
    }
    PodTimeline t = emit.publish(s, true);
    if (t != null) {
      podMetrics.finished(s, t);
      if (t.getPreemptedAt() != null && !s.getBookkeeping().getPreemptionEmitted()) {
        s.getBookkeeping().setPreemptionEmitted(true);
        out.preemption(s.getUid(), TimelineView.preemption(s, t), t.getPreemptedAt());
      }
    }
    long finalAt = FinalDue.at(s, graceMs);
    Incarnations.retire(pods, s, finalAt);
    series.dropped(s);
    eventTime.callAt(PodTimer.FORGET, finalAt + orphanMs, id);
    dirty.remove(id.id());
    names.put(id.key(), pods);
  }

  private void starve(TimerTarget id) {
    PodsOfName pods = names.get(id.key());
    TimelineState s = pods == null ? null : Incarnations.live(pods, id.uid());
    if (s != null
        && !s.getLifecycle().getGone()
        && TimelineView.scheduledAt(s) == null
        && !s.getScheduling().getStarvingFlagged()) {
      s.getScheduling().setStarvingFlagged(true);
      emit.publish(s, false);
      names.put(id.key(), pods);
    }
  }

  private void ask(TimerTarget id) {
    PodsOfName pods = names.get(id.key());
    TimelineState s = pods == null ? null : Incarnations.live(pods, id.uid());
    if (s == null) {
      return;
    }
    Optional<FactsToTell.ToNode> q = FactsToTell.victimQuestion(s);
    if (q.isPresent()) {
      out.tell(q.get());
      names.put(id.key(), pods);
    }
  }

  private void orphan(TimerTarget id, long podsProgress) {
    PodsOfName pods = names.get(id.key());
    TimelineState s = pods == null ? null : Incarnations.live(pods, id.uid());
    if (s == null || s.getSawPod()) {
      return;
    }
    Incarnations.drop(pods, s);
    series.dropped(s);
    dirty.remove(id.id());
    names.put(id.key(), pods);
    out.deadLetter(
        PodDeadLetters.orphan(s, id.key(), orphanTimeout, podsProgress), s.getUpdatedAt(), 1);
  }

  private void forget(TimerTarget id) {
    PodsOfName pods = names.get(id.key());
    if (pods == null) {
      return;
    }
    if (Incarnations.forget(pods, id.uid())) {
      names.delete(id.key());
    } else {
      names.put(id.key(), pods);
    }
  }
}
