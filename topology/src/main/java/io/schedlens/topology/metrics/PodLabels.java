package io.schedlens.topology.metrics;

import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.timeline.OwningWorkload;
import io.schedlens.timeline.TimelineSettings;

/**
 * The labels every per-pod and per-workload figure carries (docs/design.md section 5): bounded ones
 * only, never a pod name or UID.
 */
public record PodLabels(
    String namespace, String priorityClass, String workloadKind, String arm, String repeat) {

  /** A pod's labels, from its state, through {@code metrics}' bounds. */
  public static PodLabels of(TimelineState s, TimelineSettings settings, StreamsMetrics metrics) {
    WorkloadRef w = OwningWorkload.of(s.getIdentity());
    return metrics.labels(
        orEmpty(s.getIdentity().getNamespace()),
        orEmpty(s.getIdentity().getPriorityClass()),
        w == null ? "" : w.getKind(),
        orEmpty(s.getIdentity().getLabels().get(settings.armKey())),
        orEmpty(s.getIdentity().getLabels().get(settings.repeatKey())));
  }

  /** The values in the order of {@link StreamsMetrics}' per-pod label names. */
  public String[] values() {
    return new String[] {namespace, priorityClass, workloadKind, arm, repeat};
  }

  /** The values with more labels after them (an outcome; a cause and a stage). */
  public String[] and(String... extra) {
    String[] v = new String[5 + extra.length];
    System.arraycopy(values(), 0, v, 0, 5);
    System.arraycopy(extra, 0, v, 5, extra.length);
    return v;
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
