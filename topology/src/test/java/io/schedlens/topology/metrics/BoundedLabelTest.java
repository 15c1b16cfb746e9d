package io.schedlens.topology.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

/** Whoever may create pods names the arm and repeat values: the series stay bounded. */
class BoundedLabelTest {

  @Test
  void shouldKeepTheFirstValuesAndReportTheRestAsOtherCountingThem() {
    StreamsMetrics metrics = new StreamsMetrics(new PrometheusRegistry(), 2, 3);
    assertThat(metrics.labels("ns", "pc", "Job", "control", "1").arm()).isEqualTo("control");
    assertThat(metrics.labels("ns", "pc", "Job", "treatment", "2").arm()).isEqualTo("treatment");
    assertThat(metrics.labels("ns", "pc", "Job", "control", "3").repeat()).isEqualTo("3");
    PodLabels past = metrics.labels("ns", "pc", "Job", "attacker-1", "4");
    assertThat(past.arm()).isEqualTo(BoundedLabel.OTHER);
    assertThat(past.repeat()).isEqualTo(BoundedLabel.OTHER);
    assertThat(metrics.labels("ns", "pc", "Job", "", "").arm())
        .as("no experiment, always")
        .isEmpty();
    assertThat(metrics.labels("ns", "pc", "Job", "x".repeat(64), "1").arm())
        .isEqualTo(BoundedLabel.OTHER);
    for (int i = 0; i < 1000; i++) {
      metrics.labels("ns", "pc", "Job", "pod-made-" + i, "r" + i);
    }
    assertThat(metrics.labelOverflow.labelValues("arm").get()).isEqualTo(1002.0);
    assertThat(metrics.labelOverflow.labelValues("repeat").get()).isEqualTo(1001.0);
    assertThat(metrics.labels("ns", "pc", "Job", "treatment", "1").arm())
        .as("the kept ones stay")
        .isEqualTo("treatment");
  }
}
