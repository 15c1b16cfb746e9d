package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.Topics;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.topology.TopologySettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the pipeline observes of a simulated experiment, every arm and repeat: the simulated cluster
 * read as the collector reads one, reduced by the streams app's topology in-process (the path
 * {@code ./schedlens demo} takes, without its broker and API server). The ground against which
 * predictions are validated.
 */
public final class SimulatedExperiment {

  private final List<PodTimeline> timelines = new ArrayList<>();
  private final List<WorkloadTimeline> workloads = new ArrayList<>();

  /** Runs every arm and repeat of {@code scenario} from {@code origin} (epoch ms). */
  public SimulatedExperiment(Scenario scenario, long origin) throws IOException {
    TimelineSettings settings = TimelineSettings.defaults().withSlos(scenario.slos());
    Topics topics = Topics.defaults();
    Records records = new Records(topics, 64 * 1024);
    Simulator sim = new Simulator(scenario, origin);
    sim.gpus().unwatch();
    Path state = Files.createTempDirectory("schedlens-observed-");
    try (TopologyRun run =
        new TopologyRun(
            topics, records, TopologySettings.defaults().withTimeline(settings), sim::now, state)) {
      PredictedInputs inputs =
          new PredictedInputs(records, WhatIf.labelKeys(settings), sim::now, run);
      sim.run(inputs, inputs, Simulator.Pacer.NONE, Simulator.Progress.NONE);
      run.finish();
      timelines.addAll(run.timelines().values());
      workloads.addAll(run.workloads().values());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      WhatIf.deleteTree(state);
    }
  }

  /** The final timelines of the pods of one arm. */
  public List<PodTimeline> arm(String arm) {
    return timelines.stream().filter(t -> arm.equals(t.getArm())).toList();
  }

  /** Every workload timeline (a Deployment applied once has one for all runs). */
  public List<WorkloadTimeline> workloads() {
    return List.copyOf(workloads);
  }

  /** The observed runs of one arm. */
  public List<ObservedRun> runs(String arm) {
    return ObservedRun.of(arm(arm), workloads);
  }
}
