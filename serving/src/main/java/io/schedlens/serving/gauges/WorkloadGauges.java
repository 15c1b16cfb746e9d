package io.schedlens.serving.gauges;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Workloads interrupted or degraded now, and how long the longest interruption now has lasted, read
 * from this instance's published workload timelines when Prometheus scrapes. An interruption only
 * reaches the counters when it ends; these say it is going on. Ages are in event time (the
 * workload's latest), as the pending gauges' are. Computed at most every five seconds.
 */
public final class WorkloadGauges {

  private final Supplier<ReadOnlyKeyValueStore<String, WorkloadTimeline>> store;
  private final GaugeSnapshot snapshot = new GaugeSnapshot(this::compute);

  public WorkloadGauges(Supplier<ReadOnlyKeyValueStore<String, WorkloadTimeline>> store) {
    this.store = store;
  }

  private Map<List<String>, double[]> current() {
    return snapshot.current();
  }

  public void interrupted(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[0], labels.toArray(String[]::new)));
  }

  public void interruptionAge(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[1], labels.toArray(String[]::new)));
  }

  public void degraded(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[2], labels.toArray(String[]::new)));
  }

  private Map<List<String>, double[]> compute() {
    Map<List<String>, double[]> next = new HashMap<>();
    try (KeyValueIterator<String, WorkloadTimeline> it = store.get().all()) {
      while (it.hasNext()) {
        add(next, it.next().value);
      }
    }
    return next;
  }

  /** Adds one workload's state now to the sums of its label set. */
  static void add(Map<List<String>, double[]> sums, WorkloadTimeline w) {
    List<String> labels =
        List.of(
            w.getNamespace(),
            w.getPriorityClass() == null ? "" : w.getPriorityClass(),
            w.getKind(),
            w.getArm() == null ? "" : w.getArm(),
            w.getRepeat() == null ? "" : w.getRepeat());
    double[] v = sums.computeIfAbsent(labels, l -> new double[3]);
    ServiceInterval open = openOf(w.getInterruptions());
    if (open != null) {
      v[0] += 1;
      v[1] = Math.max(v[1], Math.max(0, w.getUpdatedAt() - open.getStart()) / 1000.0);
    }
    if (openOf(w.getDegraded()) != null) {
      v[2] += 1;
    }
  }

  private static ServiceInterval openOf(List<ServiceInterval> intervals) {
    return intervals.isEmpty() || intervals.get(intervals.size() - 1).getEnd() != null
        ? null
        : intervals.get(intervals.size() - 1);
  }
}
