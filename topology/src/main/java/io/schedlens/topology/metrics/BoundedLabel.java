package io.schedlens.topology.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import java.util.HashSet;
import java.util.Set;

/**
 * A label whose values come from the cluster's own objects (a pod's {@code schedlens.io/arm} and
 * {@code schedlens.io/repeat} labels): anyone who may create a pod could otherwise make a new
 * series per pod. The first {@code max} values seen are kept (an experiment has a handful of arms
 * and repeats), and the empty value (no experiment) always; any other is reported as {@value
 * #OTHER}, and each such update counted in {@code schedlens_metric_label_overflow_total{label}}.
 * Which values are kept depends on the order the app sees them: metrics, not outputs.
 */
final class BoundedLabel {

  static final String OTHER = "_other";

  /** Longer than a Kubernetes label value: not one. */
  private static final int MAX_LENGTH = 63;

  private final String name;
  private final int max;
  private final Counter overflow;
  private final Set<String> kept = new HashSet<>();

  BoundedLabel(String name, int max, Counter overflow) {
    this.name = name;
    this.max = max;
    this.overflow = overflow;
  }

  /** The value to report for {@code value}. */
  synchronized String of(String value) {
    if (value.isEmpty() || kept.contains(value)) {
      return value;
    }
    if (value.length() <= MAX_LENGTH && kept.size() < max) {
      kept.add(value);
      return value;
    }
    overflow.labelValues(name).inc();
    return OTHER;
  }
}
