package io.schedlens.simulator;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.EventQueue;
import io.schedlens.simulator.cluster.GpuView;
import io.schedlens.simulator.cluster.Names;
import io.schedlens.simulator.cluster.NodeObjects;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.cluster.SchedulerWrites;
import io.schedlens.simulator.cluster.SimNode;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Runs a scenario: every arm of every repeat, one after another in virtual time (a run, then the
 * scenario's gap), each on an empty cluster. Deterministic: the same scenario and seed give the
 * same runs, whatever the pace.
 */
public final class Simulator {

  /** Waits until virtual time {@code at} is due (live runs), or not at all (what-if runs). */
  public interface Pacer {
    void awaitVirtual(long at) throws InterruptedException;

    Pacer NONE = at -> {};
  }

  /** Told what happens, for progress lines. */
  public interface Progress {
    void runStarted(ClusterRun run, int index, int total);

    void runFinished(ClusterRun run, int index, int total, List<PodTruth> truth);

    Progress NONE =
        new Progress() {
          @Override
          public void runStarted(ClusterRun run, int index, int total) {}

          @Override
          public void runFinished(ClusterRun run, int index, int total, List<PodTruth> truth) {}
        };
  }

  private final Scenario scenario;
  private final long origin;
  private final EventQueue queue;
  private final GpuView gpus = new GpuView();
  private SchedulerWrites schedulerWrites = SchedulerWrites.EVERY_ATTEMPT;
  private final List<SimNode> nodes = new ArrayList<>();
  private final List<ClusterRun> runs = new ArrayList<>();

  /**
   * @param origin virtual epoch ms at which the first run starts
   */
  public Simulator(Scenario scenario, long origin) {
    this.scenario = scenario;
    this.origin = origin;
    this.queue = new EventQueue(origin);
    Names names = new Names(new SplittableRandom(scenario.seed() ^ 0x6e6f646573L));
    for (NodePool pool : scenario.nodes()) {
      for (int i = 1; i <= pool.count(); i++) {
        List<String> uuids = new ArrayList<>();
        for (int g = 0; g < pool.gpus(); g++) {
          uuids.add(names.gpuUuid());
        }
        nodes.add(
            new SimNode(
                pool.name() + "-" + i,
                pool.gpus(),
                pool.gpuModel(),
                pool.labels(),
                pool.taints(),
                uuids,
                pool.layout()));
      }
    }
  }

  /** Virtual time the whole experiment spans (all runs and gaps). */
  public static long span(Scenario s) {
    int runs = s.repeats() * s.arms().size();
    return runs * (s.duration().toMillis() + s.gap().toMillis());
  }

  public List<SimNode> nodes() {
    return List.copyOf(nodes);
  }

  public GpuView gpus() {
    return gpus;
  }

  /**
   * A pool's GPUs as the experiment's description says them: "8 GPU", "8 GPU, 2 as 14 × 1g.10gb".
   */
  private static String gpus(NodePool n) {
    Scenario.GpuLayout l = n.layout();
    String out = n.gpus() + " GPU";
    if (l.migProfile() != null) {
      out += ", " + l.migGpus() + " as " + n.devices(l.migResource()) + " × " + l.migProfile();
    }
    if (l.replicas() > 1) {
      out += ", time-sliced × " + l.replicas();
    }
    return out;
  }

  /** How the scheduler writes failed attempts; default {@link SchedulerWrites#EVERY_ATTEMPT}. */
  public Simulator schedulerWrites(SchedulerWrites writes) {
    this.schedulerWrites = writes;
    return this;
  }

  /** The runs, in order, once {@link #run} has started. */
  public List<ClusterRun> runs() {
    return List.copyOf(runs);
  }

  /** Number of runs: repeats × arms. */
  public int runCount() {
    return scenario.repeats() * scenario.arms().size();
  }

  public long origin() {
    return origin;
  }

  /** Virtual now. */
  public long now() {
    return queue.now();
  }

  /**
   * Runs every run to its end, writing the cluster to {@code api}, request logs to {@code
   * requests}, pacing virtual time with {@code pacer}; returns the ground truth of every pod.
   */
  public List<PodTruth> run(ClusterWriter api, RequestSink requests, Pacer pacer, Progress progress)
      throws InterruptedException {
    long runLength = scenario.duration().toMillis() + scenario.gap().toMillis();
    for (SimNode node : nodes) {
      if (!node.layout().equals(Scenario.GpuLayout.WHOLE)) {
        // GPU feature discovery's labels say how a shared node's GPUs are offered
        api.applyObject(NodeObjects.node(node, origin));
      }
    }
    runs.clear();
    int k = 0;
    for (int repeat = 1; repeat <= scenario.repeats(); repeat++) {
      for (Arm arm : scenario.armOrder(repeat)) {
        runs.add(
            new ClusterRun(
                    scenario,
                    arm,
                    repeat,
                    origin + k * runLength,
                    queue,
                    api,
                    requests,
                    gpus,
                    nodes)
                .schedulerWrites(schedulerWrites));
        k++;
      }
    }
    api.applyObject(experimentConfigMap(scenario));
    List<PodTruth> all = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      ClusterRun run = runs.get(i);
      if (i > 0 && !runs.get(i - 1).drained()) {
        throw new IllegalStateException(
            "run "
                + i
                + " would start while pods of the previous run are still terminating; make the"
                + " scenario's gap longer than the longest terminationGracePeriod");
      }
      run.schedule();
      progress.runStarted(run, i + 1, runs.size());
      long until = run.end() + scenario.gap().toMillis();
      while (queue.nextAt() < until) {
        pacer.awaitVirtual(queue.nextAt());
        queue.runNext();
      }
      pacer.awaitVirtual(until);
      List<PodTruth> truth = run.truth();
      all.addAll(truth);
      progress.runFinished(run, i + 1, runs.size(), truth);
    }
    return all;
  }

  /**
   * Runs {@code arm} once, as repeat {@code repeat}, from this simulator's origin to the end of the
   * scenario's duration and gap, without the experiment ConfigMap (a what-if run of one observed
   * run: its pods carry the observed repeat). Returns the ground truth of its pods.
   */
  public List<PodTruth> runOnce(Arm arm, int repeat, ClusterWriter api, RequestSink requests) {
    ClusterRun run =
        new ClusterRun(scenario, arm, repeat, origin, queue, api, requests, gpus, nodes);
    run.schedulerWrites(schedulerWrites);
    runs.clear();
    runs.add(run);
    run.schedule();
    long until = run.end() + scenario.gap().toMillis();
    while (queue.nextAt() < until) {
      queue.runNext();
    }
    return run.truth();
  }

  /**
   * The experiment's ConfigMap, labelled {@code schedlens.io/experiment}, as the platform team
   * writes it before the runs: the scenario's stated conditions (or, without them, what the
   * scenario itself says of its arms and cluster) and the repeats.
   */
  static ConfigMap experimentConfigMap(Scenario s) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(
        "change",
        s.conditions()
            .getOrDefault(
                "change",
                "arms: "
                    + String.join(
                        ", ",
                        s.arms().stream()
                            .map(
                                a ->
                                    a.name()
                                        + (a.priorityClasses()
                                            ? " (PriorityClasses)"
                                            : " (no PriorityClasses)"))
                            .toList())));
    data.put(
        "fixed",
        s.conditions()
            .getOrDefault(
                "fixed",
                "nodes: "
                    + String.join(
                        ", ",
                        s.nodes().stream()
                            .map(n -> n.count() + " × " + n.name() + " (" + gpus(n) + ")")
                            .toList())
                    + "; workloads: "
                    + String.join(
                        ", ", s.workloads().stream().map(Scenario.Workload::name).toList())));
    data.put(
        "metrics",
        s.conditions()
            .getOrDefault(
                "metrics",
                "pending, time to Ready and to the first OK request, SLO breaches, preemptions,"
                    + " wasted GPU work, starvation, service interruption"));
    s.conditions().forEach(data::putIfAbsent);
    data.put("repeats", Integer.toString(s.repeats()));
    return new ConfigMapBuilder()
        .withApiVersion("v1")
        .withKind("ConfigMap")
        .withNewMetadata()
        .withNamespace(s.namespace())
        .withName(s.experiment())
        .addToLabels("schedlens.io/experiment", s.experiment())
        .endMetadata()
        .withData(data)
        .build();
  }
}
