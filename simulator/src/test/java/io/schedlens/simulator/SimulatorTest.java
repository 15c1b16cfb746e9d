package io.schedlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.cluster.SchedulerWrites;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Whole runs of the bundled scenarios, without the pipeline: what the simulator itself promises.
 */
class SimulatorTest {

  static final long ORIGIN = 1_795_000_000_000L;

  /** Keeps what the simulator writes to the API. */
  static final class Recorder implements ClusterWriter {
    final List<Pod> podWrites = new ArrayList<>();
    final List<Event> schedulerEvents = new ArrayList<>();
    final List<io.fabric8.kubernetes.api.model.Event> kubeletEvents = new ArrayList<>();
    final List<String> deleted = new ArrayList<>();

    @Override
    public void createPod(Pod pod) {
      podWrites.add(pod);
    }

    @Override
    public void updatePod(Pod pod) {
      podWrites.add(pod);
    }

    @Override
    public void updatePodStatus(Pod pod) {
      podWrites.add(pod);
    }

    @Override
    public void deletePod(String namespace, String name) {
      deleted.add(name);
    }

    @Override
    public void schedulerEvent(Event event) {
      schedulerEvents.add(event);
    }

    @Override
    public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {
      kubeletEvents.add(event);
    }
  }

  static List<PodTruth> run(Scenario s, ClusterWriter writer) throws Exception {
    return new Simulator(s, ORIGIN)
        .run(writer, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
  }

  @Test
  void shouldGiveTheSameRunForTheSameSeed() throws Exception {
    Scenario s = ScenarioLoader.load("day08");
    assertThat(run(s, ClusterWriter.NONE)).isEqualTo(run(s, ClusterWriter.NONE));
    assertThat(run(s.withSeed(99), ClusterWriter.NONE)).isNotEqualTo(run(s, ClusterWriter.NONE));
  }

  @Test
  void shouldGiveTheArmsOfARepeatTheSameArrivalsAndWork() throws Exception {
    Scenario s = ScenarioLoader.load("pool").withRepeats(2);
    Simulator sim = new Simulator(s, ORIGIN);
    List<PodTruth> truth =
        sim.run(
            ClusterWriter.NONE, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
    // per arm and repeat: each Job's arrival (its first pod's creation) from the run's start
    Map<String, Map<String, Long>> arrivals = new TreeMap<>();
    for (ClusterRun run : sim.runs()) {
      Map<String, Long> jobs = new TreeMap<>();
      truth.stream()
          .filter(t -> t.arm().equals(run.arm().name()) && t.repeat() == run.repeat())
          .filter(t -> t.workloadKind().equals("Job"))
          .forEach(
              t ->
                  jobs.merge( // a Job's pod: the Job's name, a dash, five characters
                      t.name().substring(0, t.name().lastIndexOf('-')),
                      t.createdAt() - run.start(),
                      Math::min));
      arrivals.put(run.arm().name() + "/" + run.repeat(), jobs);
    }
    assertThat(arrivals.get("control/1")).hasSize(22).isEqualTo(arrivals.get("treatment/1"));
    assertThat(arrivals.get("control/2")).isEqualTo(arrivals.get("treatment/2"));
    assertThat(arrivals.get("control/1")).isNotEqualTo(arrivals.get("control/2"));
  }

  @Test
  void shouldNeverRunMorePodsOnAGpuThanItHas() throws Exception {
    for (String name : ScenarioLoader.BUNDLED) {
      Scenario s = ScenarioLoader.load(name);
      Map<String, Integer> capacity = new TreeMap<>();
      s.nodes()
          .forEach(
              n -> {
                for (int i = 1; i <= n.count(); i++) {
                  capacity.put(n.name() + "-" + i, n.gpus());
                }
              });
      List<PodTruth> truth = run(s, ClusterWriter.NONE);
      Map<String, List<PodTruth>> byNode =
          truth.stream()
              .filter(t -> t.runningAt() != null)
              .collect(Collectors.groupingBy(PodTruth::node));
      byNode.forEach(
          (node, ran) -> {
            // in GPU-equivalents: a MIG slice or a time-sliced replica is its part of a GPU
            List<double[]> edges = new ArrayList<>();
            for (PodTruth t : ran) {
              long end = t.terminatedAt() != null ? t.terminatedAt() : t.deletedAt();
              edges.add(new double[] {t.runningAt(), t.gpus() * t.gpuShare()});
              edges.add(new double[] {end, -t.gpus() * t.gpuShare()});
            }
            edges.sort(
                Comparator.<double[]>comparingDouble(e -> e[0]).thenComparingDouble(e -> e[1]));
            double inUse = 0;
            for (double[] e : edges) {
              inUse += e[1];
              assertThat(inUse)
                  .as(name + " " + node)
                  .isLessThanOrEqualTo(capacity.get(node) + 1e-9);
            }
          });
    }
  }

  @Test
  void shouldPreemptOnlyLowerPriorityPodsAndOnlyWithPriorityClasses() throws Exception {
    List<PodTruth> truth = run(ScenarioLoader.load("day08"), ClusterWriter.NONE);
    Map<String, PodTruth> byUid = truth.stream().collect(Collectors.toMap(PodTruth::uid, t -> t));
    assertThat(truth)
        .filteredOn(t -> t.arm().equals("control"))
        .allMatch(t -> t.preemptedAt() == null);
    List<PodTruth> victims = truth.stream().filter(t -> t.preemptorUid() != null).toList();
    assertThat(victims).isNotEmpty();
    for (PodTruth v : victims) {
      PodTruth preemptor = byUid.get(v.preemptorUid());
      assertThat(preemptor.priority()).isGreaterThan(v.priority());
      assertThat(preemptor.victims()).contains(v.uid());
      assertThat(v.outcome()).isEqualTo("Preempted");
      // The preemptor waits for its victim to stop, then binds.
      assertThat(preemptor.scheduledAt()).isGreaterThan(v.preemptedAt());
      if (v.terminatedAt() != null) {
        assertThat(preemptor.scheduledAt()).isGreaterThanOrEqualTo(v.terminatedAt());
      }
    }
  }

  /**
   * A StatefulSet's pod comes back under its name with a new UID, created only once the pod before
   * it is gone from the API (its ordinal's name is taken until then); a warm server answers its
   * first request within a second of its creation.
   */
  @Test
  void shouldRecreateAStatefulSetPodUnderItsNameOnceTheOldOneIsGone() throws Exception {
    List<PodTruth> truth = run(ScenarioLoader.load("dense"), ClusterWriter.NONE);
    Map<String, List<PodTruth>> byName =
        truth.stream()
            .filter(t -> t.workloadKind().equals("StatefulSet"))
            .collect(Collectors.groupingBy(t -> t.arm() + "/" + t.name()));
    assertThat(byName.keySet())
        .contains("control/chat-0", "control/chat-1", "treatment/asr-stream-0");
    assertThat(byName.values()).anyMatch(l -> l.size() > 1);
    for (List<PodTruth> incarnations : byName.values()) {
      List<PodTruth> ordered =
          incarnations.stream()
              .sorted(java.util.Comparator.comparing(PodTruth::createdAt))
              .toList();
      for (int i = 1; i < ordered.size(); i++) {
        PodTruth before = ordered.get(i - 1);
        assertThat(ordered.get(i).uid()).isNotEqualTo(before.uid());
        assertThat(before.deletedAt()).as(before.name() + " gone").isNotNull();
        assertThat(ordered.get(i).createdAt())
            .as("%s created after its predecessor was gone", before.name())
            .isGreaterThanOrEqualTo(before.deletedAt());
      }
    }
    assertThat(truth)
        .filteredOn(t -> t.firstOkRequestAt() != null)
        .anyMatch(t -> t.firstOkRequestAt() - t.createdAt() < 1000);
  }

  @Test
  void shouldWasteOnlyTheWorkSinceTheLastCheckpoint() throws Exception {
    for (PodTruth t : run(ScenarioLoader.load("day08"), ClusterWriter.NONE)) {
      if (t.wastedGpuSeconds() != null && t.lastCheckpointAt() != null) {
        assertThat(t.wastedGpuSeconds() * 1000)
            .isEqualTo((double) (t.terminatedAt() - t.lastCheckpointAt()) * t.gpus());
        // checkpoint interval plus the time to stop
        assertThat(t.wastedGpuSeconds()).isLessThan(4 * 60 + 5);
      }
    }
  }

  @Test
  void shouldWriteWhatTheSchedulerAndTheKubeletWrite() throws Exception {
    Recorder api = new Recorder();
    run(ScenarioLoader.load("day08"), api);

    Event preempted =
        api.schedulerEvents.stream()
            .filter(e -> e.getReason().equals("Preempted"))
            .findFirst()
            .orElseThrow();
    assertThat(preempted.getAction()).isEqualTo("Preempting");
    assertThat(preempted.getReportingController()).isEqualTo("default-scheduler");
    assertThat(preempted.getNote())
        .isEqualTo("Preempted by pod " + preempted.getRelated().getUid() + " on node gpu-node-1");
    assertThat(preempted.getEventTime().getTime()).matches("\\d{4}-.*T.*\\.\\d{6}Z");

    // The victim carries DisruptionTarget before it is deleted.
    String victim = preempted.getRegarding().getName();
    List<Pod> writes =
        api.podWrites.stream().filter(p -> p.getMetadata().getName().equals(victim)).toList();
    PodCondition disruption =
        writes.stream()
            .flatMap(p -> p.getStatus().getConditions().stream())
            .filter(c -> c.getType().equals("DisruptionTarget"))
            .findFirst()
            .orElseThrow();
    assertThat(disruption.getReason()).isEqualTo("PreemptionByScheduler");
    assertThat(disruption.getMessage())
        .isEqualTo("default-scheduler: preempting to accommodate a higher priority pod");
    Pod last = writes.get(writes.size() - 1);
    assertThat(last.getMetadata().getDeletionTimestamp())
        .matches("\\d{4}-.*T\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(last.getStatus().getPhase()).isEqualTo("Failed");
    assertThat(
            last.getStatus().getContainerStatuses().get(0).getState().getTerminated().getExitCode())
        .isEqualTo(143);
    assertThat(api.deleted).contains(victim);

    // The preemptor is nominated first.
    String preemptor = preempted.getRelated().getName();
    assertThat(api.podWrites)
        .filteredOn(p -> p.getMetadata().getName().equals(preemptor))
        .anyMatch(p -> "gpu-node-1".equals(p.getStatus().getNominatedNodeName()));

    // FailedScheduling in kube-scheduler's words, repeated as a series.
    assertThat(api.schedulerEvents)
        .filteredOn(e -> e.getReason().equals("FailedScheduling"))
        .anyMatch(e -> e.getSeries() != null && e.getSeries().getCount() > 1)
        .allMatch(
            e -> e.getNote().startsWith("0/1 nodes are available: 1 Insufficient nvidia.com/gpu."))
        .allMatch(e -> e.getType().equals("Warning") && e.getAction().equals("Scheduling"));

    // Kubelet events through core/v1, with second-granular timestamps.
    assertThat(api.kubeletEvents)
        .extracting(io.fabric8.kubernetes.api.model.Event::getReason)
        .contains("Pulling", "Pulled", "Created", "Started", "Killing");
    assertThat(api.kubeletEvents)
        .allMatch(e -> e.getSource().getComponent().equals("kubelet"))
        .allMatch(e -> e.getFirstTimestamp().matches(".*T\\d\\d:\\d\\d:\\d\\dZ"));

    // status.startTime: the kubelet acknowledged the pod before its container started.
    assertThat(api.podWrites)
        .filteredOn(p -> p.getStatus().getContainerStatuses() != null)
        .filteredOn(
            p -> p.getStatus().getContainerStatuses().get(0).getState().getRunning() != null)
        .isNotEmpty()
        .allMatch(
            p ->
                p.getStatus().getStartTime() != null
                    && p.getStatus()
                            .getStartTime()
                            .compareTo(
                                p.getStatus()
                                    .getContainerStatuses()
                                    .get(0)
                                    .getState()
                                    .getRunning()
                                    .getStartedAt())
                        <= 0);

    // Job pods checkpoint through the annotation.
    assertThat(api.podWrites)
        .anyMatch(
            p ->
                p.getMetadata().getAnnotations() != null
                    && p.getMetadata()
                        .getAnnotations()
                        .containsKey("schedlens.io/last-checkpoint"));
  }

  @Test
  void shouldNotPreemptInAnArmWherePreemptionPolicyIsNever() throws Exception {
    String yaml =
        new String(SimulatorTest.class.getResourceAsStream("/scenarios/day08.yaml").readAllBytes())
            .replace(
                "  - name: treatment\n    priorityClasses: true\n",
                "  - name: treatment\n    priorityClasses: true\n    overrides:\n      interactive: {preemptionPolicy: Never}\n");
    Scenario s = ScenarioLoader.parse("day08-never", yaml);
    Recorder api = new Recorder();
    List<PodTruth> truth = run(s, api);
    assertThat(truth).allMatch(t -> t.preemptedAt() == null);
    assertThat(api.schedulerEvents)
        .anyMatch(
            e -> e.getNote().endsWith("preemption: not eligible due to preemptionPolicy=Never."));
  }

  @Test
  void shouldDrainTheNodeThroughTheEvictionApiAndHoldReplacementsUntilItReJoins() throws Exception {
    Scenario s = ScenarioLoader.load("day08-disruptions");
    Simulator sim = new Simulator(s, ORIGIN);
    Recorder api = new Recorder();
    List<PodTruth> truth =
        sim.run(api, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
    long runLength = s.duration().toMillis() + s.gap().toMillis();
    long evicted = truth.stream().filter(t -> "Evicted".equals(t.outcome())).count();
    assertThat(evicted).as("pods on the node at the drain").isPositive();
    for (PodTruth t : truth) {
      long inRun = (t.createdAt() - ORIGIN) % runLength;
      if ("Evicted".equals(t.outcome())) {
        // evicted at the drain: deleted within its grace period after 30 minutes into the run
        long deletedInRun = (t.deletedAt() - ORIGIN) % runLength;
        assertThat(deletedInRun).as(t.name()).isBetween(30 * 60_000L, 31 * 60_000L);
      }
      if (t.scheduledAt() != null) {
        long scheduledInRun = (t.scheduledAt() - ORIGIN) % runLength;
        assertThat(scheduledInRun >= 30 * 60_000L && scheduledInRun < 34 * 60_000L)
            .as(t.name() + " scheduled while the node was cordoned, at " + scheduledInRun)
            .isFalse();
      }
      assertThat(inRun).isLessThan(s.duration().toMillis());
    }
    // the eviction is marked as the Eviction API marks it
    assertThat(api.podWrites)
        .anyMatch(
            p ->
                p.getStatus().getConditions().stream()
                    .anyMatch(
                        c ->
                            c.getType().equals("DisruptionTarget")
                                && c.getReason().equals("EvictionByEvictionAPI")));
    // replacements wait with kube-scheduler's NodeUnschedulable wording
    assertThat(api.schedulerEvents)
        .anyMatch(
            e ->
                "FailedScheduling".equals(e.getReason())
                    && e.getNote().contains("1 node(s) were unschedulable"));
  }

  @Test
  void shouldRefuseAnActionOnANodeThatDoesNotExist() {
    String yaml =
        """
        name: x
        duration: 10m
        nodes: [{name: gpu, count: 1, gpus: 1}]
        arms: [{name: a}]
        workloads: [{name: w, kind: Job, gpus: 1, work: 1m, arrival: {at: 0s}}]
        actions: [{at: 5m, drain: gpu-2}]
        """;
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScenarioLoader.parse("x.yaml", yaml))
        .hasMessageContaining("actions[0].drain")
        .hasMessageContaining("no node gpu-2");
  }

  static final String ONE_GPU_SERVICE =
      """
      name: x
      duration: 40m
      gap: 5m
      nodes: [{name: gpu, count: 1, gpus: 1}]
      arms: [{name: a}]
      workloads:
        - name: chat
          kind: Deployment
          gpus: 1
          pull: 10s
          terminationGracePeriod: 30s
          stopTime: 4s
          modelLoad: {at: 60s}
          replicas: [{at: 0s, replicas: 1}, {at: 39m, replicas: 0}]
      """;

  static Simulator simulate(String yaml, Recorder api) throws Exception {
    return simulate(yaml, api, SchedulerWrites.EVERY_ATTEMPT);
  }

  static Simulator simulate(String yaml, Recorder api, SchedulerWrites writes) throws Exception {
    Simulator sim = new Simulator(ScenarioLoader.parse("x.yaml", yaml), ORIGIN);
    sim.schedulerWrites(writes)
        .run(api, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
    return sim;
  }

  static long minutes(double m) {
    return ORIGIN + Math.round(m * 60_000);
  }

  static final String ONE_GPU_TWO_JOBS =
      """
      name: x
      duration: 90m
      gap: 5m
      nodes: [{name: gpu, count: 1, gpus: 1}]
      arms: [{name: a}]
      workloads:
        - {name: first, kind: Job, gpus: 1, work: 70m, arrival: {at: 0s}}
        - {name: second, kind: Job, gpus: 1, work: 5m, arrival: {at: 1m}}
      """;

  /** What the simulator wrote about the second Job's pod while it waited. */
  record Waiting(int attempts, List<Integer> eventCounts, List<Long> eventWrittenAt, int statuses) {

    static Waiting of(Simulator sim, Recorder api) {
      PodTruth second =
          sim.runs().get(0).truth().stream()
              .filter(t -> t.name().startsWith("second"))
              .findFirst()
              .orElseThrow();
      List<Event> events =
          api.schedulerEvents.stream()
              .filter(e -> e.getReason().equals("FailedScheduling"))
              .filter(e -> e.getRegarding().getName().equals(second.name()))
              .toList();
      int statuses =
          (int)
              api.podWrites.stream()
                  .filter(p -> p.getMetadata().getName().equals(second.name()))
                  .filter(p -> p.getSpec().getNodeName() == null) // not the binding
                  .filter(
                      p ->
                          p.getStatus().getConditions().stream()
                              .anyMatch(
                                  c ->
                                      c.getType().equals("PodScheduled")
                                          && c.getStatus().equals("False")))
                  .count();
      return new Waiting(
          second.failedSchedulingCount(),
          events.stream().map(e -> e.getSeries() == null ? 1 : e.getSeries().getCount()).toList(),
          events.stream()
              .map(
                  e ->
                      java.time.Instant.parse(
                              e.getSeries() == null
                                  ? e.getEventTime().getTime()
                                  : e.getSeries().getLastObservedTime().getTime())
                          .toEpochMilli())
              .toList(),
          statuses);
    }
  }

  @Test
  void shouldWriteEveryFailedAttemptByDefault() throws Exception {
    Recorder api = new Recorder();
    Simulator sim = simulate(ONE_GPU_TWO_JOBS, api);

    Waiting w = Waiting.of(sim, api);
    // tried at creation, after its backoffs, then every 5 minutes for about 69 minutes
    assertThat(w.attempts()).isGreaterThan(12);
    assertThat(w.eventCounts()).hasSize(w.attempts()).isSorted().endsWith(w.attempts());
    assertThat(w.statuses()).isEqualTo(w.attempts());
  }

  @Test
  void shouldWriteOnlyWhatChangesAsKubeSchedulerAndClientGoDo() throws Exception {
    Recorder api = new Recorder();
    Simulator sim = simulate(ONE_GPU_TWO_JOBS, api, SchedulerWrites.ON_CHANGE);

    Waiting w = Waiting.of(sim, api);
    assertThat(w.attempts()).isGreaterThan(12);
    // created (1), made a series (2), written again once 30 minutes later, and its last count
    // when the pod is bound: the count the pipeline keeps is the number of attempts
    assertThat(w.eventCounts()).hasSize(4).startsWith(1, 2).isSorted().endsWith(w.attempts());
    assertThat(w.eventWrittenAt().get(2) - w.eventWrittenAt().get(1))
        .isBetween(SchedulerWrites.SERIES_REFRESH_MS, SchedulerWrites.SERIES_REFRESH_MS + 300_000);
    // the condition's note never changed: one status write
    assertThat(w.statuses()).isEqualTo(1);
    // and the same run otherwise
    Simulator every = simulate(ONE_GPU_TWO_JOBS, new Recorder());
    assertThat(sim.runs().get(0).truth()).isEqualTo(every.runs().get(0).truth());
  }

  @Test
  void shouldRollOutWithMaxUnavailableByDeletingTheOldPodFirst() throws Exception {
    Recorder api = new Recorder();
    Simulator sim =
        simulate(
            ONE_GPU_SERVICE
                + "actions: [{at: 10m, rollout: chat, maxSurge: 0, maxUnavailable: 1}]\n",
            api);
    ClusterRun run = sim.runs().get(0);
    List<PodTruth> truth = run.truth();

    assertThat(truth).hasSize(2);
    PodTruth old = truth.get(0);
    PodTruth fresh = truth.get(1);
    assertThat(old.cause()).isEqualTo("rollout");
    assertThat(old.outcome()).isEqualTo("Deleted");
    assertThat(old.deletionRequestedAt()).isEqualTo(minutes(10));
    assertThat(fresh.createdAt()).isEqualTo(minutes(10));
    assertThat(fresh.name()).as("another ReplicaSet").doesNotStartWith(old.name().substring(0, 11));
    assertThat(run.interruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.cause()).isEqualTo("rollout");
              assertThat(i.start()).isEqualTo(minutes(10));
              assertThat(i.end()).isEqualTo(fresh.readyAt());
            });
  }

  @Test
  void shouldStallARolloutWithTheDefaultSurgeWhenNoGpuIsFree() throws Exception {
    // 25% of one replica: maxSurge 1, maxUnavailable 0. The new pod waits for a GPU that the old
    // one holds, and the old one waits for the new one to be Ready: no interruption, no progress.
    Recorder api = new Recorder();
    Simulator sim = simulate(ONE_GPU_SERVICE + "actions: [{at: 10m, rollout: chat}]\n", api);
    ClusterRun run = sim.runs().get(0);

    assertThat(run.interruptions()).isEmpty();
    assertThat(run.truth()).hasSize(2);
    assertThat(run.truth().get(1).scheduledAt()).as("never scheduled").isNull();
    assertThat(api.schedulerEvents)
        .anyMatch(e -> e.getNote().contains("Insufficient nvidia.com/gpu"));
  }

  @Test
  void shouldMarkPodsOfAFailedNodeNotReadyThenEvictThemByTaintAndReplaceThemAfterItReJoins()
      throws Exception {
    Recorder api = new Recorder();
    Simulator sim =
        simulate(
            ONE_GPU_SERVICE + "actions: [{at: 10m, fail: gpu-1}, {at: 20m, rejoin: gpu-1}]\n", api);
    ClusterRun run = sim.runs().get(0);
    List<PodTruth> truth = run.truth();

    PodTruth lost = truth.get(0);
    assertThat(lost.cause()).isEqualTo("taint-manager");
    assertThat(lost.outcome()).isEqualTo("Evicted");
    // node monitor grace 40 s, then the unreachable toleration of 300 s
    assertThat(lost.deletionRequestedAt()).isEqualTo(minutes(10) + 340_000);
    assertThat(lost.deletedAt()).as("gone only once the node is back").isGreaterThan(minutes(20));
    PodTruth replacement = truth.get(1);
    assertThat(replacement.createdAt()).isEqualTo(minutes(10) + 340_000);
    assertThat(replacement.scheduledAt()).isGreaterThanOrEqualTo(minutes(20));
    assertThat(run.interruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.start()).as("marked NotReady").isEqualTo(minutes(10) + 40_000);
              assertThat(i.end()).isEqualTo(replacement.readyAt());
              assertThat(i.cause()).isEqualTo("taint-manager");
            });
    assertThat(api.kubeletEvents)
        .extracting(io.fabric8.kubernetes.api.model.Event::getReason)
        .contains("NodeNotReady", "TaintManagerEviction");
    assertThat(api.podWrites)
        .anyMatch(
            p ->
                p.getStatus().getConditions().stream()
                    .anyMatch(
                        c ->
                            c.getType().equals("DisruptionTarget")
                                && c.getReason().equals("DeletionByTaintManager")));
    assertThat(api.schedulerEvents)
        .anyMatch(
            e ->
                e.getNote()
                    .contains(
                        "1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }"));
  }

  @Test
  void shouldRefuseARejoinTheTaintManagerWouldNotHaveSeen() {
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "x.yaml",
                    ONE_GPU_SERVICE
                        + "actions: [{at: 10m, fail: gpu-1}, {at: 12m, rejoin: gpu-1}]\n"))
        .hasMessageContaining("actions[1].rejoin")
        .hasMessageContaining("340 s");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "x.yaml", ONE_GPU_SERVICE + "actions: [{at: 10m, rollout: nope}]\n"))
        .hasMessageContaining("no Deployment nope");
  }

  @Test
  void shouldNotEvictWhatAPodDisruptionBudgetProtectsAndRetryTheDrain() throws Exception {
    // minAvailable 1 over one replica: the Eviction API refuses, kubectl drain retries every 5 s,
    // and the server keeps serving on the cordoned node until it is uncordoned.
    String yaml =
        ONE_GPU_SERVICE.replace(
                "replicas: [{at: 0s, replicas: 1}, {at: 39m, replicas: 0}]",
                "replicas: [{at: 0s, replicas: 1}, {at: 39m, replicas: 0}]\n"
                    + "    disruptionBudget: {minAvailable: 1}")
            + "actions: [{at: 10m, drain: gpu-1}, {at: 20m, uncordon: gpu-1}]\n";
    Recorder api = new Recorder();
    Simulator sim = simulate(yaml, api);
    ClusterRun run = sim.runs().get(0);

    assertThat(run.truth()).singleElement().satisfies(t -> assertThat(t.cause()).isNull());
    assertThat(run.interruptions()).isEmpty();
    assertThat(api.podWrites)
        .noneMatch(
            p ->
                p.getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals("DisruptionTarget")));

    // Without the budget the same drain evicts the server and interrupts the service.
    ClusterRun unprotected =
        simulate(
                ONE_GPU_SERVICE
                    + "actions: [{at: 10m, drain: gpu-1}, {at: 20m, uncordon: gpu-1}]\n",
                new Recorder())
            .runs()
            .get(0);
    assertThat(unprotected.interruptions())
        .singleElement()
        .satisfies(i -> assertThat(i.cause()).isEqualTo("eviction-api"));
  }
}
