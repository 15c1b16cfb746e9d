package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static io.schedlens.testsupport.Inputs.sec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.testsupport.Inputs;
import io.schedlens.testsupport.PodLives;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The timeline numbers of docs/design.md section 4, from inputs shaped as Kubernetes writes them.
 * Times: {@code at(s)} is T0 + s seconds with millisecond precision (event times), {@code sec(s)}
 * the same truncated to the second (metadata, conditions, container states).
 */
public class TimelineReducerTest {

  static final TimelineSettings SETTINGS =
      TimelineSettings.defaults().withSlos(Map.of("chat", 500.0, "interactive", 800.0));
  final TimelineReducer reducer = new TimelineReducer(SETTINGS);
  final TimelineView view = new TimelineView(SETTINGS);

  TimelineState run(List<Object> inputs) {
    TimelineState s = null;
    for (Object i : inputs) {
      if (s == null) {
        s = TimelineReducer.empty(uidOf(i));
      }
      reducer.applyAny(s, i);
    }
    return s;
  }

  static String uidOf(Object i) {
    if (i instanceof PodObservation p) {
      return p.getUid();
    }
    if (i instanceof ClusterEvent e) {
      return e.getRegarding().getUid();
    }
    return "uid";
  }

  PodTimeline finalView(TimelineState s) {
    return view.view(s, at(10_000), true);
  }

  /** An interactive inference pod: waits, is scheduled, loads its model, serves. */
  @Test
  void shouldPreferTheMicrosecondScheduledEventOverTheSecondGranularCondition() {
    PodTimeline t = finalView(run(PodLives.interactiveLife()));

    assertThat(t.getCreatedAt()).isEqualTo(sec(0));
    assertThat(t.getScheduledAt())
        .as("the Scheduled event, not the condition's second")
        .isEqualTo(at(5.123));
    assertThat(t.getPendingMs()).isEqualTo(5123);
    assertThat(t.getRunningAt()).isEqualTo(sec(8));
    assertThat(t.getStartupMs()).isEqualTo(8000 - 5123);
    assertThat(t.getReadyAt()).isEqualTo(sec(20));
    assertThat(t.getModelLoadMs()).isEqualTo(12_000);
    assertThat(t.getTimeToReadyMs()).isEqualTo(20_000);
    assertThat(t.getFirstOkRequestAt())
        .as("the 19.5 s request came before Ready")
        .isEqualTo(at(21.25));
    assertThat(t.getTimeToFirstOkMs()).isEqualTo(21_250);
    assertThat(t.getWorkload().getKind()).isEqualTo("Deployment");
    assertThat(t.getWorkload().getName()).isEqualTo("chat-5d8f7".replace("-5d8f7", ""));
    assertThat(t.getArm()).isEqualTo("treatment");
    assertThat(t.getFailedSchedulingCount()).isEqualTo(3);
    assertThat(t.getPendingReasons()).containsExactly(Map.entry("Insufficient nvidia.com/gpu", 1));
    assertThat(t.getPreemptionAttempted()).isTrue();
    assertThat(t.getOutcome()).isEqualTo("Running");
    assertThat(t.getDisruption()).isNull();
  }

  @Test
  void shouldTakePendingReasonsFromTheUnschedulableConditionWhenNoEventSaysWhy() {
    // As `kubectl get pods -o json` shows a pending pod once its events have expired (after an
    // hour): only the PodScheduled condition carries the scheduler's note.
    Inputs.Pod p =
        new Inputs.Pod("u-asr-9", "ai-lab", "asr-9", "Job", "asr", "asr-batch", 500, 1)
            .condition(
                "PodScheduled",
                "False",
                2,
                "Unschedulable",
                "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.");
    PodTimeline t = view.view(run(List.of(p.seen(ChangeType.RELIST, 3600))), at(3600), false);

    assertThat(t.getPendingReasons())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("Insufficient nvidia.com/gpu", 2, "untolerated taint", 1));
    assertThat(t.getPreemptionAttempted()).isTrue();
    assertThat(t.getFailedSchedulingCount()).as("a condition is not an attempt count").isZero();
    assertThat(t.getOutcome()).isEqualTo("Pending");
  }

  @Test
  void shouldCountRequestsErrorsSloBreachesAndQuantiles() {
    PodTimeline t = finalView(run(PodLives.interactiveLife()));

    assertThat(t.getRequests()).isEqualTo(5);
    assertThat(t.getErrors()).as("one 503 and one without answer").isEqualTo(2);
    assertThat(t.getSloBreaches()).as("over the chat service's 500 ms: 30000 and 900").isEqualTo(2);
    // DDSketch's quantile of n values is the value of rank floor(q (n - 1)), within 2 %:
    // of 40, 120, 300, 900 and 30000 ms the median is 300 and p99 is 900.
    assertThat(t.getLatencyP50Ms()).isCloseTo(300, within(300 * 0.03));
    assertThat(t.getLatencyP99Ms()).isCloseTo(900, within(900 * 0.03));
  }

  @Test
  void shouldComputeBusyAndIdleGpuSecondsFromSamples() {
    TimelineState s = run(PodLives.interactiveLife());
    PodTimeline t = view.view(s, at(128), false);

    // Running since 8 s, 1 GPU, seen at 128 s: 120 GPU-s allocated. Eight samples at 40 %, each
    // standing for the 15 s before it: 8 x 0.4 x 15 = 48 busy GPU-s.
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(120.0, within(1e-9));
    assertThat(t.getBusyGpuSeconds()).isCloseTo(48.0, within(1e-9));
    assertThat(t.getIdleAllocatedGpuSeconds()).isCloseTo(72.0, within(1e-9));
    assertThat(t.getUnsampledGpuSeconds()).as("every second sampled").isCloseTo(0, within(1e-9));
    assertThat(t.getWastedGpuSeconds()).as("a running pod wastes nothing").isNull();
  }

  /**
   * The exporter (or the collector) away for five minutes: the gap is missing data, counted neither
   * busy nor idle. Samples every 15 s at 40 % from 23 s to 128 s, none until the one at 450 s,
   * which says 322 s passed since the previous (longer than gpu.max.gap: it stands for 60 s), then
   * every 15 s again until 510 s. Allocated from 8 s to 510 s: 502 GPU-s.
   */
  @Test
  void shouldCountAGapInTheSamplesAsMissingDataNotIdle() {
    List<Object> in = new ArrayList<>(PodLives.interactiveLife());
    in.add(Inputs.gpu("GPU-1", "ai-lab", "chat-5d8f7-abcde", at(450), 40, 322_000L));
    for (int i = 1; i <= 4; i++) {
      in.add(Inputs.gpu("GPU-1", "ai-lab", "chat-5d8f7-abcde", at(450 + 15 * i), 40, 15_000L));
    }
    PodTimeline t = view.view(run(in), at(510), false);

    // sampled: 8 x 15 (the first stands for one scrape interval) + 60 + 4 x 15 = 240 GPU-s
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(502.0, within(1e-9));
    assertThat(t.getBusyGpuSeconds()).isCloseTo(0.4 * 240, within(1e-9));
    assertThat(t.getIdleAllocatedGpuSeconds()).isCloseTo(0.6 * 240, within(1e-9));
    assertThat(t.getUnsampledGpuSeconds()).isCloseTo(502.0 - 240, within(1e-9));
    assertThat(t.getBusyGpuSeconds() + t.getIdleAllocatedGpuSeconds() + t.getUnsampledGpuSeconds())
        .isCloseTo(t.getAllocatedGpuSeconds(), within(1e-9));
  }

  @Test
  void shouldCountAPreemptionWhoseEventArrivesAfterTheDeletedObservation() {
    List<Object> in = PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0");
    TimelineState s = TimelineReducer.empty("u-asr-1");
    List<Outbound> outbound = new ArrayList<>();
    for (Object i : in) {
      outbound.addAll(reducer.applyAny(s, i).outbound());
    }
    PodTimeline t = finalView(s);

    assertThat(in.get(in.size() - 1)).isInstanceOf(ClusterEvent.class);
    assertThat(t.getOutcome()).isEqualTo("Preempted");
    assertThat(t.getPreemptedAt()).as("the event's precise time").isEqualTo(at(100.5));
    assertThat(t.getPreemptor().getUid()).isEqualTo("u-chat-0");
    assertThat(t.getPreemptor().getName()).isEqualTo("chat-5d8f7-abcde");
    assertThat(t.getDisruption().getCause()).isEqualTo("preemption");
    assertThat(t.getDisruption().getBy()).isEqualTo("ai-lab/chat-5d8f7-abcde");
    assertThat(t.getTerminatedAt()).isEqualTo(sec(130));
    // 1 GPU from the checkpoint at 60 s to the end at 130 s.
    assertThat(t.getWastedGpuSeconds()).isCloseTo(70.0, within(1e-9));
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(120.0, within(1e-9));
    assertThat(t.getBusyGpuSeconds()).isCloseTo(120.0, within(1e-9));
    assertThat(t.getWastedBusyGpuSeconds()).isCloseTo(70.0, within(1.0));
    assertThat(outbound)
        .singleElement()
        .isInstanceOfSatisfying(
            Outbound.ToPreemptor.class,
            l -> {
              assertThat(l.link().getVictimUid()).isEqualTo("u-asr-1");
              assertThat(l.link().getPreemptorUid()).isEqualTo("u-chat-0");
              assertThat(l.link().getAt()).isEqualTo(at(100.5));
            });
  }

  @Test
  void shouldChangeNothingOnRelistedAndDuplicatedInputs() {
    List<Object> in = PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0");
    TimelineState s = run(in);
    PodTimeline once = finalView(s);

    for (Object i : in) {
      if (i instanceof io.schedlens.avro.GpuSample) {
        continue; // a sample delivered twice is the pod stage's to count once (its second's ids)
      }
      Object again =
          i instanceof PodObservation p
              ? PodObservation.newBuilder(p).setChangeType(ChangeType.RELIST).build()
              : i;
      Change c = reducer.applyAny(s, again);
      assertThat(c.isNone()).as("re-applying %s", i.getClass().getSimpleName()).isTrue();
    }

    assertThat(finalView(s)).isEqualTo(once);
  }

  @Test
  void shouldGiveTheSameTimelineForAnyOrderWithinTheGracePeriod() {
    List<Object> in =
        new ArrayList<>(PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0"));
    PodTimeline ordered = finalView(run(in));
    SplittableRandom random = new SplittableRandom(11);
    long grace = SETTINGS.grace().toMillis();
    for (int round = 0; round < 200; round++) {
      List<Object[]> keyed = new ArrayList<>();
      for (int i = 0; i < in.size(); i++) {
        keyed.add(new Object[] {i * 1000L + random.nextLong(grace), in.get(i)});
      }
      keyed.sort(Comparator.comparingLong(o -> (Long) o[0]));
      List<Object> shuffled = keyed.stream().map(o -> o[1]).toList();
      TimelineState s = TimelineReducer.empty("u-asr-1");
      shuffled.forEach(i -> reducer.applyAny(s, i));
      assertThat(finalView(s)).as("round %d", round).isEqualTo(ordered);
    }
  }

  static VictimLink link(String victim) {
    return VictimLink.newBuilder()
        .setVictimUid(victim)
        .setVictimNamespace("ai-lab")
        .setVictimName("asr-batch-" + victim)
        .setPreemptorUid("u-chat-0")
        .setPreemptorNamespace("ai-lab")
        .setPreemptorName("chat-5d8f7-abcde")
        .setAt(at(100.5))
        .build();
  }

  @Test
  void shouldLinkOnePreemptorWithTwoVictimsEvenBeforeItIsObserved() {
    TimelineState preemptor = TimelineReducer.empty("u-chat-0");
    Change first = reducer.apply(preemptor, link("u-asr-1"));
    assertThat(first.outbound()).as("who it is is not known yet").isEmpty();

    Change observed = reducer.applyAny(preemptor, PodLives.interactiveLife().get(0));
    Change second = reducer.apply(preemptor, link("u-asr-2"));
    Change duplicate = reducer.apply(preemptor, link("u-asr-2"));

    assertThat(preemptor.getDisruption().getVictims()).containsExactly("u-asr-1", "u-asr-2");
    assertThat(observed.outbound())
        .singleElement()
        .isInstanceOfSatisfying(
            Outbound.ToVictim.class,
            d -> {
              assertThat(d.details().getVictimUid()).isEqualTo("u-asr-1");
              assertThat(d.details().getPreemptor().getPriorityClass()).isEqualTo("interactive");
              assertThat(d.details().getPreemptor().getPriority()).isEqualTo(100000);
            });
    assertThat(second.outbound()).singleElement().isInstanceOf(Outbound.ToVictim.class);
    assertThat(duplicate.meaningful()).isFalse();
    assertThat(finalView(preemptor).getVictims()).containsExactly("u-asr-1", "u-asr-2");
  }

  @Test
  void shouldLinkToThePreemptorOnlyOnceTheVictimKnowsItsOwnName() {
    List<Object> life = PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0");
    Object event = life.get(life.size() - 1);
    TimelineState victim = TimelineReducer.empty("u-asr-1");

    Change early = reducer.applyAny(victim, event);
    assertThat(early.outbound())
        .as("the answer could not find a victim that does not know its own name yet")
        .isEmpty();

    List<Outbound> later = new ArrayList<>();
    for (Object o : life.subList(0, life.size() - 1)) {
      later.addAll(reducer.applyAny(victim, o).outbound());
    }
    assertThat(later)
        .singleElement()
        .isInstanceOfSatisfying(
            Outbound.ToPreemptor.class,
            l -> {
              assertThat(l.link().getVictimNamespace()).isEqualTo("ai-lab");
              assertThat(l.link().getVictimName()).isEqualTo("asr-batch-x1");
              assertThat(l.link().getPreemptorUid()).isEqualTo("u-chat-0");
            });
  }

  @Test
  void shouldTakeThePreemptorsOwnAnswerForItsPriorityClass() {
    TimelineState victim = run(PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0"));
    TimelineState preemptor = run(PodLives.interactiveLife());

    Change answer = reducer.apply(preemptor, link("u-asr-1"));
    Outbound.ToVictim details = (Outbound.ToVictim) answer.outbound().get(0);
    reducer.apply(victim, details.details());

    assertThat(finalView(victim).getPreemptor().getPriorityClass()).isEqualTo("interactive");
    assertThat(finalView(victim).getPreemptor().getPriority()).isEqualTo(100000);
  }

  @Test
  void shouldKeepTheFirstReadyWhenReadyFlipsBackToFalse() {
    Inputs.Pod p =
        new Inputs.Pod("u-1", "ai-lab", "chat-0", "StatefulSet", "chat", "interactive", 100000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .phase("Running")
            .running("model", 2, 0, true)
            .condition("Ready", "True", 20, null, null);
    TimelineState s = run(List.of(p.seen(ChangeType.ADDED, 21)));
    p.condition("Ready", "False", 50, "ContainersNotReady", null).running("model", 2, 1, false);
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 51));
    p.condition("Ready", "True", 70, null, null).running("model", 2, 1, true);
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 71));

    PodTimeline t = finalView(s);
    assertThat(t.getReadyAt()).isEqualTo(sec(20));
    assertThat(t.getRestarts()).isEqualTo(1);
    assertThat(t.getWorkload().getKind()).isEqualTo("StatefulSet");
  }

  @Test
  void shouldReportANeverScheduledPodFromCreationToItsDeletion() {
    // The pending GPU pod of testdata/real/pods/troubleshoot-message-pending-pod-resources.json:
    // created 04:20:29, Unschedulable, FailedScheduling with series count 3, then deleted.
    long created = java.time.Instant.parse("2023-07-11T04:20:29Z").toEpochMilli();
    PodObservation pending =
        PodObservation.newBuilder()
            .setUid("e4d4c4cc-2c41-4ab7-b41c-9c8b28ded451")
            .setNamespace("message-image-pull-fail")
            .setName("pending-pod-resources-5fddcf7688-djjfc")
            .setResourceVersion("983556")
            .setChangeType(ChangeType.RELIST)
            .setObservedAt(created + 60_000)
            .setCreatedAt(created)
            .setGpus(5)
            .setOwner(
                new io.schedlens.avro.OwnerReference(
                    "ReplicaSet", "pending-pod-resources-5fddcf7688", null))
            .setPhase("Pending")
            .setPriority(0)
            .setConditions(
                List.of(
                    new io.schedlens.avro.PodCondition(
                        "PodScheduled", "False", "Unschedulable", null, created)))
            .build();
    ClusterEvent failed =
        ClusterEvent.newBuilder(
                Inputs.event(
                    "fs-1",
                    pending.getUid(),
                    "FailedScheduling",
                    "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
                    java.time.Instant.parse("2023-07-11T04:25:44.224Z").toEpochMilli(),
                    3))
            .setSeriesLastObservedTime(
                java.time.Instant.parse("2023-07-11T04:40:44.264Z").toEpochMilli())
            .build();
    ClusterEvent skip =
        Inputs.event(
            "fs-2",
            pending.getUid(),
            "FailedScheduling",
            "skip schedule deleting pod: default/pending-pod-resources-5fddcf7688-djjfc",
            java.time.Instant.parse("2023-07-11T04:43:08.570Z").toEpochMilli(),
            null);
    long deleteAt = java.time.Instant.parse("2023-07-11T04:43:08Z").toEpochMilli();
    PodObservation deleted =
        PodObservation.newBuilder(pending)
            .setResourceVersion("984521")
            .setChangeType(ChangeType.DELETED)
            .setObservedAt(deleteAt + 800)
            .setDeletionTimestamp(deleteAt)
            .setDeletionGracePeriodSeconds(0L)
            .build();

    PodTimeline t = finalView(run(List.of(pending, failed, skip, deleted)));

    assertThat(t.getNeverScheduled()).isTrue();
    assertThat(t.getScheduledAt()).isNull();
    assertThat(t.getTerminatedAt()).isEqualTo(deleteAt);
    assertThat(t.getPendingMs()).isEqualTo(deleteAt - created);
    assertThat(t.getFailedSchedulingCount())
        .as("the series' 3; the deletion notice is not an attempt")
        .isEqualTo(3);
    assertThat(t.getPendingReasons()).containsExactly(Map.entry("Insufficient nvidia.com/gpu", 1));
    assertThat(t.getOutcome()).isEqualTo("Deleted");
    assertThat(t.getDisruption().getCause()).isEqualTo("deletion");
    assertThat(t.getStartupMs()).isNull();
    assertThat(t.getAllocatedGpuSeconds()).isNull();
    assertThat(t.getWastedGpuSeconds()).isNull();
    assertThat(t.getStarving()).as("pending 22 minutes, over the 10 minute threshold").isTrue();
  }

  @Test
  void shouldNotCallACompletedJobWasteful() {
    Inputs.Pod p =
        new Inputs.Pod("u-emb", "ai-lab", "embed-1", "Job", "embedding-batch", "batch-mid", 5000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("embed", 3, 0, true);
    TimelineState s = run(List.of(p.seen(ChangeType.ADDED, 3.5)));
    p.terminated("embed", 3, 603, 0, "Completed").phase("Succeeded");
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 603.5));
    reducer.apply(s, p.seen(ChangeType.DELETED, 700));

    PodTimeline t = finalView(s);
    assertThat(t.getOutcome()).isEqualTo("Succeeded");
    assertThat(t.getTerminatedAt())
        .as("the container's finish, not the later deletion")
        .isEqualTo(sec(603));
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(600.0, within(1e-9));
    assertThat(t.getDisruption()).isNull();
    assertThat(t.getWastedGpuSeconds()).isNull();
  }

  @Test
  void shouldCallAPreemptedServerThatExitsZeroOnSigtermPreempted() {
    // Kubernetes 1.27+: the kubelet gives the deleted pod the phase its containers' exit codes
    // imply; an inference server that handles SIGTERM exits 0, so the pod ends Succeeded.
    Inputs.Pod p =
        new Inputs.Pod(
                "u-chat-9", "ai-lab", "chat-5d8f7-zzzzz", "ReplicaSet", "chat-5d8f7", "x", 5, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", 3, 0, true);
    TimelineState s = run(List.of(p.seen(ChangeType.ADDED, 3.5)));
    p.condition(
            "DisruptionTarget",
            "True",
            100,
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod")
        .deleting(100, 30);
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 100.5));
    p.terminated("model", 3, 104, 0, "Completed").phase("Succeeded");
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 104.5));
    reducer.apply(s, p.seen(ChangeType.DELETED, 105));

    PodTimeline t = finalView(s);
    assertThat(t.getOutcome()).isEqualTo("Preempted");
    assertThat(t.getDisruption().getCause()).isEqualTo("preemption");
  }

  @Test
  void shouldCallAScaledDownServerThatExitsZeroDeleted() {
    Inputs.Pod p =
        new Inputs.Pod(
                "u-chat-8", "ai-lab", "chat-5d8f7-yyyyy", "ReplicaSet", "chat-5d8f7", "x", 5, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", 3, 0, true);
    TimelineState s = run(List.of(p.seen(ChangeType.ADDED, 3.5)));
    p.deleting(100, 30);
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 100.5));
    p.terminated("model", 3, 104, 0, "Completed").phase("Succeeded");
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 104.5));
    reducer.apply(s, p.seen(ChangeType.DELETED, 105));

    assertThat(finalView(s).getOutcome()).isEqualTo("Deleted");
  }

  @Test
  void shouldNameThePreemptorFromTheKubernetes126ConditionMessage() {
    Inputs.Pod p =
        new Inputs.Pod("u-v", "default", "pause1", null, null, "low", 0, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .phase("Running")
            .running("pause", 2, 0, true)
            .condition(
                "DisruptionTarget",
                "True",
                40,
                "PreemptionByKubeScheduler",
                "Kube-scheduler: preempting to accommodate a higher priority pod: default/pause2");
    TimelineState s = TimelineReducer.empty("u-v");
    Change c = reducer.apply(s, p.seen(ChangeType.MODIFIED, 41));

    PodTimeline t = finalView(s);
    assertThat(t.getPreemptedAt()).isEqualTo(sec(40));
    assertThat(t.getPreemptor().getName()).isEqualTo("pause2");
    assertThat(t.getPreemptor().getUid()).isNull();
    assertThat(c.outbound())
        .singleElement()
        .isInstanceOfSatisfying(
            Outbound.ToPreemptor.class,
            l -> {
              assertThat(l.link().getPreemptorUid()).isNull();
              assertThat(l.link().getPreemptorNamespace() + "/" + l.link().getPreemptorName())
                  .isEqualTo("default/pause2");
            });
  }

  @ParameterizedTest
  @CsvSource({
    "EvictionByEvictionAPI,Eviction API: evicting,,eviction-api,Evicted",
    "DeletionByTaintManager,Taint manager: deleting due to NoExecute taint,,taint-manager,Evicted",
    "DeletionByPodGC,PodGC: node no longer exists,,pod-gc,Evicted",
    "TerminationByKubelet,The node was low on resource: memory.,Evicted,kubelet-eviction,Evicted",
    "TerminationByKubelet,Pod was terminated in response to imminent node shutdown.,Terminated,node-shutdown,Evicted",
    ",,Preempting,critical-pod-admission,Evicted",
  })
  void shouldNameTheDisruptionAsKubernetesReportsIt(
      String conditionReason, String message, String statusReason, String cause, String outcome) {
    Inputs.Pod p =
        new Inputs.Pod("u-d", "ai-lab", "asr-1", "Job", "asr-batch", "batch-low", 1000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("asr", 5, 0, true);
    TimelineState s = run(List.of(p.seen(ChangeType.ADDED, 5.5)));
    if (conditionReason != null) {
      p.condition("DisruptionTarget", "True", 50, conditionReason, message);
    }
    p.terminated("asr", 5, 65, 137, "Error").phase("Failed");
    PodObservation failed = p.seen(ChangeType.MODIFIED, 66);
    if (statusReason != null) {
      failed.setReason(statusReason);
    }
    reducer.apply(s, failed);
    reducer.apply(s, p.seen(ChangeType.DELETED, 67));

    PodTimeline t = finalView(s);
    assertThat(t.getDisruption().getCause()).isEqualTo(cause);
    assertThat(t.getOutcome()).isEqualTo(outcome);
    assertThat(t.getWastedGpuSeconds())
        .as("unfinished job work is lost whatever the cause")
        .isCloseTo(60.0, within(1e-9));
  }

  /**
   * A pod the scheduler preempted and whose node the pod garbage collector then cleaned up: the
   * evidence of both may land in one second. The scheduler decided, so the cause is preemption, in
   * whatever order the evidence arrives (the cause strings' alphabetical order would say pod-gc).
   */
  @ParameterizedTest
  @CsvSource({"100.5,preemption", "101.5,pod-gc"})
  void shouldTakeTheDecidingCauseWhenTwoAreSeen(double preemptedAt, String cause) {
    Inputs.Pod p =
        new Inputs.Pod("u-asr-7", "ai-lab", "asr-7", "Job", "asr-batch", "batch-low", 1000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("asr", 5, 0, true);
    PodObservation added = p.seen(ChangeType.ADDED, 5.5);
    p.condition("DisruptionTarget", "True", 100, "DeletionByPodGC", "PodGC: node no longer exists")
        .deleting(100, 0);
    PodObservation marked = p.seen(ChangeType.MODIFIED, 100.2);
    p.terminated("asr", 5, 102, 137, "Error").phase("Failed");
    PodObservation failed = p.seen(ChangeType.MODIFIED, 102.5);
    PodObservation deleted = p.seen(ChangeType.DELETED, 103);
    ClusterEvent preempted =
        Inputs.preempted(
            "ev-pre-7", "u-asr-7", "u-chat-7", "ai-lab", "chat-7", "gpu-node-1", at(preemptedAt));
    List<Object> in = new ArrayList<>(List.of(added, marked, failed, deleted, preempted));

    for (int order = 0; order < 5; order++) {
      // the event first, last and in between: every place it can arrive in
      List<Object> shuffled = new ArrayList<>(in.subList(0, 4));
      shuffled.add(order, preempted);
      PodTimeline t = finalView(run(shuffled));
      assertThat(t.getDisruption().getCause())
          .as("the Preempted event at %s s in place %d", preemptedAt, order)
          .isEqualTo(cause);
      assertThat(t.getOutcome()).isEqualTo(cause.equals("preemption") ? "Preempted" : "Evicted");
    }
  }

  @Test
  void shouldFitAPodsStateInFourKibibytes() {
    TimelineState s = run(PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0"));
    PodLives.interactiveLife().stream()
        .filter(i -> !(i instanceof PodObservation) && !(i instanceof ClusterEvent))
        .forEach(i -> reducer.applyAny(s, i));
    for (int i = 0; i < 2000; i++) {
      reducer.apply(
          s,
          Inputs.request(
              "ai-lab", "asr-batch-x1", "chat", at(200 + i), 200, 50 + (i * 7919) % 5000));
      if (i % 15 == 0) {
        reducer.apply(s, Inputs.gpu("GPU-1", "ai-lab", "asr-batch-x1", at(200 + i), i % 100));
      }
    }
    byte[] bytes = AvroSerde.of(TimelineState.class).serialize("t", s);

    assertThat(bytes.length).isLessThan(4096);
    assertThat(AvroSerde.of(TimelineState.class).deserialize("t", bytes)).isEqualTo(s);
  }
}
