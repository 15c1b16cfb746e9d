package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.DesiredStep;
import io.schedlens.avro.internal.SecondCount;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.schemas.WorkloadKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The workload view, built from how Kubernetes ends and replaces pods: a pod leaves its Service's
 * endpoints when its deletion is asked for (or its DisruptionTarget condition is set, which comes
 * just before); the ReplicaSet or Job controller creates the replacement when it sees the old pod
 * terminating; a scale-down is a plain deletion with no DisruptionTarget.
 */
class WorkloadContinuityTest {

  static final WorkloadKey CHAT = WorkloadKey.parse("ai-lab/Deployment/chat");

  /** A pod of the workload, created at {@code created} seconds. */
  static WorkloadMember.Builder pod(String uid, double created) {
    return WorkloadMember.newBuilder()
        .setUid(uid)
        .setName("chat-" + uid)
        .setCreatedAt(at(created))
        .setOutcome("Pending")
        .setArm("treatment")
        .setRepeat("1");
  }

  static WorkloadMember.Builder servedFrom(
      WorkloadMember.Builder p, double scheduled, double ready) {
    return p.setScheduledAt(at(scheduled)).setReadyAt(at(ready)).setOutcome("Running");
  }

  static WorkloadMember.Builder disrupted(WorkloadMember.Builder p, String cause, double at) {
    return p.setDisruptionCause(cause)
        .setDisruptionAt(at(at))
        .setReadyEndAt(at(at))
        .setStoppedAt(at(at))
        .setOutcome(cause.equals("preemption") ? "Preempted" : "Evicted");
  }

  static TimelineState deletionAskedAt(Long at) {
    TimelineState s = TimelineReducer.empty("x");
    s.getLifecycle().setDeletionRequestedAt(at);
    return s;
  }

  static WorkloadTimeline view(List<WorkloadMember> pods, double now) {
    return WorkloadContinuity.view(CHAT, pods, List.of(), List.of(), List.of(), at(now));
  }

  @Test
  void shouldMeasureAnInterruptionAndTheRecoveryOfAPreemptedServingPod() {
    WorkloadMember a =
        disrupted(servedFrom(pod("a", 0), 2, 100), "preemption", 600).setFirstOkAt(at(101)).build();
    WorkloadMember b = servedFrom(pod("b", 600.2), 660, 780).setFirstOkAt(at(781.5)).build();

    WorkloadTimeline t =
        WorkloadContinuity.view(
            CHAT,
            List.of(a, b),
            List.of(),
            List.of(new SecondCount(at(700), 1), new SecondCount(at(50), 1)),
            List.of(new SecondCount(at(790), 1)),
            at(900));

    assertThat(t.getDesiredSource()).isEqualTo("inferred");
    assertThat(t.getInterruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getStart()).isEqualTo(at(600));
              assertThat(i.getEnd()).isEqualTo(at(780));
              assertThat(i.getDurationMs()).isEqualTo(180_000L);
              assertThat(i.getCause()).isEqualTo("preemption");
              assertThat(i.getPod()).isEqualTo("a");
              assertThat(i.getArm()).isEqualTo("treatment");
              assertThat(i.getErrors()).as("the error at 700 s, not the one at 50 s").isEqualTo(1);
              assertThat(i.getSloBreaches()).as("790 s is after the interruption").isZero();
            });
    assertThat(t.getDegraded()).isEmpty();
    assertThat(t.getInterruptionMs()).isEqualTo(180_000L);
    assertThat(t.getRecoveries())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReplacement()).isEqualTo("b");
              assertThat(r.getCause()).isEqualTo("preemption");
              assertThat(r.getToScheduledMs()).isEqualTo(60_000L);
              assertThat(r.getToReadyMs()).isEqualTo(180_000L);
              assertThat(r.getToFirstOkMs()).isEqualTo(181_500L);
            });
    assertThat(t.getDesired()).isEqualTo(1);
    assertThat(t.getReady()).isEqualTo(1);
    assertThat(t.getPreemptions()).isEqualTo(1);
    assertThat(t.getSeries())
        .extracting(p -> p.getDesired() + "/" + p.getReady())
        .containsExactly("1/0", "1/1", "1/0", "1/1");
  }

  @Test
  void shouldNotCallAScaleDownOrAColdStartAnInterruption() {
    // Scale from zero at 0 s: Ready at 100 s (a cold start, on the pod's time to Ready); scaled
    // to zero at 600 s: a plain deletion, its Ready and its being wanted end together.
    WorkloadMember a =
        servedFrom(pod("a", 0), 2, 100)
            .setReadyEndAt(at(600))
            .setStoppedAt(at(600))
            .setDisruptionCause("deletion")
            .setDisruptionAt(at(600))
            .setOutcome("Deleted")
            .build();
    // Scaled up again at 900 s.
    WorkloadMember b = servedFrom(pod("b", 900), 902, 1000).build();

    WorkloadTimeline t = view(List.of(a, b), 1200);

    assertThat(t.getInterruptions()).isEmpty();
    assertThat(t.getDegraded()).isEmpty();
    assertThat(t.getRecoveries()).as("a plain deletion is no disruption to recover from").isEmpty();
    assertThat(t.getSeries())
        .extracting(p -> p.getDesired() + "/" + p.getReady())
        .containsExactly("1/0", "1/1", "0/0", "1/0", "1/1");
  }

  @Test
  void shouldCallFewerReadyThanWantedDegradedAndNoneInterruptedSeparately() {
    // Three replicas; a drain evicts two at 600 s, the third at 650 s; replacements Ready at 700 s
    // and 800 s (two) .
    WorkloadMember a = disrupted(servedFrom(pod("a", 0), 1, 50), "eviction-api", 600).build();
    WorkloadMember b = disrupted(servedFrom(pod("b", 0), 1, 60), "eviction-api", 600).build();
    WorkloadMember c = disrupted(servedFrom(pod("c", 0), 1, 70), "eviction-api", 650).build();
    WorkloadMember d = servedFrom(pod("d", 600.1), 650, 700).build();
    WorkloadMember e = servedFrom(pod("e", 600.2), 760, 800).build();
    WorkloadMember f = servedFrom(pod("f", 650.1), 760, 800).build();

    WorkloadTimeline t = view(List.of(a, b, c, d, e, f), 1000);

    assertThat(t.getDegraded())
        .extracting(ServiceInterval::getStart, ServiceInterval::getEnd, ServiceInterval::getCause)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(at(600), at(650), "eviction-api"),
            org.assertj.core.groups.Tuple.tuple(at(700), at(800), "eviction-api"));
    assertThat(t.getInterruptions())
        .extracting(ServiceInterval::getStart, ServiceInterval::getEnd)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(at(650), at(700)));
    assertThat(t.getDegradedMs()).isEqualTo(150_000L);
    assertThat(t.getInterruptionMs()).isEqualTo(50_000L);
    assertThat(t.getRecoveries())
        .extracting(Recovery::getPod, Recovery::getReplacement, Recovery::getToReadyMs)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", "d", 100_000L),
            org.assertj.core.groups.Tuple.tuple("b", "e", 200_000L),
            org.assertj.core.groups.Tuple.tuple("c", "f", 150_000L));
    assertThat(t.getEvictions()).isEqualTo(3);
    assertThat(t.getDesired()).isEqualTo(3);
    assertThat(t.getReady()).isEqualTo(3);
  }

  @Test
  void shouldUseTheObservedDesiredReplicasOverTheInference() {
    // The Deployment wants 2 from 0 s; only one pod ever became Ready, and it is evicted at 600 s
    // with its replacement Ready at 700 s: 1 of 2 is degraded only from a loss on.
    WorkloadMember a = disrupted(servedFrom(pod("a", 0), 1, 50), "taint-manager", 600).build();
    WorkloadMember b = pod("b", 0).build(); // never scheduled
    WorkloadMember c = servedFrom(pod("c", 600.5), 640, 700).build();

    WorkloadTimeline t =
        WorkloadContinuity.view(
            CHAT,
            List.of(a, b, c),
            List.of(new DesiredStep(at(0), 2)),
            List.of(),
            List.of(),
            at(1000));

    assertThat(t.getDesiredSource()).isEqualTo("observed");
    assertThat(t.getDesired()).isEqualTo(2);
    assertThat(t.getReady()).isEqualTo(1);
    assertThat(t.getInterruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getStart()).isEqualTo(at(600));
              assertThat(i.getEnd()).isEqualTo(at(700));
              assertThat(i.getCause()).isEqualTo("taint-manager");
            });
    assertThat(t.getDegraded()).as("a cold start below strength is no loss").isEmpty();
  }

  @Test
  void shouldLeaveAnInterruptionOpenUntilTheReplacementIsReady() {
    WorkloadMember a = disrupted(servedFrom(pod("a", 0), 1, 50), "eviction-api", 600).build();
    WorkloadMember b = pod("b", 600.3).build(); // pending: the node is cordoned

    WorkloadTimeline t = view(List.of(a, b), 900);

    assertThat(t.getInterruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getEnd()).isNull();
              assertThat(i.getDurationMs()).isNull();
            });
    assertThat(t.getInterruptionMs()).as("open: up to now").isEqualTo(300_000L);
    assertThat(WorkloadContinuity.closedMs(t.getInterruptions())).isZero();
    assertThat(t.getRecoveries())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReplacement()).isEqualTo("b");
              assertThat(r.getToScheduledMs()).isNull();
              assertThat(r.getToReadyMs()).isNull();
            });
  }

  @Test
  void shouldGiveAJobPreemptedTwiceTwoRecoveriesInOrder() {
    WorkloadKey job = WorkloadKey.parse("ai-lab/Job/asr/u-job");
    WorkloadMember p1 = disrupted(servedFrom(pod("p1", 0), 1, 40), "preemption", 300).build();
    WorkloadMember p2 =
        disrupted(servedFrom(pod("p2", 300.1), 500, 540), "preemption", 900).build();
    WorkloadMember p3 =
        servedFrom(pod("p3", 900.2), 1000, 1030)
            .setReadyEndAt(at(2000))
            .setStoppedAt(at(2000))
            .setOutcome("Succeeded")
            .build();

    WorkloadTimeline t =
        WorkloadContinuity.view(
            job, List.of(p3, p1, p2), List.of(), List.of(), List.of(), at(2500));

    assertThat(t.getControllerUid()).isEqualTo("u-job");
    assertThat(t.getRecoveries())
        .extracting(Recovery::getPod, Recovery::getReplacement, Recovery::getToReadyMs)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("p1", "p2", 240_000L),
            org.assertj.core.groups.Tuple.tuple("p2", "p3", 130_000L));
    assertThat(t.getInterruptions())
        .extracting(ServiceInterval::getDurationMs)
        .containsExactly(240_000L, 130_000L);
    assertThat(t.getDesired()).as("the Job completed: nothing wanted").isZero();
    assertThat(t.getPreemptions()).isEqualTo(2);
  }

  @Test
  void shouldGiveTheSameTimelineWhateverTheOrderOfItsPods() {
    List<WorkloadMember> pods = new ArrayList<>();
    pods.add(disrupted(servedFrom(pod("a", 0), 1, 50), "eviction-api", 600).build());
    pods.add(disrupted(servedFrom(pod("b", 0), 1, 60), "preemption", 610).build());
    pods.add(servedFrom(pod("c", 600.1), 650, 700).build());
    pods.add(servedFrom(pod("d", 610.1), 760, 800).build());
    WorkloadTimeline expected = view(pods, 1000);
    Random random = new Random(8);
    for (int i = 0; i < 20; i++) {
      Collections.shuffle(pods, random);
      assertThat(view(pods, 1000)).isEqualTo(expected);
    }
  }

  @Test
  void shouldNotCallAJobThatCompletedAndWasCleanedUpByItsTtlInterrupted() {
    // The Job's pod succeeds at 900 s; ttlSecondsAfterFinished deletes it 60 s later.
    PodTimeline t =
        PodTimeline.newBuilder()
            .setUid("j")
            .setCreatedAt(at(0))
            .setScheduledAt(at(1))
            .setReadyAt(at(30))
            .setTerminatedAt(at(900))
            .setOutcome("Succeeded")
            .setUpdatedAt(at(961))
            .build();
    WorkloadMember m = WorkloadContinuity.memberOf(t, deletionAskedAt(at(960)));

    assertThat(m.getStoppedAt()).isEqualTo(at(900));
    WorkloadTimeline w =
        WorkloadContinuity.view(
            WorkloadKey.parse("ai-lab/Job/embed/u-1"),
            List.of(m),
            List.of(),
            List.of(),
            List.of(),
            at(1000));
    assertThat(w.getInterruptions()).isEmpty();
    assertThat(w.getDesired()).isZero();
  }

  /** A plain deletion, as the ReplicaSet controller deletes a pod: no DisruptionTarget. */
  static WorkloadMember.Builder deleted(WorkloadMember.Builder p, double at) {
    return p.setReadyEndAt(at(at))
        .setStoppedAt(at(at))
        .setDisruptionCause("deletion")
        .setDisruptionAt(at(at))
        .setOutcome("Deleted");
  }

  @Test
  void shouldCallARolloutWithMaxUnavailableAnInterruptionCausedByTheRollout() {
    // One GPU, one replica: maxSurge 0, maxUnavailable 1. The old ReplicaSet's pod is deleted at
    // 600 s, the new ReplicaSet's pod created at once, Ready at 750 s.
    WorkloadMember old =
        deleted(servedFrom(pod("old", 0), 1, 50).setTemplateHash("5d8f7"), 600).build();
    WorkloadMember fresh =
        servedFrom(pod("new", 600.2).setTemplateHash("6c9a1"), 640, 750)
            .setFirstOkAt(at(751))
            .build();

    assertThat(WorkloadContinuity.rolledOut(List.of(old, fresh))).containsOnlyKeys("old");
    WorkloadTimeline t = view(List.of(old, fresh), 1000);

    assertThat(t.getInterruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getCause()).isEqualTo("rollout");
              assertThat(i.getDurationMs()).isEqualTo(150_000L);
            });
    assertThat(t.getRecoveries())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getCause()).isEqualTo("rollout");
              assertThat(r.getReplacement()).isEqualTo("new");
              assertThat(r.getToFirstOkMs()).isEqualTo(151_000L);
            });
  }

  @Test
  void shouldSeeNoInterruptionInARolloutWithMaxSurgeAndTheNewPodFirst() {
    // maxSurge 1, maxUnavailable 0: the new pod is created at 500 s and Ready at 650 s; only then
    // is the old one deleted.
    WorkloadMember old =
        deleted(servedFrom(pod("old", 0), 1, 50).setTemplateHash("5d8f7"), 651).build();
    WorkloadMember fresh = servedFrom(pod("new", 500).setTemplateHash("6c9a1"), 501, 650).build();

    WorkloadTimeline t = view(List.of(old, fresh), 1000);

    assertThat(t.getInterruptions()).isEmpty();
    assertThat(t.getDegraded()).isEmpty();
    assertThat(t.getRecoveries())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReplacement()).isEqualTo("new");
              assertThat(r.getToReadyMs()).as("Ready before the old pod went").isZero();
            });
  }

  @Test
  void shouldNotCallAScaleDownAndALaterScaleUpOfTheSameTemplateARollout() {
    WorkloadMember a =
        deleted(servedFrom(pod("a", 0), 1, 50).setTemplateHash("5d8f7"), 600).build();
    WorkloadMember b = servedFrom(pod("b", 900).setTemplateHash("5d8f7"), 901, 1000).build();
    WorkloadMember c = pod("c", 1500).setTemplateHash("6c9a1").build();

    assertThat(WorkloadContinuity.rolledOut(List.of(a, b, c)))
        .as("c came long after a's deletion; b has a's template")
        .isEmpty();
  }

  @Test
  void shouldFindTheSameRolloutsAsComparingEveryPairOfPods() {
    // The definition, pair by pair, against the sorted search on random Deployments: rollouts with
    // and without surge, scale-downs, equal creation times, pods without a hash or a time.
    Random random = new Random(20261203);
    String[] hashes = {"5d8f7", "6c9a1", "7f2b4", null};
    String[] causes = {null, "deletion", "preemption", "eviction-api"};
    for (int round = 0; round < 500; round++) {
      List<WorkloadMember> pods = new ArrayList<>();
      int n = random.nextInt(40);
      for (int i = 0; i < n; i++) {
        WorkloadMember.Builder p =
            pod("p" + i, random.nextInt(60) * 10)
                .setTemplateHash(hashes[random.nextInt(random.nextInt(4) + 1)]);
        if (random.nextInt(8) == 0) {
          p.setCreatedAt(null);
        }
        if (random.nextBoolean()) {
          p.setStoppedAt(at(random.nextInt(70) * 10 + random.nextInt(3) * 0.5));
          p.setDisruptionCause(causes[random.nextInt(causes.length)]);
          p.setOutcome(random.nextInt(5) == 0 ? "Succeeded" : "Deleted");
        }
        pods.add(p.build());
      }
      assertThat(WorkloadContinuity.rolledOut(pods)).as("round %d", round).isEqualTo(byPairs(pods));
    }
  }

  /** rolledOut's definition, every pair compared. */
  private static Map<String, Long> byPairs(List<WorkloadMember> pods) {
    Map<String, Long> out = new HashMap<>();
    for (WorkloadMember p : pods) {
      boolean plain = p.getDisruptionCause() == null || "deletion".equals(p.getDisruptionCause());
      if (!plain
          || p.getTemplateHash() == null
          || p.getStoppedAt() == null
          || p.getCreatedAt() == null
          || "Succeeded".equals(p.getOutcome())) {
        continue;
      }
      for (WorkloadMember q : pods) {
        if (q.getTemplateHash() != null
            && !q.getTemplateHash().equals(p.getTemplateHash())
            && q.getCreatedAt() != null
            && q.getCreatedAt() > p.getCreatedAt()
            && q.getCreatedAt() <= p.getStoppedAt() + WorkloadContinuity.REPLACEMENT_SLACK_MS) {
          out.put(p.getUid(), p.getStoppedAt());
        }
      }
    }
    return out;
  }

  @Test
  void shouldEndReadinessWhenTheNodeControllerMarksThePodNotReady() {
    // The node went unreachable at 600 s; 40 s later the node controller set Ready=False on its
    // pods; the taint manager evicts them only after tolerationSeconds (300 s).
    PodTimeline t =
        PodTimeline.newBuilder()
            .setUid("a")
            .setCreatedAt(at(0))
            .setReadyAt(at(100))
            .setOutcome("Evicted")
            .setDisruption(new Disruption("taint-manager", at(940), "taint-eviction-controller"))
            .setUpdatedAt(at(941))
            .build();
    TimelineState s = deletionAskedAt(at(940));
    s.getLatest().setReadyLostAt(at(640));

    assertThat(WorkloadContinuity.memberOf(t, s).getReadyEndAt()).isEqualTo(at(640));
    s.getLatest().setReadyLostAt(at(50));
    assertThat(WorkloadContinuity.memberOf(t, s).getReadyEndAt())
        .as("a not-Ready before it was first Ready is no loss")
        .isEqualTo(at(940));
  }

  @Test
  void shouldNotCallAScaleDownSeenJustBeforeTheObjectsNewReplicaCountAnInterruption() {
    // The Deployment is scaled to 0 at 600.4 s (read time); its pod's deletion shows 600 s.
    WorkloadMember a = deleted(servedFrom(pod("a", 0), 1, 50), 600).build();

    WorkloadTimeline t =
        WorkloadContinuity.view(
            CHAT,
            List.of(a),
            List.of(new DesiredStep(at(0), 1), new DesiredStep(at(600.4), 0)),
            List.of(),
            List.of(),
            at(1000));

    assertThat(t.getInterruptions()).isEmpty();
    assertThat(t.getDesired()).isZero();
  }

  @Test
  void shouldEndAPodsReadinessAtItsDeletionRequestNotAtItsContainersEnd() {
    // A terminating pod leaves the Service's endpoints when its deletion is asked for; its
    // container may drain for the grace period after that.
    PodTimeline t =
        PodTimeline.newBuilder()
            .setUid("a")
            .setCreatedAt(at(0))
            .setReadyAt(at(100))
            .setTerminatedAt(at(630))
            .setOutcome("Deleted")
            .setDisruption(new Disruption("deletion", at(600), null))
            .setUpdatedAt(at(631))
            .build();

    WorkloadMember m = WorkloadContinuity.memberOf(t, deletionAskedAt(at(600)));

    assertThat(m.getReadyEndAt()).isEqualTo(at(600));
    assertThat(m.getStoppedAt()).isEqualTo(at(600));
    TimelineState evicted = deletionAskedAt(null);
    evicted.getLifecycle().setGone(true);
    evicted.getDisruption().setDisruptionCause("taint-manager");
    evicted.getDisruption().setDisruptionAt(at(600));
    assertThat(WorkloadContinuity.memberOf(t, evicted).getReadyEndAt())
        .as("without the deletion request: the disruption's time")
        .isEqualTo(at(600));
  }
}
