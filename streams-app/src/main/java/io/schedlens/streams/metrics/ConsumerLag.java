package io.schedlens.streams.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Consumer lag of this instance's input partitions, in records, summed per topic: read from the
 * Kafka consumer's own {@code records-lag} metric (group {@code consumer-fetch-manager-metrics}),
 * which the fetcher keeps per assigned partition. The restore consumer's lag (state restoration) is
 * left out: it is not input waiting to be processed.
 */
public final class ConsumerLag {

  static final String GROUP = "consumer-fetch-manager-metrics";
  static final String LAG = "records-lag";

  private final Supplier<Map<MetricName, ? extends Metric>> metrics;

  public ConsumerLag(Supplier<Map<MetricName, ? extends Metric>> metrics) {
    this.metrics = metrics;
  }

  /** Sum of the lag per topic; partitions whose lag is not known yet count as nothing. */
  public Map<String, Double> perTopic() {
    Map<String, Double> lag = new TreeMap<>();
    for (var e : metrics.get().entrySet()) {
      MetricName n = e.getKey();
      String topic = n.tags().get("topic");
      String client = n.tags().getOrDefault("client-id", "");
      if (!LAG.equals(n.name())
          || !GROUP.equals(n.group())
          || topic == null
          || n.tags().get("partition") == null
          || client.endsWith("restore-consumer")) {
        continue;
      }
      if (e.getValue().metricValue() instanceof Double v && !v.isNaN()) {
        lag.merge(topic, v, Double::sum);
      }
    }
    return lag;
  }

  public void report(GaugeWithCallback.Callback cb) {
    perTopic().forEach((topic, v) -> cb.call(v, topic));
  }
}
