package io.schedlens.topology;

import io.schedlens.timeline.PodTimer;

/**
 * The event-time protocol, as a stage task sees it: what a stage asks of time, and nothing else.
 * Every answer rests on progress marks and watermarks (docs/developers/event-time.md), never on a
 * clock.
 *
 * <ul>
 *   <li>{@link #late}: has the input's own stream passed its time by more than the grace period?
 *   <li>{@link #complete}: is this second complete, every input that can speak of it read?
 *   <li>{@link #callAt}: call me when this timer's clock ({@link PodTimer}) passes this time (its
 *       {@link Listener#due}); a second that was not complete when asked is called back too, when
 *       it is ({@link Listener#complete}).
 * </ul>
 */
interface EventTime {

  /** Whether an input of {@code source} at {@code time} is late: not counted, in every run. */
  boolean late(String source, long time);

  /** Whether every input that can speak of {@code second} has been read. */
  boolean complete(long second);

  /** How far {@code source} has come: its last progress mark, Long.MIN_VALUE before its first. */
  long progress(String source);

  /** Calls {@link Listener#due} for {@code target} once {@code timer}'s clock passes {@code at}. */
  void callAt(PodTimer timer, long at, TimerTarget target);

  /** What a stage is called back with. */
  interface Listener {

    /** Every second up to {@code upTo} is complete now. */
    void complete(long upTo);

    /** A timer is due. */
    void due(PodTimer timer, TimerTarget target);
  }
}
