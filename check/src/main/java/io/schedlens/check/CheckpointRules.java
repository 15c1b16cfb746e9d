package io.schedlens.check;

import io.schedlens.base.Durations;
import io.schedlens.check.Finding.Severity;
import java.time.Duration;
import java.util.List;

/** {@code checkpoint}: a preempted GPU job loses only what it did since its last checkpoint. */
final class CheckpointRules {

  static final String CHECKPOINT_INTERVAL = "schedlens.io/checkpoint-interval";

  private CheckpointRules() {}

  static void check(Inventory inv, List<Finding> out) {
    for (Workload w : inv.workloads) {
      if (w.batch() && w.gpuIntended(inv.settings)) {
        checkpoints(w, out);
      }
    }
  }

  private static void checkpoints(Workload w, List<Finding> out) {
    long grace =
        w.spec().getTerminationGracePeriodSeconds() == null
            ? 30
            : w.spec().getTerminationGracePeriodSeconds();
    String interval = w.podAnnotations().get(CHECKPOINT_INTERVAL);
    String templateMeta = w.prefix().substring(0, w.prefix().length() - "spec".length());
    String field = templateMeta + "metadata.annotations[" + CHECKPOINT_INTERVAL + "]";
    if (interval == null) {
      out.add(
          Finding.of(
              Severity.WARNING,
              Rule.CHECKPOINT,
              w.manifest(),
              field,
              "a GPU job without a declared checkpoint interval: nobody can tell how much work a preemption throws away (without checkpoints, all of it since the start)",
              "checkpoint periodically, record each in the pod annotation schedlens.io/last-checkpoint, and declare the interval here (e.g. 5m)"));
      return;
    }
    Duration d = parseDuration(interval);
    if (d == null) {
      out.add(
          Finding.of(
              Severity.ERROR,
              Rule.CHECKPOINT,
              w.manifest(),
              field,
              "'" + interval + "' is not a duration",
              "write it as 300s, 5m or 1h"));
      return;
    }
    String graceField = w.prefix() + ".terminationGracePeriodSeconds";
    if (grace < 10) {
      out.add(
          Finding.of(
              Severity.WARNING,
              Rule.CHECKPOINT,
              w.manifest(),
              graceField,
              "a grace period of "
                  + grace
                  + " s leaves no time to write a final checkpoint on SIGTERM: a preempted pod loses up to a whole interval ("
                  + interval
                  + ")",
              "give it the time one checkpoint takes (30-60 s is common)"));
    } else if (grace > d.toSeconds()) {
      out.add(
          Finding.of(
              Severity.WARNING,
              Rule.CHECKPOINT,
              w.manifest(),
              graceField,
              "a grace period of "
                  + grace
                  + " s is longer than the checkpoint interval ("
                  + interval
                  + "): a preemptor waits longer for the GPU than the work the grace period can save",
              "shorten terminationGracePeriodSeconds to what one checkpoint takes"));
    }
  }

  /** A duration as schedlens settings write them (5m, 300s, 1h30m), or null. */
  static Duration parseDuration(String s) {
    try {
      return s.isBlank() ? null : Durations.parse(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
