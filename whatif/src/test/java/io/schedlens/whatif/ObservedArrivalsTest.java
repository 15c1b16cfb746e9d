package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The arrivals of a run, from timelines written as the pipeline writes them. */
class ObservedArrivalsTest {

  static final long T0 = 1_796_236_000_000L;

  static final PodTimeline POD;
  static final WorkloadTimeline DEPLOYMENT;

  static {
    try {
      POD = TimelinesFile.read(Path.of("src/test/resources/job-pod.json")).get(0);
      DEPLOYMENT = WorkloadsFile.read(Path.of("src/test/resources/deployment.json")).get(0);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static final Policy POLICY =
      PolicyLoader.parse(
          "test",
          """
          name: test
          workloads:
            train: {setup: 30s, checkpointEvery: 2m}
          nodes: [{name: gpu, count: 1, gpus: 2}]
          """);

  /** A Job pod: created, running and ended at seconds after T0. */
  static PodTimeline pod(
      String uid, String job, long created, Long running, Long ended, String outcome) {
    return PodTimeline.newBuilder(POD)
        .setUid(uid)
        .setName(job + "-" + uid)
        .setWorkload(new WorkloadRef("Job", job))
        .setApplication(job)
        .setArm("control")
        .setRepeat("1")
        .setCreatedAt(T0 + created * 1000)
        .setScheduledAt(running == null ? null : T0 + created * 1000 + 100)
        .setRunningAt(running == null ? null : T0 + running * 1000)
        .setStartupMs(running == null ? null : (running - created) * 1000 - 100)
        .setTerminatedAt(ended == null ? null : T0 + ended * 1000)
        .setOutcome(outcome)
        .setGpus(1)
        .setWastedGpuSeconds(null)
        .setDisruption(null)
        .build();
  }

  @Test
  void shouldAddTheWorkAPreemptedPodSavedToTheWorkOfItsReplacement() {
    // ran 300 s, lost the 60 s since its last checkpoint, 30 s of setup: saved 210 s of work
    PodTimeline first = pod("a", "train", 0, 20L, 320L, "Preempted");
    first.setWastedGpuSeconds(60.0);
    first.setPreemptedAt(T0 + 318_000);
    first.setDisruption(new Disruption("preemption", T0 + 318_000, "scheduler"));
    // created when the first ended, resumed from the checkpoint: setup and the 400 s left
    PodTimeline second = pod("b", "train", 320L, 340L, 770L, "Succeeded");
    ObservedRun run = ObservedRun.of(List.of(first, second), List.of()).get(0);

    var rs = ObservedArrivals.of(run, POLICY, ObservedArrivals.nodes(POLICY, List.of(run)), null);

    JobSpec job = (JobSpec) rs.scenario().workloads().get(0).spec();
    assertThat(job.unitWork()).containsExactly(Duration.ofSeconds(610));
    assertThat(job.completions()).isEqualTo(1);
    assertThat(job.parallelism()).isEqualTo(1);
    assertThat(job.arrival().at()).isEqualTo(Duration.ZERO);
    assertThat(job.setup()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.checkpointInterval()).isEqualTo(Duration.ofMinutes(2));
    assertThat(rs.assumptions()).isEmpty();
  }

  /**
   * A Job Kueue held suspended arrived when its Workload was created, not when its pods were; under
   * a policy with Kueue it waits in the queue it was observed in, with its rule's class, unless its
   * rule says another queue or none.
   */
  @Test
  void shouldSubmitAQueuedJobAtItsWorkloadsCreationIntoTheQueueItWaitedIn() {
    PodTimeline early = pod("a", "early", 0, 20L, 300L, "Succeeded");
    // waited 10 min in queue embed, admitted at 900 s: its pod was created then
    PodTimeline queued =
        PodTimeline.newBuilder(pod("b", "waited", 900, 920L, 1200L, "Succeeded"))
            .setQueue("embed")
            .setAdmittedAt(T0 + 900_000)
            .setQueueWaitMs(600_000L)
            .build();
    ObservedRun run = ObservedRun.of(List.of(early, queued), List.of()).get(0);
    String kueue =
        """
        name: k
        kueue:
          clusterQueues: [{name: team, nominalGpus: 2}]
          localQueues: [{name: embed, clusterQueue: team}, {name: other, clusterQueue: team}]
          workloadPriorityClasses: [{name: urgent, value: 10}]
        nodes: [{name: gpu, count: 1, gpus: 2}]
        workloads:
          waited: {workloadPriorityClass: urgent}
        """;

    JobSpec inObserved = job(run, PolicyLoader.parse("k", kueue), "waited");
    assertThat(inObserved.arrival().at()).isEqualTo(Duration.ofSeconds(300));
    assertThat(inObserved.queue()).isEqualTo("embed");
    assertThat(inObserved.workloadPriorityClass()).isEqualTo("urgent");
    assertThat(job(run, PolicyLoader.parse("k", kueue), "early").queue()).isNull();
    assertThat(
            job(
                    run,
                    PolicyLoader.parse("k", kueue.replace("{workload", "{queue: other, workload")),
                    "waited")
                .queue())
        .isEqualTo("other");
    assertThat(
            job(
                    run,
                    PolicyLoader.parse("k", kueue.replace("{workload", "{queue: none, workload")),
                    "waited")
                .queue())
        .isNull();
    // without Kueue it arrives as Kueue saw it and waits in no queue
    JobSpec free = job(run, POLICY, "waited");
    assertThat(free.arrival().at()).isEqualTo(Duration.ofSeconds(300));
    assertThat(free.queue()).isNull();
    // a quota puts the Jobs it covers in its own queue
    JobSpec inQuota =
        job(
            run,
            PolicyLoader.parse(
                "q",
                "name: q\nquotas: [{name: all, namespaces: [%s], nominalGpus: 1}]\n"
                    .formatted(POD.getNamespace())),
            "early");
    assertThat(inQuota.queue()).isEqualTo("all");
    assertThat(
            ObservedArrivals.of(
                    run,
                    PolicyLoader.parse("k", kueue),
                    ObservedArrivals.nodes(PolicyLoader.parse("k", kueue), List.of(run)),
                    null)
                .assumptions())
        .contains(
            "Jobs wait suspended in their Kueue queue until admitted, without pods meanwhile:"
                + " embed 1 Job");
  }

  private static JobSpec job(ObservedRun run, Policy policy, String name) {
    var rs = ObservedArrivals.of(run, policy, ObservedArrivals.nodes(policy, List.of(run)), null);
    return rs.scenario().workloads().stream()
        .filter(w -> w.name().equals(name))
        .map(w -> (JobSpec) w.spec())
        .findFirst()
        .orElseThrow();
  }

  @Test
  void shouldReplayAJobSetAsAGangAndNameTheGpuPodsItCannotReplay() {
    PodTimeline leader = pod("a", "train", 0, 10L, 610L, "Succeeded");
    leader.setWorkload(new WorkloadRef("JobSet", "train"));
    PodTimeline worker = pod("b", "train", 0, 12L, 612L, "Succeeded");
    worker.setWorkload(new WorkloadRef("JobSet", "train"));
    PodTimeline bare = pod("c", "debug", 0, 5L, 300L, "Succeeded");
    bare.setWorkload(new WorkloadRef("Pod", "debug-c"));
    PodTimeline cpu = pod("d", "tool", 0, 5L, 300L, "Succeeded");
    cpu.setWorkload(new WorkloadRef("DaemonSet", "tool"));
    cpu.setGpus(0);
    ObservedRun run = ObservedRun.of(List.of(leader, worker, bare, cpu), List.of()).get(0);

    var rs = ObservedArrivals.of(run, POLICY, ObservedArrivals.nodes(POLICY, List.of(run)), null);

    assertThat(rs.scenario().workloads()).hasSize(1);
    JobSpec job = (JobSpec) rs.scenario().workloads().get(0).spec();
    assertThat(job.parallelism()).isEqualTo(2);
    assertThat(job.jobSet()).as("replayed as the simulator's JobSet: one gang").isTrue();
    assertThat(job.kind()).isEqualTo("JobSet");
    assertThat(rs.assumptions())
        .anyMatch(
            a ->
                a.startsWith(
                    "JobSet (1 workload, 2 pods): each runs as a JobSet of one replicated Job, its pods one"
                        + " gang, created together and scheduled one by one"));
    assertThat(rs.skipped())
        .containsExactly(
            "ai-lab/debug-c (owned by a Pod, held 1 GPU(s))",
            "ai-lab/tool-d (owned by a DaemonSet)");
    assertThat(ObservedArrivals.unmodelledGpuPods(List.of(run)))
        .containsExactly("ai-lab/debug-c (Pod)");
  }

  @Test
  void shouldTakeAUnitTheRunsEndCutAsTheJobsTypicalUnitAndSaySoWhenNoneFinished() {
    // two completions side by side (no rule: no setup); the second deleted with the run after
    // 100 s, short of the 630 s the first needed
    PodTimeline done = pod("a", "embed", 0, 10L, 640L, "Succeeded");
    PodTimeline cut = pod("b", "embed", 0, 10L, 110L, "Deleted");
    cut.setDisruption(new Disruption("deletion", T0 + 108_000, null));
    PodTimeline alone = pod("c", "asr", 5, 15L, 110L, "Deleted");
    alone.setDisruption(new Disruption("deletion", T0 + 108_000, null));
    ObservedRun run = ObservedRun.of(List.of(done, cut, alone), List.of()).get(0);

    var rs = ObservedArrivals.of(run, POLICY, ObservedArrivals.nodes(POLICY, List.of(run)), null);

    JobSpec embed = (JobSpec) rs.scenario().workloads().get(0).spec();
    assertThat(embed.unitWork()).containsExactly(Duration.ofSeconds(630), Duration.ofSeconds(630));
    assertThat(embed.parallelism()).isEqualTo(2);
    JobSpec asr = (JobSpec) rs.scenario().workloads().get(1).spec();
    assertThat(asr.unitWork()).containsExactly(Duration.ofSeconds(95));
    assertThat(asr.arrival().at()).isEqualTo(Duration.ofSeconds(5));
    assertThat(rs.assumptions())
        .anyMatch(a -> a.startsWith("asr: a Job of it never completed"))
        .anyMatch(a -> a.equals("asr never checkpoints (say checkpointEvery in the policy)"));
    assertThat(rs.scenario().duration()).isEqualTo(Duration.ofMillis(640_001));
  }

  @Test
  void shouldReplayADeploymentsDesiredReplicasWithinTheRunOnly() {
    PodTimeline server =
        PodTimeline.newBuilder(pod("s", "chat", 100, 120L, 900L, "Deleted"))
            .setWorkload(new WorkloadRef("Deployment", "chat"))
            .setApplication("chat")
            .setModelLoadMs(60_000L)
            .setReadyAt(T0 + 180_000)
            .setRequests(7000)
            .setErrors(7)
            .setLatencyP50Ms(400.0)
            .setLatencyP95Ms(800.0)
            .build();
    WorkloadTimeline chat =
        WorkloadTimeline.newBuilder(DEPLOYMENT)
            .setName("chat")
            .setArm("treatment") // the latest pod's arm: one Deployment serves every run
            .setSeries(
                List.of(
                    new ReplicaPoint(T0 - 500_000, 1, 1), // an earlier run
                    new ReplicaPoint(T0 - 100_000, 0, 0),
                    new ReplicaPoint(T0 + 100_000, 2, 0),
                    new ReplicaPoint(T0 + 180_000, 2, 1),
                    new ReplicaPoint(T0 + 880_000, 0, 0),
                    new ReplicaPoint(T0 + 2_000_000, 1, 0))) // a later run
            .build();
    ObservedRun run = ObservedRun.of(List.of(server), List.of(chat)).get(0);

    var rs = ObservedArrivals.of(run, POLICY, ObservedArrivals.nodes(POLICY, List.of(run)), null);

    ServingSpec serving = (ServingSpec) rs.scenario().workloads().get(0).spec();
    assertThat(serving.replicas())
        .containsExactly(
            new ReplicaStep(Duration.ZERO, Duration.ZERO, 2),
            new ReplicaStep(Duration.ofSeconds(780), Duration.ZERO, 0));
    assertThat(serving.modelLoad().at()).isEqualTo(Duration.ofSeconds(60));
    // 7,000 requests over the 700 s it had a Ready replica
    assertThat(serving.traffic().ratePerSecond()).isEqualTo(10.0);
    assertThat(serving.traffic().latencyMedianMs()).isEqualTo(400.0);
    assertThat(serving.traffic().errorRate()).isEqualTo(0.001);
    assertThat(rs.requestRates()).containsEntry("chat", 10.0);
  }

  /** A server of Deployment chat: created, Ready and ended at seconds after T0. */
  static PodTimeline server(String uid, long created, long ready, Long ended) {
    return PodTimeline.newBuilder(pod(uid, "chat", created, created + 20, ended, "Deleted"))
        .setWorkload(new WorkloadRef("Deployment", "chat"))
        .setApplication("chat")
        .setModelLoadMs(30_000L)
        .setReadyAt(T0 + ready * 1000)
        .build();
  }

  @Test
  void shouldInferADeploymentsReplicasFromItsPodsWhenNoTimelineCoversTheRun() {
    // a: wanted until the scale-down asked for its deletion at 600 s; b: preempted at 300 s,
    // wanted until its replacement c was created at 305 s
    PodTimeline a = server("a", 0, 60, 630L);
    a.setDisruption(new Disruption("deletion", T0 + 600_000, null));
    PodTimeline b = server("b", 100, 200, 330L);
    b.setDisruption(new Disruption("preemption", T0 + 300_000, "scheduler"));
    PodTimeline c = server("c", 305, 400, 900L);
    c.setDisruption(new Disruption("deletion", T0 + 870_000, null));
    ObservedRun run = ObservedRun.of(List.of(a, b, c), List.of()).get(0);

    assertThat(ObservedServing.inferredSeries("ai-lab", "Deployment", "chat", run.pods(), run))
        .extracting(p -> (p.getAt() - T0) / 1000 + ":" + p.getDesired() + "/" + p.getReady())
        .containsExactly(
            "0:1/0", "60:1/1", "100:2/1", "200:2/2",
            "300:2/1", // b preempted: still wanted, c created at 305 s in its place
            "400:2/2", "600:1/1", "870:0/0");

    var rs = ObservedArrivals.of(run, POLICY, ObservedArrivals.nodes(POLICY, List.of(run)), null);
    ServingSpec serving = (ServingSpec) rs.scenario().workloads().get(0).spec();
    assertThat(serving.replicas())
        .containsExactly(
            new ReplicaStep(Duration.ZERO, Duration.ZERO, 1),
            new ReplicaStep(Duration.ofSeconds(100), Duration.ZERO, 2),
            new ReplicaStep(Duration.ofSeconds(600), Duration.ZERO, 1),
            new ReplicaStep(Duration.ofSeconds(870), Duration.ZERO, 0));
    assertThat(rs.assumptions())
        .anyMatch(x -> x.startsWith("chat: desired replicas in ") && x.contains("inferred"));
  }

  @Test
  void shouldTakeEachNodesGpusAsTheMostItsPodsHeldAtOnce() {
    PodTimeline a = pod("a", "x", 0, 10L, 100L, "Succeeded");
    PodTimeline b = pod("b", "y", 0, 10L, 100L, "Succeeded");
    PodTimeline c = pod("c", "z", 0, 10L, 100L, "Succeeded");
    a.setNode("gpu-node-1");
    b.setNode("gpu-node-1");
    c.setNode("gpu-node-2");
    c.setGpus(2);
    ObservedRun run = ObservedRun.of(List.of(a, b, c), List.of()).get(0);
    Policy noNodes = PolicyLoader.parse("test", "name: test\n");

    List<NodePool> pools = ObservedArrivals.nodes(noNodes, List.of(run));

    assertThat(pools).containsExactly(new NodePool("gpu-node", 2, 2, "", Map.of(), List.of()));
  }
}
