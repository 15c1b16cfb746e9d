package io.schedlens.serving.gauges;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.schedlens.avro.PodTimeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Pods pending now, the age of the oldest, and pods starving now, read from this instance's
 * published timelines when Prometheus scrapes (summed across instances in queries). Ages are in
 * event time: measured against the latest event time seen, so a replay or the accelerated demo
 * shows the ages the pods had, not wall-clock ones. Computed at most every five seconds.
 */
public final class PendingGauges {

  private final Supplier<ReadOnlyKeyValueStore<String, PodTimeline>> store;
  private final GaugeSnapshot snapshot = new GaugeSnapshot(this::compute);

  /** The latest event time of this instance's published timelines, at the last computation. */
  private volatile long eventNow;

  public PendingGauges(Supplier<ReadOnlyKeyValueStore<String, PodTimeline>> store) {
    this.store = store;
  }

  public void pending(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[0], labels.toArray(String[]::new)));
  }

  public void oldestPending(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[1], labels.toArray(String[]::new)));
  }

  public void starving(GaugeWithCallback.Callback cb) {
    current().forEach((labels, v) -> cb.call(v[2], labels.toArray(String[]::new)));
  }

  /**
   * The time the ages are measured at: the latest event time this instance has published (at most
   * five seconds old), so that the timeline pages show a live pod as the gauges do.
   */
  public long eventNow() {
    current();
    return eventNow;
  }

  private Map<List<String>, double[]> current() {
    return snapshot.current();
  }

  private Map<List<String>, double[]> compute() {
    Map<List<String>, double[]> next = new HashMap<>();
    long eventNow = 0;
    List<PodTimeline> live = new ArrayList<>();
    try (KeyValueIterator<String, PodTimeline> it = store.get().all()) {
      while (it.hasNext()) {
        PodTimeline t = it.next().value;
        eventNow = Math.max(eventNow, t.getUpdatedAt());
        if (!t.getFinal$()) {
          live.add(t);
        }
      }
    }
    this.eventNow = eventNow;
    for (PodTimeline t : live) {
      List<String> labels =
          List.of(
              t.getNamespace() == null ? "" : t.getNamespace(),
              t.getPriorityClass() == null ? "" : t.getPriorityClass(),
              t.getWorkload() == null ? "" : t.getWorkload().getKind(),
              t.getArm() == null ? "" : t.getArm(),
              t.getRepeat() == null ? "" : t.getRepeat());
      double[] v = next.computeIfAbsent(labels, l -> new double[3]);
      if ("Pending".equals(t.getOutcome()) && t.getCreatedAt() != null) {
        v[0] += 1;
        v[1] = Math.max(v[1], (eventNow - t.getCreatedAt()) / 1000.0);
      }
      if (t.getStarving()) {
        v[2] += 1;
      }
    }
    return next;
  }
}
