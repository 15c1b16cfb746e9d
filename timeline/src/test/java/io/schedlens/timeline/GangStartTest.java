package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.schemas.WorkloadKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A gang's start as its controllers make it: a JobSet's Job controller, a LeaderWorkerSet's
 * StatefulSets and KubeRay create a gang's pods together, and kube-scheduler binds them one at a
 * time as GPUs free up, so the first pods hold their GPUs idle until the last one runs.
 */
class GangStartTest {

  static WorkloadMember.Builder pod(String uid, double created, Double running, int gpus) {
    return WorkloadMember.newBuilder()
        .setUid(uid)
        .setCreatedAt(at(created))
        .setRunningAt(running == null ? null : at(running))
        .setGpus(gpus)
        .setOutcome(running == null ? "Pending" : "Running");
  }

  static List<WorkloadMember> trainingGang() {
    // four workers of one GPU each, created together, bound as GPUs free up
    return List.of(
        pod("w0", 0, 10.0, 1).build(),
        pod("w1", 0, 20.0, 1).build(),
        pod("w2", 0.4, 30.0, 1).build(),
        pod("w3", 0.4, 70.0, 1).build());
  }

  @Test
  void shouldCountTheGpusTheEarlyPodsHeldUntilTheLastRan() {
    GangStart.Figures f = GangStart.of("JobSet", trainingGang(), at(100));

    assertThat(f.runningAt()).isEqualTo(at(70));
    // [10, 20) one GPU, [20, 30) two, [30, 70) three
    assertThat(f.waitGpuSeconds()).isCloseTo(10 + 20 + 120, within(1e-9));
  }

  @Test
  void shouldCountTheWaitInGpuEquivalentsOfTheSlicesTheEarlyPodsHeld() {
    // the same gang on H100 1g.10gb MIG slices: each worker holds a seventh of a GPU
    List<WorkloadMember> gang =
        trainingGang().stream()
            .map(m -> WorkloadMember.newBuilder(m).setGpuShare(1.0 / 7).build())
            .toList();

    GangStart.Figures f = GangStart.of("JobSet", gang, at(100));

    assertThat(f.waitGpuSeconds()).isCloseTo((10 + 20 + 120) / 7.0, within(1e-6));
  }

  @Test
  void shouldLeaveWorkloadsThatAreNotGangsWithout() {
    GangStart.Figures f = GangStart.of("Deployment", trainingGang(), at(100));

    assertThat(f.runningAt()).isNull();
    assertThat(f.waitGpuSeconds()).isNull();
  }

  @Test
  void shouldKeepCountingWhileAPodOfTheGangCannotBePlaced() {
    List<WorkloadMember> pods =
        List.of(
            pod("head", 0, 5.0, 0).build(),
            pod("gpu-worker", 0, null, 8).build(),
            pod("gpu-worker-2", 0, 12.0, 8).build());

    GangStart.Figures at60 = GangStart.of("RayCluster", pods, at(60));
    GangStart.Figures at120 = GangStart.of("RayCluster", pods, at(120));

    assertThat(at60.runningAt()).isNull();
    assertThat(at60.waitGpuSeconds()).isCloseTo(8 * 48, within(1e-9));
    assertThat(at120.waitGpuSeconds()).isCloseTo(8 * 108, within(1e-9));
  }

  @Test
  void shouldStopWaitingForAPodDeletedBeforeItRan() {
    List<WorkloadMember> pods =
        List.of(
            pod("a", 0, 10.0, 2).build(),
            pod("b", 0, null, 2).setStoppedAt(at(25)).setOutcome("Deleted").build());

    GangStart.Figures f = GangStart.of("TrainJob", pods, at(40));

    assertThat(f.runningAt()).isEqualTo(at(25));
    assertThat(f.waitGpuSeconds()).isCloseTo(2 * 15, within(1e-9));
  }

  @Test
  void shouldCountEachLeaderWorkerSetGroupOnItsOwn() {
    List<WorkloadMember> pods =
        List.of(
            pod("g0-leader", 0, 4.0, 1).setGang("0").build(),
            pod("g0-worker", 0, 20.0, 1).setGang("0").build(),
            pod("g1-leader", 0, 6.0, 1).setGang("1").build(),
            pod("g1-worker", 0, 50.0, 1).setGang("1").build());

    GangStart.Figures f = GangStart.of("LeaderWorkerSet", pods, at(60));

    assertThat(f.runningAt()).as("the later group's start").isEqualTo(at(50));
    // group 0: its leader waited 16 s; group 1: 44 s; group 0 running does not wait for group 1
    assertThat(f.waitGpuSeconds()).isCloseTo(16 + 44, within(1e-9));
  }

  @Test
  void shouldCountTheWaitOfAGangRestartedByItsFailurePolicy() {
    List<WorkloadMember> pods = new ArrayList<>();
    for (WorkloadMember p : trainingGang()) {
      pods.add(WorkloadMember.newBuilder(p).setStoppedAt(at(100)).setOutcome("Failed").build());
    }
    pods.add(pod("r0", 100.5, 110.0, 1).build());
    pods.add(pod("r1", 100.5, 130.0, 1).build());

    GangStart.Figures f = GangStart.of("JobSet", pods, at(200));

    assertThat(f.runningAt()).as("when all first ran").isEqualTo(at(70));
    assertThat(f.waitGpuSeconds()).isCloseTo(150 + 20, within(1e-9));
  }

  @Test
  void shouldSeeTheLastPodRunAtTheLatestFact() {
    GangStart.Figures f = GangStart.of("JobSet", trainingGang(), at(70));

    assertThat(f.runningAt()).isEqualTo(at(70));
    assertThat(f.waitGpuSeconds()).isCloseTo(150, within(1e-9));
  }

  @Test
  void shouldGiveTheSameFiguresInWhateverOrderThePodsWereTold() {
    List<WorkloadMember> pods = new ArrayList<>(trainingGang());
    GangStart.Figures expected = GangStart.of("JobSet", pods, at(100));
    Random random = new Random(52);
    for (int i = 0; i < 20; i++) {
      Collections.shuffle(pods, random);
      assertThat(GangStart.of("JobSet", pods, at(100))).isEqualTo(expected);
    }
  }

  @Test
  void shouldPutBothFiguresOnTheWorkloadTimelineOfAGang() {
    WorkloadTimeline jobSet =
        WorkloadContinuity.view(
            WorkloadKey.parse("ml/JobSet/pretrain/5e2f4c1a-0000-4000-8000-000000000001"),
            trainingGang(),
            List.of(),
            List.of(),
            List.of(),
            at(100));
    WorkloadTimeline deployment =
        WorkloadContinuity.view(
            WorkloadKey.parse("ml/Deployment/chat"),
            trainingGang(),
            List.of(),
            List.of(),
            List.of(),
            at(100));

    assertThat(jobSet.getGangRunningAt()).isEqualTo(at(70));
    assertThat(jobSet.getGangWaitGpuSeconds()).isCloseTo(150, within(1e-9));
    assertThat(deployment.getGangRunningAt()).isNull();
    assertThat(deployment.getGangWaitGpuSeconds()).isNull();
  }

  @Test
  void shouldReadTheGroupOfALeaderWorkerSetPodFromItsLabel() {
    assertThat(
            GangStart.groupOf(
                java.util.Map.of(
                    "leaderworkerset.sigs.k8s.io/name", "vllm", GangStart.LWS_GROUP, "1")))
        .isEqualTo("1");
    assertThat(GangStart.groupOf(java.util.Map.of("jobset.sigs.k8s.io/jobset-name", "x"))).isNull();
  }
}
