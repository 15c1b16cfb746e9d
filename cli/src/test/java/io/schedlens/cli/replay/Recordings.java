package io.schedlens.cli.replay;

import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.scenario.Scenario;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Recorded clusters for the replay tests: a scenario simulated and recorded as from a real cluster,
 * and the arguments of {@code ./schedlens replay} that read a recording.
 */
public final class Recordings {

  private Recordings() {}

  /** A simulation and what it recorded: the simulator (its runs) and its ground truth. */
  public record Recorded(Simulator simulator, List<PodTruth> truth, Path dir) {}

  /** Simulates {@code scenario}, ending about now, and records it in {@code dir}. */
  public static Recorded record(Scenario scenario, Path dir)
      throws IOException, InterruptedException {
    long origin = ((System.currentTimeMillis() - Simulator.span(scenario)) / 60_000) * 60_000;
    Simulator sim = new Simulator(scenario, origin);
    try (ClusterRecorder recorder =
        new ClusterRecorder(
            dir, sim.gpus(), sim.nodes(), origin, scenario.scrapeInterval().toMillis())) {
      return new Recorded(sim, sim.run(recorder, recorder, recorder, Simulator.Progress.NONE), dir);
    }
  }

  /**
   * The replay's arguments for the recording in {@code rec}, writing to {@code out}, with the
   * scenario's latency SLOs.
   */
  public static List<String> replayArgs(Path rec, Path out, Scenario scenario) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--pods", rec.resolve(ClusterRecorder.PODS).toString(),
                "--events", rec.resolve(ClusterRecorder.EVENTS).toString(),
                "--dcgm", rec.resolve(ClusterRecorder.DCGM).toString(),
                "--requests", rec.resolve(ClusterRecorder.REQUESTS).toString(),
                "--objects", rec.resolve(ClusterRecorder.OBJECTS).toString(),
                "--out", out.toString()));
    scenario
        .slos()
        .forEach((name, ms) -> args.addAll(List.of("--slo", name + "=" + Math.round(ms))));
    return args;
  }
}
