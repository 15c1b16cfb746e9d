package io.schedlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorTest {

  static final long ORIGIN = 1_795_000_000_000L;

  static List<PodTruth> run(Scenario s) throws Exception {
    return new Simulator(s, ORIGIN)
        .run(ClusterWriter.NONE, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
  }

  @Test
  void shouldPrintDay08() throws Exception {
    List<PodTruth> truth = run(ScenarioLoader.load("day08"));
    for (PodTruth t : truth) {
      System.out.printf(
          "%-9s r%d %-22s %-40s pend=%s run=%s ready=%s ok=%s end=%s pre=%s by=%s wasted=%s fs=%d req=%d out=%s%n",
          t.arm(),
          t.repeat(),
          t.workload(),
          t.name(),
          t.pendingMs() == null ? null : t.pendingMs() / 1000,
          t.runningAt() == null ? null : (t.runningAt() - t.createdAt()) / 1000,
          t.readyAt() == null ? null : (t.readyAt() - t.createdAt()) / 1000,
          t.firstOkRequestAt() == null ? null : (t.firstOkRequestAt() - t.createdAt()) / 1000,
          t.terminatedAt() == null ? null : (t.terminatedAt() - t.createdAt()) / 1000,
          t.preemptedAt() == null ? null : (t.preemptedAt() - t.createdAt()) / 1000,
          t.preemptorUid() == null ? null : t.preemptorUid().substring(0, 8),
          t.wastedGpuSeconds(),
          t.failedSchedulingCount(),
          t.requests(),
          t.outcome());
    }
    assertThat(truth).isNotEmpty();
  }
}
