package io.schedlens.simulator.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording is an input of the streams app: the same scenario and seed must record the same
 * files, byte for byte (pods, events, DCGM scrapes with their noise, request logs), or two replays
 * "of the same input" would not be.
 */
class ClusterRecorderTest {

  @TempDir Path dir;

  static void record(Scenario s, Path to) throws IOException, InterruptedException {
    long origin = 1_790_000_000_000L;
    Simulator sim = new Simulator(s, origin);
    try (ClusterRecorder r =
        new ClusterRecorder(to, sim.gpus(), sim.nodes(), origin, s.scrapeInterval().toMillis())) {
      sim.run(r, r, r, Simulator.Progress.NONE);
    }
  }

  @Test
  void shouldRecordTheSameScenarioTheSameWayEveryTime() throws Exception {
    Scenario s = ScenarioLoader.load("node-failure");
    record(s, dir.resolve("a"));
    record(s, dir.resolve("b"));
    try (Stream<Path> files = Files.list(dir.resolve("a"))) {
      for (Path a : files.sorted().toList()) {
        Path b = dir.resolve("b").resolve(a.getFileName());
        assertThat(Files.size(a)).as(a.getFileName().toString()).isPositive();
        assertThat(Files.mismatch(a, b)).as(a.getFileName() + " differs at byte").isEqualTo(-1);
      }
    }
  }
}
