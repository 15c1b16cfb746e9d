package io.schedlens.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.PodTimeline;
import io.schedlens.cli.GroundTruth;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.InputGaps;
import io.schedlens.report.TimelinesFile;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.GangTruth;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.testsupport.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays through the real collector parsing, the embedded broker and the real streams app: a
 * recording of a simulated cluster, whose truth the simulator computed independently of the
 * pipeline, and every real recording in the fixtures.
 */
class ReplayIT {

  @TempDir Path dir;

  static Replay.Result replay(List<String> args) throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Replay.Result r =
        new Replay(
                ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, Map.of())),
                new PrintStream(console, true, StandardCharsets.UTF_8))
            .run();
    System.out.println(console.toString(StandardCharsets.UTF_8));
    return r;
  }

  record Recorded(
      List<PodTruth> truth,
      List<ClusterRun.ServiceInterruption> interruptions,
      List<GangTruth> gangs,
      Replay.Result result,
      Path out) {}

  /** Simulates a bundled scenario, records it as from a cluster, replays the recording. */
  Recorded recordAndReplay(String scenarioName) throws Exception {
    Scenario scenario = ScenarioLoader.load(scenarioName);
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording-" + scenarioName));
    Path out = dir.resolve("out-" + scenarioName);
    Replay.Result r = replay(Recordings.replayArgs(rec.dir(), out, scenario));
    List<ClusterRun.ServiceInterruption> interruptions = new ArrayList<>();
    List<GangTruth> gangs = new ArrayList<>();
    rec.simulator()
        .runs()
        .forEach(
            run -> {
              interruptions.addAll(run.interruptions());
              gangs.addAll(run.gangs());
            });
    return new Recorded(rec.truth(), interruptions, gangs, r, out);
  }

  @Test
  void shouldReplayARecordedDay08ToTheSimulatorsGroundTruth() throws Exception {
    Recorded rec = recordAndReplay("day08");
    List<PodTruth> truth = rec.truth();
    Replay.Result r = rec.result();
    Path out = rec.out();
    assertThat(r.unusable().counts()).as("a clean recording").isEmpty();
    GroundTruth.assertMatches(truth, r.timelines());
    assertThat(r.timelines().values()).allMatch(PodTimeline::getFinal$);
    assertThat(r.deadLetters()).as("dead letters").isEmpty();
    assertThat(Files.readAllLines(out.resolve("timelines.jsonl"))).hasSize(truth.size());
    assertThat(Files.readString(out.resolve("report.md")))
        .contains("| treatment | interactive-inference |");
    assertThat(r.report().row("treatment", "embedding-batch").preemptions().min()).isPositive();
    assertThat(Files.readString(out.resolve("replay-summary.json")))
        .contains("\"finalTimelines\" : " + truth.size());
  }

  /**
   * Shared GPUs recorded and replayed: chat-small on H100 1g.10gb MIG slices (a seventh of a GPU
   * each), the embedder on a T4 time-sliced four ways (a quarter, from the recorded node's GPU
   * feature discovery labels; its busy split among the pods holding the T4 in each scrape), the
   * training Jobs on whole GPUs beside the slices; every pod's share and allocated GPU-equivalent
   * seconds as the simulator lived them.
   */
  @Test
  void shouldReplaySharedGpusInGpuEquivalentsToTheSimulatorsGroundTruth() throws Exception {
    Recorded rec = recordAndReplay("shared");
    Replay.Result r = rec.result();
    assertThat(r.unusable().counts()).as("a clean recording").isEmpty();
    GroundTruth.assertMatches(rec.truth(), r.timelines());
    List<PodTimeline> chat =
        r.timelines().values().stream().filter(t -> t.getName().startsWith("chat-small-")).toList();
    List<PodTimeline> embedder =
        r.timelines().values().stream().filter(t -> t.getName().startsWith("embedder-")).toList();
    List<PodTimeline> train =
        r.timelines().values().stream().filter(t -> t.getName().startsWith("train-")).toList();
    assertThat(chat)
        .isNotEmpty()
        .allSatisfy(
            t -> {
              assertThat(t.getGpuResource()).isEqualTo("nvidia.com/mig-1g.10gb");
              assertThat(t.getGpuShare()).isCloseTo(1.0 / 7, within(1e-12));
              assertThat(t.getGpuShared()).isFalse();
            });
    assertThat(embedder)
        .isNotEmpty()
        .allSatisfy(
            t -> {
              assertThat(t.getGpuResource()).isEqualTo("nvidia.com/gpu");
              assertThat(t.getGpuShare()).isEqualTo(0.25);
              assertThat(t.getGpuShared()).isTrue();
            });
    assertThat(embedder.stream().mapToDouble(t -> orZero(t.getBusyGpuSeconds())).sum())
        .as("the T4's busy time, split among its holders")
        .isPositive();
    assertThat(chat.stream().mapToDouble(t -> orZero(t.getBusyGpuSeconds())).sum())
        .as("the slices' busy time, from the instances' own GR_ENGINE_ACTIVE")
        .isPositive();
    assertThat(train).isNotEmpty().allSatisfy(t -> assertThat(t.getGpuShare()).isEqualTo(1.0));
  }

  private static double orZero(Double d) {
    return d == null ? 0 : d;
  }

  /**
   * A JobSet's four workers created together and bound one by one as the pool frees up: its
   * workload timeline is the JobSet's (not one of its Jobs'), and says when the last worker ran and
   * what the first ones held meanwhile, as the simulator lived it.
   */
  @Test
  void shouldTellWhenEachGangRanAndWhatItsFirstWorkersHeldWaiting() throws Exception {
    Recorded rec = recordAndReplay("gangs");
    Replay.Result r = rec.result();
    assertThat(r.unusable().counts()).as("a clean recording").isEmpty();
    GroundTruth.assertMatches(rec.truth(), r.timelines());
    assertThat(r.timelines().values())
        .filteredOn(t -> t.getName().startsWith("training-"))
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.getWorkload().getKind()).isEqualTo("JobSet"));

    assertThat(rec.gangs()).as("the simulator's gangs").hasSize(4);
    assertThat(rec.gangs())
        .as("a gang that waited for its last worker")
        .anyMatch(g -> g.waitGpuSeconds() > 60);
    GroundTruth.assertGangsMatch(rec.gangs(), rec.truth(), r.workloads().values());

    var control = r.report().continuity("control", "training");
    assertThat(control.gangWaitGpuSeconds()).isNotNull();
    assertThat(Files.readString(rec.out().resolve("report.md")))
        .contains("gang wait GPU-s")
        .contains("| control | training | JobSet |");
  }

  /**
   * Kueue in front of the scheduler: Jobs wait suspended, without pods, until admitted; a team's
   * Jobs reclaim the quota the other borrowed, and Kueue's preemptions end running pods. Every
   * pod's queue, admission and wait, and every victim's cause, time and waste, as the simulator
   * lived them; the report compares queue waits between arms and names the queue preemptions.
   */
  @Test
  void shouldReplayKueuesAdmissionsAndPreemptionsToTheSimulatorsGroundTruth() throws Exception {
    Recorded rec = recordAndReplay("kueue");
    Replay.Result r = rec.result();
    assertThat(r.unusable().counts()).as("a clean recording").isEmpty();
    assertThat(r.deadLetters()).as("dead letters").isEmpty();
    GroundTruth.assertMatches(rec.truth(), r.timelines());
    assertThat(rec.truth()).as("the simulator queued Jobs").anyMatch(t -> t.queueWaitMs() != null);
    assertThat(rec.truth())
        .as("and Kueue preempted running pods")
        .anyMatch(t -> "queue-preemption".equals(t.cause()));
    List<PodTimeline> victims =
        r.timelines().values().stream()
            .filter(t -> t.getDisruption() != null)
            .filter(t -> t.getDisruption().getCause().equals("queue-preemption"))
            .toList();
    assertThat(victims).isNotEmpty();
    assertThat(victims)
        .allSatisfy(
            t -> {
              assertThat(t.getDisruption().getBy()).as(t.getName()).isNotBlank();
              assertThat(t.getWastedGpuSeconds()).as(t.getName()).isNotNull();
            });
    assertThat(r.workloads().values())
        .as("each Job's workload timeline tells its admissions")
        .filteredOn(w -> w.getName().startsWith("embedding-routine-"))
        .anyMatch(w -> w.getAdmissions().size() >= 2);
    String report = Files.readString(rec.out().resolve("report.md"));
    assertThat(report).contains("queue wait p50").contains("| treatment | asr-batch |");
    assertThat(report).contains("Kueue preempted");
  }

  @Test
  void shouldReplayADrainAndReJoinWithEvictionsAndCordonedWaits() throws Exception {
    Recorded rec = recordAndReplay("day08-disruptions");
    GroundTruth.assertMatches(rec.truth(), rec.result().timelines());
    assertThat(rec.result().deadLetters()).as("dead letters").isEmpty();
    List<PodTimeline> evicted =
        rec.result().timelines().values().stream()
            .filter(t -> "Evicted".equals(t.getOutcome()))
            .toList();
    assertThat(evicted).isNotEmpty();
    for (PodTimeline t : evicted) {
      assertThat(t.getDisruption().getCause()).as(t.getName()).isEqualTo("eviction-api");
      if (t.getWorkload().getKind().equals("Job")) {
        assertThat(t.getWastedGpuSeconds()).as(t.getName() + " wasted").isNotNull();
      }
    }
    assertThat(rec.result().timelines().values())
        .as("replacements waited on the cordoned node")
        .anyMatch(t -> t.getPendingReasons().containsKey("unschedulable node"));

    // What users felt: every drain interrupted the inference service until a replacement loaded
    // its model after the node re-joined.
    assertThat(rec.interruptions()).as("the simulator lived interruptions").isNotEmpty();
    GroundTruth.assertServiceMatches(
        rec.interruptions(), rec.truth(), rec.result().workloads().values());
    assertThat(Files.readAllLines(rec.out().resolve("workloads.jsonl")))
        .hasSize(rec.result().workloads().size());
    ExperimentReport report = rec.result().report();
    for (String arm : List.of("control", "treatment")) {
      var row = report.continuity(arm, "interactive-inference");
      assertThat(row).as(arm).isNotNull();
      if (rec.interruptions().stream().anyMatch(i -> i.arm().equals(arm))) {
        assertThat(row.interruptionSeconds().max()).as(arm + " interrupted").isPositive();
      }
    }
    assertThat(Files.readString(rec.out().resolve("report.md")))
        .contains("## Service continuity per arm and application");
  }

  /**
   * A node stops: its inference server is marked NotReady 40 s later (users lose it then), evicted
   * by the taint manager after 300 s more; its replacement waits on the unreachable taint until the
   * node re-joins (control) or preempts the batch job on the other node (treatment).
   */
  @Test
  void shouldReplayANodeFailureWithTaintManagerEvictionsAndTheLossOfServiceAtNotReady()
      throws Exception {
    Recorded rec = recordAndReplay("node-failure");
    GroundTruth.assertMatches(rec.truth(), rec.result().timelines());
    assertThat(rec.result().deadLetters()).as("dead letters").isEmpty();
    assertThat(rec.truth()).anyMatch(t -> "taint-manager".equals(t.cause()));
    assertThat(rec.interruptions())
        .as("one lost server per run")
        .hasSize(4)
        .allMatch(i -> i.cause().equals("taint-manager"));
    GroundTruth.assertServiceMatches(
        rec.interruptions(), rec.truth(), rec.result().workloads().values());
    assertThat(rec.result().timelines().values())
        .as("the replacement waited on the unreachable node")
        .anyMatch(t -> t.getPendingReasons().keySet().stream().anyMatch(r -> r.contains("taint")));
    assertThat(rec.result().report().continuity("control", "interactive-inference"))
        .satisfies(r -> assertThat(r.interruptionSeconds().min()).isGreaterThan(8 * 60));
    assertThat(rec.result().report().continuity("treatment", "interactive-inference"))
        .satisfies(r -> assertThat(r.interruptionSeconds().max()).isLessThan(8 * 60));
  }

  @Test
  void shouldGroupEachPodUnderTheControllerAtTheTopOfItsChain() throws Exception {
    List<String> args = new ArrayList<>();
    for (String f :
        List.of(
            "jobset-network-jobset.yaml",
            "trainjob-pytorch.yaml",
            "lws-vllm.yaml",
            "kuberay-rayjob.yaml",
            "kserve-raw-sklearn-iris.yaml",
            "cronjob-run.yaml",
            "argo-rollouts-canary-pod.yaml")) {
      args.addAll(List.of("--pods", Fixtures.path("../controllers/" + f).toString()));
    }
    // The Rollout's ReplicaSet and the Rollout itself as recorded owner objects, apart.
    args.addAll(
        List.of(
            "--objects",
            Fixtures.path("../controllers/argo-rollouts-canary-rs.yaml").toString(),
            "--objects",
            Fixtures.path("../controllers/argo-rollouts-canary-rollout.yaml").toString(),
            "--out",
            dir.resolve("controllers").toString()));
    Replay.Result r = replay(args);
    assertThat(r.unusable().counts()).as("every object used").isEmpty();
    Map<String, String> workloads = new java.util.TreeMap<>();
    r.timelines()
        .values()
        .forEach(
            t ->
                workloads.put(
                    t.getName(), t.getWorkload().getKind() + "/" + t.getWorkload().getName()));
    assertThat(workloads)
        .containsEntry("network-jobset-leader-0-0-2qphg", "JobSet/network-jobset")
        .containsEntry("network-jobset-workers-0-0-g5n2t", "JobSet/network-jobset")
        .containsEntry("pytorch-mnist-node-0-0-4kq8d", "TrainJob/pytorch-mnist")
        .containsEntry("vllm-0", "LeaderWorkerSet/vllm")
        .containsEntry("vllm-0-1", "LeaderWorkerSet/vllm")
        .containsEntry("rayjob-sample-x7k2q-head-9p4tz", "RayJob/rayjob-sample")
        .containsEntry("sklearn-iris-predictor-6d4f8b7c9d-2xw7n", "InferenceService/sklearn-iris")
        .containsEntry("cronjob1-28413736-bpz85", "Job/cronjob1-28413736")
        .containsEntry("canary-demo-65fb5ffc84-9wf5r", "Rollout/canary-demo");
    PodTimeline ray =
        r.timelines().values().stream()
            .filter(t -> t.getName().startsWith("rayjob-sample"))
            .findFirst()
            .orElseThrow();
    assertThat(ray.getApplication()).as("KubeRay's app.kubernetes.io/name").isEqualTo("kuberay");
    PodTimeline jobSetPod =
        r.timelines().values().stream()
            .filter(t -> t.getName().startsWith("network-jobset-leader"))
            .findFirst()
            .orElseThrow();
    assertThat(jobSetPod.getApplication())
        .as("no application label: the workload's name")
        .isEqualTo("network-jobset");
  }

  /**
   * A recorded Kueue Workload (its watch recording: admitted, preempted, re-queued, admitted again)
   * beside its Job's pods: each pod carries the wait of the admission that created it, and the
   * preemption's victims say so.
   */
  @Test
  void shouldReplayRecordedWorkloadsWithEachAdmissionsWaitAndKueuesPreemption() throws Exception {
    Replay.Result r =
        replay(
            List.of(
                "--pods",
                Fixtures.path("../kueue/pods-asr-batch-7.watch.json").toString(),
                "--objects",
                Fixtures.path("../kueue/workloads-requeued.watch.json").toString(),
                "--out",
                dir.resolve("kueue").toString()));
    assertThat(r.unusable().counts()).as("every object used").isEmpty();
    Map<String, PodTimeline> byName = new java.util.TreeMap<>();
    r.timelines().values().forEach(t -> byName.put(t.getName(), t));
    PodTimeline victim = byName.get("asr-batch-7-x2k9p");
    assertThat(victim.getQueue()).isEqualTo("team-b-queue");
    assertThat(victim.getQueueWaitMs()).as("09:00:00 to 09:42:10").isEqualTo(2_530_000L);
    assertThat(victim.getOutcome()).isEqualTo("Preempted");
    assertThat(victim.getDisruption().getCause()).isEqualTo("queue-preemption");
    assertThat(victim.getDisruption().getBy())
        .as("the preemptor's Workload was not recorded: its UID")
        .isEqualTo("7d2b9e10-4a3c-4f1e-8f5d-6b1c0a9e2d44");
    assertThat(victim.getWastedGpuSeconds()).as("09:42:30 to 10:15:40").isEqualTo(1990.0);
    assertThat(byName.get("asr-batch-7-r7w4m").getDisruption().getCause())
        .isEqualTo("queue-preemption");
    PodTimeline second = byName.get("asr-batch-7-m3q8z");
    assertThat(second.getQueueWaitMs())
        .as("re-queued 10:15:30, admitted 11:05:02")
        .isEqualTo(2_972_000L);
    assertThat(second.getOutcome()).isEqualTo("Succeeded");
    assertThat(second.getPreemptionsOfWorkload()).isEqualTo(1);
  }

  @Test
  void shouldReplayEveryRealRecordingAndFindWhyThePendingPodWaits() throws Exception {
    List<String> args = new ArrayList<>();
    for (Path p : Fixtures.list("pods", "")) {
      args.addAll(List.of("--pods", p.toString()));
    }
    for (Path p : Fixtures.list("events", "")) {
      args.addAll(List.of("--events", p.toString()));
    }
    Path out = dir.resolve("real");
    Path warehouse = dir.resolve("warehouse");
    args.addAll(List.of("--out", out.toString(), "--export", warehouse.toString()));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(console, true, StandardCharsets.UTF_8);
    int exit = ReplayCommand.run(args, Map.of(), print, print);
    String said = console.toString(StandardCharsets.UTF_8);
    System.out.println(said);

    // Unusable parts are counted, not fatal: describe-output text, a bare condition. But the
    // results rest on incomplete inputs: said at the top of the report, and
    // in the exit code unless accepted.
    assertThat(exit).as(said).isEqualTo(InputGaps.EXIT_CODE);
    assertThat(said)
        .contains("replay: the results rest on incomplete inputs", "--allow-dead-letters");
    InputGaps gaps = InputGaps.read(out);
    // The kspan recording's Deployment and ReplicaSet are its pods' owners now, not unusable.
    assertThat(gaps.unusable())
        .containsKeys("not-a-kubernetes-object")
        .doesNotContainKey("not-a-pod-or-event");
    String report = Files.readString(out.resolve("report.md"));
    assertThat(report.lines().skip(2).findFirst().orElse(""))
        .as("the line after the title")
        .startsWith("> **Incomplete inputs:");
    assertThat(Files.readString(out.resolve("replay-summary.json")))
        .contains("\"incomplete\" : true");

    Map<String, PodTimeline> timelines = new java.util.TreeMap<>();
    TimelinesFile.read(out).forEach(t -> timelines.put(t.getUid(), t));
    PodTimeline gpuPending =
        timelines.values().stream()
            .filter(t -> t.getName().startsWith("pending-pod-resources"))
            .findFirst()
            .orElseThrow();
    assertThat(gpuPending.getOutcome()).isEqualTo("Pending");
    assertThat(gpuPending.getPendingReasons()).containsEntry("Insufficient nvidia.com/gpu", 1);
    assertThat(gpuPending.getPreemptionAttempted()).isTrue();
    PodTimeline affinity = timelines.get("6947a9d5-f99e-4efc-81ce-2ee36083f307");
    assertThat(affinity.getPendingReasons()).containsKey("node affinity/selector");
    // Its FailedScheduling event sits in another capture (matched by UID, not name), a series of
    // 3; the other one, "skip schedule deleting pod", is not an attempt to place it.
    assertThat(gpuPending.getFailedSchedulingCount()).isEqualTo(3);

    // The captures end while the pods are pending or running: each is closed at the end of the
    // recording, with its mark, in the files, the report and the exported tables.
    assertThat(timelines.values()).allMatch(PodTimeline::getFinal$);
    List<String> cut =
        timelines.values().stream()
            .filter(t -> Replay.END_OF_RECORDING.equals(t.getEndedBy()))
            .map(PodTimeline::getUid)
            .sorted()
            .toList();
    assertThat(cut).contains(gpuPending.getUid(), affinity.getUid());
    assertThat(report).contains(cut.size() + " pods were still there when the recording ended");
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = db.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT uid FROM read_parquet('"
                    + warehouse
                    + "/pod_timelines/**/*.parquet', hive_partitioning = true,"
                    + " union_by_name = true) WHERE endedBy = 'end-of-recording' ORDER BY uid")) {
      List<String> exported = new ArrayList<>();
      while (rs.next()) {
        exported.add(rs.getString(1));
      }
      assertThat(exported).isEqualTo(cut);
    }
  }
}
