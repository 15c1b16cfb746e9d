package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.records.Records;
import io.schedlens.report.PodFacts;
import io.schedlens.schemas.TemplateHashNames;
import io.schedlens.schemas.Topics;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.SchedulerWrites;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.topology.TopologySettings;
import io.schedlens.whatif.ObservedArrivals.RunScenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Counterfactual policy replay: each observed run's arrivals ({@link ObservedArrivals}) run again
 * under a policy on the simulator's scheduler and controllers, what the simulated cluster writes
 * read as the collector reads a cluster ({@link PredictedInputs}) and reduced by the streams app's
 * own topology ({@link TopologyRun}). Deterministic: the same timelines and policy give the same
 * predicted timelines, byte for byte.
 */
public final class WhatIf {

  /** The arm every predicted timeline carries. */
  public static final String PREDICTED = "predicted";

  /** The annotation a Job pod's process writes its last checkpoint time to. */
  static final String CHECKPOINT_ANNOTATION = "schedlens.io/last-checkpoint";

  /** Told what happens, for progress lines. */
  public interface Progress {
    void runPredicted(int index, int total, ObservedRun run, Prediction prediction);

    /**
     * While run {@code index} is predicted, at each tenth of its virtual time: how much of it is
     * simulated and how many collector records the topology has been given so far.
     */
    default void simulated(
        int index, int total, ObservedRun run, Duration done, Duration of, long inputs) {}

    Progress NONE = (index, total, run, prediction) -> {};
  }

  /** How often, in tenths of a run's virtual time, {@link Progress#simulated} is told. */
  private static final int PROGRESS_STEPS = 10;

  /**
   * One observed run, predicted.
   *
   * @param timelines the predicted pods' final timelines, by UID
   * @param workloads the predicted workloads' timelines
   * @param inputs the collector records the simulated cluster gave the topology
   */
  public record Prediction(
      ObservedRun observed,
      RunScenario scenario,
      Map<String, PodTimeline> timelines,
      List<WorkloadTimeline> workloads,
      long inputs) {}

  private final Policy policy;
  private final TimelineSettings settings;
  private final List<String> labelKeys;
  private final Function<ObservedRun, Duration> runLength;
  private Path workDir;

  /**
   * @param settings the timeline settings the observed timelines were computed with (grace,
   *     starvation, label keys; SLOs of the observed pods are added per service)
   */
  public WhatIf(Policy policy, TimelineSettings settings) {
    this(policy, settings, (Duration) null);
  }

  /**
   * @param runLength how long each run lasts from its first pod's creation (an experiment's run
   *     length); null: until its last observed pod ended
   */
  public WhatIf(Policy policy, TimelineSettings settings, Duration runLength) {
    this(policy, settings, run -> runLength);
  }

  /**
   * @param runLength how long each run lasts from its first pod's creation; null (or a null
   *     answer): until its last observed pod ended
   */
  public WhatIf(
      Policy policy, TimelineSettings settings, Function<ObservedRun, Duration> runLength) {
    this.runLength = runLength == null ? run -> null : runLength;
    this.policy = policy;
    this.settings = settings;
    this.labelKeys = labelKeys(settings);
  }

  /** The pod labels the collector carries: the experiment, arm, repeat and application keys. */
  static List<String> labelKeys(TimelineSettings settings) {
    List<String> keys =
        new ArrayList<>(
            List.of(
                settings.experimentKey(),
                settings.armKey(),
                settings.repeatKey(),
                TemplateHashNames.DEPLOYMENT_HASH,
                TemplateHashNames.ROLLOUT_HASH));
    keys.addAll(settings.applicationKeys());
    return keys;
  }

  /**
   * Where the topology's stores live while a run is predicted (a directory of its own is made and
   * removed in it per run); default: the system's temporary directory.
   */
  public WhatIf workDir(Path dir) {
    this.workDir = dir;
    return this;
  }

  /** Predicts every run, in order. */
  public List<Prediction> predict(List<ObservedRun> runs, Progress progress) {
    List<NodePool> nodes = ObservedArrivals.nodes(policy, runs);
    if (nodes.isEmpty()) {
      throw new PolicyException(
          "no node to run on: no observed pod was scheduled, and the policy names no nodes; add"
              + " nodes: [{name: gpu-node, count: N, gpus: G}] to the policy");
    }
    List<Prediction> out = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      int index = i + 1;
      ObservedRun run = runs.get(i);
      Prediction p =
          predict(
              run,
              nodes,
              (done, of, inputs) -> progress.simulated(index, runs.size(), run, done, of, inputs));
      out.add(p);
      progress.runPredicted(index, runs.size(), run, p);
    }
    return out;
  }

  /** How far one run's simulation has come. */
  private interface Simulated {
    void at(Duration done, Duration of, long inputs);
  }

  private Prediction predict(ObservedRun run, List<NodePool> nodes, Simulated simulated) {
    RunScenario rs = ObservedArrivals.of(run, policy, nodes, runLength.apply(run));
    Map<String, Double> slos = new HashMap<>(settings.slosMs());
    slos.putAll(rs.scenario().slos());
    TopologySettings topology = TopologySettings.defaults().withTimeline(settings.withSlos(slos));
    Topics topics = Topics.defaults();
    Records records = new Records(topics, 64 * 1024);
    Simulator sim = new Simulator(rs.scenario(), run.start());
    sim.gpus().unwatch();
    sim.schedulerWrites(SchedulerWrites.ON_CHANGE);
    Path state = tempDir(workDir);
    try (TopologyRun topologyRun = new TopologyRun(topics, records, topology, sim::now, state)) {
      long start = run.start();
      Duration span = Duration.ofMillis(Math.max(1, rs.scenario().duration().toMillis()));
      long step = Math.max(1, span.toMillis() / PROGRESS_STEPS);
      long[] next = {start + step};
      long[] given = {0};
      PredictedInputs inputs =
          new PredictedInputs(
              records,
              labelKeys,
              sim::now,
              o -> {
                topologyRun.accept(o);
                given[0]++;
                long now = sim.now();
                if (now >= next[0] && now < start + span.toMillis()) {
                  simulated.at(Duration.ofMillis(now - start), span, given[0]);
                  next[0] = start + ((now - start) / step + 1) * step;
                }
              });
      sim.runOnce(rs.scenario().arms().get(0), run.repeatNumber(), inputs, inputs);
      topologyRun.finish();
      Map<String, PodTimeline> timelines = new HashMap<>();
      for (PodTimeline t : topologyRun.timelines().values()) {
        mark(t, rs, run);
        timelines.put(t.getUid(), t);
      }
      List<WorkloadTimeline> workloads = new ArrayList<>();
      for (WorkloadTimeline w : topologyRun.workloads().values()) {
        w.setArm(PREDICTED);
        w.setRepeat(run.repeat());
        String app = rs.applications().get(w.getName());
        if (app != null) {
          w.setApplication(app);
        }
        workloads.add(w);
      }
      return new Prediction(run, rs, timelines, workloads, topologyRun.piped());
    } finally {
      deleteTree(state);
    }
  }

  /** Marks a predicted timeline as predicted, of its observed repeat and application. */
  private static void mark(PodTimeline t, RunScenario rs, ObservedRun run) {
    t.setArm(PREDICTED);
    t.setRepeat(run.repeat());
    t.setExperiment(run.experiment());
    if (t.getWorkload() != null) {
      String app = rs.applications().get(t.getWorkload().getName());
      if (app != null) {
        t.setApplication(app);
      }
    }
  }

  /** The facts of the observed pods (arm {@code observed}) and of the predicted ones. */
  public static List<PodFacts> facts(
      Collection<ObservedRun> observed, Collection<Prediction> predicted, String observedArm) {
    List<PodFacts> out = new ArrayList<>();
    for (ObservedRun run : observed) {
      for (PodTimeline t : run.pods()) {
        out.add(relabel(PodFacts.of(t), observedArm));
      }
    }
    for (Prediction p : predicted) {
      p.timelines().values().stream()
          .sorted(
              Comparator.comparing(PodTimeline::getCreatedAt).thenComparing(PodTimeline::getUid))
          .forEach(t -> out.add(PodFacts.of(t)));
    }
    return out;
  }

  /** The same facts under another arm's name. */
  public static PodFacts relabel(PodFacts f, String arm) {
    return new PodFacts(
        arm,
        f.repeat(),
        f.workload(),
        f.workloadKind(),
        f.priorityClass(),
        f.pendingMs(),
        f.neverScheduled(),
        f.timeToReadyMs(),
        f.timeToFirstOkMs(),
        f.preempted(),
        f.wastedGpuSeconds(),
        f.requests(),
        f.sloBreaches(),
        f.starving(),
        f.outcome(),
        f.restarts(),
        f.queueWaitMs(),
        f.queuePreempted());
  }

  static Path tempDir(Path in) {
    try {
      if (in != null) {
        Files.createDirectories(in);
        return Files.createTempDirectory(in, "topology-");
      }
      return Files.createTempDirectory("schedlens-whatif-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a state directory for the topology", e);
    }
  }

  static void deleteTree(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing a prediction over
    }
  }
}
