package io.schedlens.serving.gauges;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Values of gauges read from a state store when Prometheus scrapes: computed at most every five
 * seconds (several gauges and several scrapers share one pass over the store), and the last values
 * kept while the store cannot be queried (restoring, rebalancing).
 */
final class GaugeSnapshot {

  private static final long CACHE_MS = 5_000;

  private final Supplier<Map<List<String>, double[]>> compute;
  private long computedAt;
  private Map<List<String>, double[]> snapshot = Map.of();

  /**
   * @param compute label values to the gauges' values; may throw while the store is away
   */
  GaugeSnapshot(Supplier<Map<List<String>, double[]>> compute) {
    this.compute = compute;
  }

  synchronized Map<List<String>, double[]> current() {
    long now = System.currentTimeMillis();
    if (now - computedAt < CACHE_MS) {
      return snapshot;
    }
    computedAt = now;
    try {
      snapshot = compute.get();
    } catch (RuntimeException e) {
      // store not queryable now: keep the last values
    }
    return snapshot;
  }
}
