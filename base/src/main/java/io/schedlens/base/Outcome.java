package io.schedlens.base;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How a pod ended, or where it is: the closed vocabulary of a pod timeline's {@code outcome},
 * shared by the streams app, the simulator's ground truth and the report.
 */
public enum Outcome {
  /** Its containers finished with success before anyone asked it to stop. */
  SUCCEEDED("Succeeded"),
  /** Its containers failed on their own. */
  FAILED("Failed"),
  /** The scheduler preempted it. */
  PREEMPTED("Preempted"),
  /** Another disruption ended it: an eviction, a taint, node pressure or shutdown, pod GC. */
  EVICTED("Evicted"),
  /** It was deleted (a scale-down, a rollout, a user). */
  DELETED("Deleted"),
  /** It runs. */
  RUNNING("Running"),
  /** It waits to be scheduled or started. */
  PENDING("Pending");

  private static final Map<String, Outcome> BY_WIRE =
      Arrays.stream(values()).collect(Collectors.toMap(o -> o.wire, Function.identity()));

  private final String wire;

  Outcome(String wire) {
    this.wire = wire;
  }

  /** The name on the wire, e.g. {@code Preempted}. */
  public String wire() {
    return wire;
  }

  /** The outcome of a wire name; an unknown name is an error (the vocabulary is closed). */
  public static Outcome of(String wire) {
    Outcome o = BY_WIRE.get(wire);
    if (o == null) {
      throw new IllegalArgumentException(
          "unknown outcome '" + wire + "'; known: " + BY_WIRE.keySet());
    }
    return o;
  }

  @Override
  public String toString() {
    return wire;
  }
}
