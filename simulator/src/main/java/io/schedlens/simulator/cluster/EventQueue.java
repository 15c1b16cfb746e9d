package io.schedlens.simulator.cluster;

import java.util.PriorityQueue;

/**
 * The discrete-event core: actions at virtual times, run in time order (and in the order they were
 * scheduled when times are equal), so that a run depends on nothing but the scenario and the seed.
 */
public final class EventQueue {

  private record Entry(long at, long seq, Runnable action) {}

  private final PriorityQueue<Entry> entries =
      new PriorityQueue<>(
          (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private long seq;
  private long now;

  public EventQueue(long start) {
    this.now = start;
  }

  /** Virtual now: the time of the action running, or of the last one. */
  public long now() {
    return now;
  }

  /** Runs {@code action} at {@code at} (not before now). */
  public void at(long at, Runnable action) {
    entries.add(new Entry(Math.max(at, now), seq++, action));
  }

  public void after(long delayMs, Runnable action) {
    at(now + delayMs, action);
  }

  /** The time of the next action, or Long.MAX_VALUE when there is none. */
  public long nextAt() {
    Entry e = entries.peek();
    return e == null ? Long.MAX_VALUE : e.at;
  }

  /** Runs the next action; false when there was none. */
  public boolean runNext() {
    Entry e = entries.poll();
    if (e == null) {
      return false;
    }
    now = e.at;
    e.action.run();
    return true;
  }
}
