package io.schedlens.topology;

import io.schedlens.avro.internal.Watermark;
import io.schedlens.timeline.PodTimer;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The event-time protocol of a pod-stage task: its input streams' marks ({@link SourceMarks}), the
 * watermarks it hears from every task ({@link Watermarks}), its timers ({@link TimerIndex}) and the
 * watermark it broadcasts. What moves time in ({@link #mark}, {@link #heard}) calls the stage back
 * with what became due, in one fixed order; what the stage asks ({@link EventTime}) is answered
 * from the same state. See docs/developers/event-time.md.
 */
final class PodEventTime implements EventTime {

  /** A watermark that did not move is said again this often, for a task that missed it. */
  private static final long REBROADCAST_MS = 2_000;

  private final SourceMarks marks;
  private final TimerIndex timers;
  private final Watermarks heard;
  private final long graceMs;

  /** The least mark of the task's inputs, as last acted on (ASK timers fired up to it). */
  private long external;

  /** What every task of every stage answered, as last acted on (FINAL timers fired up to it). */
  private long answered = Long.MIN_VALUE;

  private long sentTime = Long.MIN_VALUE;
  private long sentAnswered = Long.MIN_VALUE;
  private long sentAtWall;

  PodEventTime(
      KeyValueStore<String, Long> marks,
      KeyValueStore<String, String> timers,
      int partitions,
      long graceMs) {
    this.marks = new SourceMarks(marks);
    this.timers = new TimerIndex(timers);
    this.heard = new Watermarks(partitions);
    this.graceMs = graceMs;
    this.external = this.marks.external();
  }

  @Override
  public boolean late(String source, long time) {
    return marks.of(source) >= time + graceMs;
  }

  @Override
  public boolean complete(long second) {
    return marks.complete(second);
  }

  @Override
  public long progress(String source) {
    return marks.of(source);
  }

  @Override
  public void callAt(PodTimer timer, long at, TimerTarget target) {
    timers.add(timer.kind(), at, target.id());
  }

  /**
   * A producer's progress mark on one of the task's inputs. When it moves the stream forward: the
   * seconds now complete (unless it is the events stream, which no second waits for), then the
   * timers on the pods stream's progress, then those on the task's input progress.
   *
   * @return whether the mark moved its stream forward
   */
  boolean mark(String source, long time, Listener listener) {
    if (!marks.advance(source, time)) {
      return false;
    }
    if (!SourceMarks.EVENTS.equals(source)) {
      long bound = marks.completeUpTo();
      if (bound != Long.MIN_VALUE) {
        listener.complete(bound);
      }
    }
    if (SourceMarks.PODS.equals(source)) {
      fire(PodTimer.STARVE, time, listener);
      fire(PodTimer.ORPHAN, time, listener);
      fire(PodTimer.FORGET, time, listener);
    }
    long e = marks.external();
    if (e > external) {
      external = e;
      fire(PodTimer.ASK, e, listener);
    }
    return true;
  }

  /** Another task's watermark: the pods' final timelines that every stage has now answered for. */
  void heard(Watermark w, Listener listener) {
    heard.heard(w);
    long a = heard.answered();
    if (a > answered) {
      answered = a;
      fire(PodTimer.FINAL, a, listener);
    }
  }

  /**
   * This task's watermark to broadcast at wall time {@code wallNow}: when it moved, and now and
   * then anyway; empty when it need not be said.
   */
  Optional<Watermark> toBroadcast(long wallNow, int partition) {
    long time = external;
    long ans = heard.firstOrder();
    if (time == sentTime && ans == sentAnswered && wallNow - sentAtWall < REBROADCAST_MS) {
      return Optional.empty();
    }
    sentTime = time;
    sentAnswered = ans;
    sentAtWall = wallNow;
    return Optional.of(Watermarks.of(Watermarks.PODS, partition, time, ans));
  }

  private void fire(PodTimer timer, long upTo, Listener listener) {
    for (String id : timers.due(timer.kind(), upTo)) {
      listener.due(timer, TimerTarget.parse(id));
    }
  }
}
