package io.schedlens.serving.pages;

/**
 * The part of a series point's step that lies within the pod's life: where the point is drawn (its
 * middle) and what a rate divides by. A step is aligned to the epoch, so the first and last steps
 * of a life stick out of it; a point drawn at the middle of its whole step would put a 17-second
 * pod's requests after its end. A step wholly outside the life (an input after the end the page
 * shows) is drawn where it is.
 *
 * @param from start of the part, epoch ms
 * @param to end of the part, epoch ms (after {@code from})
 */
record StepInLife(long from, long to) {

  static StepInLife of(long at, long stepMs, long lifeFrom, long lifeTo) {
    long a = Math.max(at, lifeFrom);
    long b = Math.min(at + stepMs, lifeTo);
    return b > a ? new StepInLife(a, b) : new StepInLife(at, at + stepMs);
  }

  /** Where the point is drawn on {@code axis}. */
  double x(TimeAxis axis) {
    return axis.x(from + (to - from) / 2);
  }

  /** Seconds the point stands for: what its counts are divided by for a rate. */
  double seconds() {
    return (to - from) / 1000.0;
  }
}
