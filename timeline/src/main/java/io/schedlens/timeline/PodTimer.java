package io.schedlens.timeline;

/**
 * A pod's timers, each on the clock that fires it (docs/developers/event-time.md). The name of each
 * is what the stage's timer store keeps: renaming one loses the timers of a running app.
 */
public enum PodTimer {
  /** A pod's final timeline: its end plus the grace period, once every stage has answered. */
  FINAL("final"),
  /** A pod pending past the starvation threshold, on the pods stream's progress. */
  STARVE("starve"),
  /** Inputs for a UID never observed, on the pods stream's progress. */
  ORPHAN("orphan"),
  /** A retired incarnation's stub, on the pods stream's progress. */
  FORGET("forget"),
  /** A victim with no named preemptor asks its node, on the task's input progress. */
  ASK("ask");

  private final String kind;

  PodTimer(String kind) {
    this.kind = kind;
  }

  /** The name the timer store keeps. */
  public String kind() {
    return kind;
  }
}
