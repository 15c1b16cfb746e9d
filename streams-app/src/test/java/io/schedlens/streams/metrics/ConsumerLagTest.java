package io.schedlens.streams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class ConsumerLagTest {

  private static MetricName lag(String client, String topic, Integer partition) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("client-id", client);
    tags.put("topic", topic);
    if (partition != null) {
      tags.put("partition", partition.toString());
    }
    return new MetricName(ConsumerLag.LAG, ConsumerLag.GROUP, "", tags);
  }

  private static Metric value(double v) {
    return new Metric() {
      @Override
      public MetricName metricName() {
        return null;
      }

      @Override
      public Object metricValue() {
        return v;
      }
    };
  }

  @Test
  void shouldSumThePartitionsOfEachTopicAndLeaveOutRestorationAndUnknownLag() {
    Map<MetricName, Metric> metrics = new LinkedHashMap<>();
    metrics.put(lag("app-StreamThread-1-consumer", "schedlens.pods", 0), value(5));
    metrics.put(lag("app-StreamThread-1-consumer", "schedlens.pods", 1), value(7));
    metrics.put(lag("app-StreamThread-1-consumer", "schedlens.requests", 0), value(Double.NaN));
    metrics.put(lag("app-StreamThread-1-restore-consumer", "app-changelog", 0), value(900));
    // the per-topic aggregate without a partition tag is not summed again
    metrics.put(lag("app-StreamThread-1-consumer", "schedlens.pods", null), value(12));
    metrics.put(
        new MetricName(
            "records-lag-max", ConsumerLag.GROUP, "", Map.of("client-id", "c", "topic", "x")),
        value(3));

    assertThat(new ConsumerLag(() -> metrics).perTopic())
        .containsExactlyEntriesOf(Map.of("schedlens.pods", 12.0));
  }
}
