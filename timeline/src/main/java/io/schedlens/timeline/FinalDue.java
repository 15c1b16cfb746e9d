package io.schedlens.timeline;

import io.schedlens.avro.internal.TimelineState;

/**
 * When a gone pod's final timeline is due: its end (or, when it was seen gone later, that) plus the
 * grace period, in event time. From the pod's own facts only, so the same in every run; an input
 * that comes after its partition's progress passed that time comes after the final, whatever the
 * speed it was read at.
 */
public final class FinalDue {

  private FinalDue() {}

  /** The event time the pod's final timeline is due at (for a gone pod). */
  public static long at(TimelineState s, long graceMs) {
    return at(
        TimelineView.terminatedAt(s),
        s.getLifecycle().getDeletedObservedAt(),
        s.getUpdatedAt(),
        graceMs);
  }

  /**
   * The same from the pod's end ({@link TimelineView#terminatedAt}), when its deletion was seen and
   * when its state last changed.
   */
  static long at(Long terminatedAt, Long deletedObservedAt, long updatedAt, long graceMs) {
    long base = terminatedAt == null ? Long.MIN_VALUE : terminatedAt;
    if (deletedObservedAt != null) {
      base = Math.max(base, deletedObservedAt);
    }
    if (base == Long.MIN_VALUE) {
      base = updatedAt;
    }
    return base + graceMs;
  }

  /** Whether an input after {@code mark} on its partition comes after the pod's final is due. */
  public static boolean passed(TimelineState s, long mark, long graceMs) {
    return s.getLifecycle().getGone() && mark >= at(s, graceMs);
  }
}
