package io.schedlens.serving.gauges;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadGaugesTest {

  static WorkloadTimeline workload(String name, List<ServiceInterval> interruptions, long now) {
    return WorkloadTimeline.newBuilder()
        .setNamespace("ai-lab")
        .setKind("Deployment")
        .setName(name)
        .setPriorityClass("interactive")
        .setArm("treatment")
        .setRepeat("1")
        .setDesiredSource("observed")
        .setDesired(1)
        .setReady(0)
        .setInterruptions(interruptions)
        .setUpdatedAt(now)
        .build();
  }

  static ServiceInterval interval(long start, Long end) {
    return ServiceInterval.newBuilder()
        .setStart(start)
        .setEnd(end)
        .setDurationMs(end == null ? null : end - start)
        .setCause("eviction-api")
        .build();
  }

  @Test
  void shouldCountOnlyInterruptionsGoingOnAndTheLongestAge() {
    Map<List<String>, double[]> sums = new HashMap<>();
    WorkloadGauges.add(
        sums, workload("a", List.of(interval(0, 60_000L), interval(100_000, null)), 400_000));
    WorkloadGauges.add(sums, workload("b", List.of(interval(350_000, null)), 400_000));
    WorkloadGauges.add(sums, workload("c", List.of(interval(0, 5_000L)), 400_000));

    double[] v = sums.get(List.of("ai-lab", "interactive", "Deployment", "treatment", "1"));
    assertThat(v[0]).as("interrupted now").isEqualTo(2);
    assertThat(v[1]).as("the longest: a, 300 s").isEqualTo(300.0);
    assertThat(v[2]).as("degraded now").isZero();
  }
}
