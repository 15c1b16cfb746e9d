package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static io.schedlens.testsupport.Inputs.sec;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueEviction;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.base.DisruptionCause;
import io.schedlens.testsupport.Inputs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Kueue's admissions and evictions, and what they mean for a pod (DESIGN section 4, queues), from
 * Workload observations shaped as Kueue writes them (testdata/kueue; the collector's projection of
 * those files is QueueWorkloadProjectionTest's).
 */
class QueueAdmissionsTest {

  final TimelineReducer reducer = new TimelineReducer(TimelineSettings.defaults());
  final TimelineView view = new TimelineView(TimelineSettings.defaults());

  static QueueCondition c(String type, String status, String reason, double s) {
    return new QueueCondition(type, status, reason, null, sec(s));
  }

  static QueueWorkload workload(List<QueueCondition> conditions) {
    return QueueWorkload.newBuilder()
        .setName("job-asr-batch-7-3c2f1")
        .setUid("w-1")
        .setApiVersion("kueue.x-k8s.io/v1beta2")
        .setCreatedAt(sec(0))
        .setLocalQueue("team-b-queue")
        .setClusterQueue("team-b-cq")
        .setPriorityClass("asr-batch")
        .setConditions(conditions)
        .build();
  }

  /** The four states of the watch recording workloads-requeued.watch.json that tell a fact. */
  static List<QueueWorkload> story() {
    QueueWorkload admitted =
        workload(
            List.of(
                c("Admitted", "True", "Admitted", 2530),
                c("QuotaReserved", "True", "QuotaReserved", 2530)));
    QueueWorkload evicted =
        workload(
            List.of(
                c("Admitted", "False", "NoReservation", 4531),
                c("Evicted", "True", "Preempted", 4530),
                c("Preempted", "True", "InCohortReclamation", 4530),
                c("Requeued", "True", "Preempted", 4530)));
    evicted.setClusterQueue(null);
    evicted.setPreemptor("team-a/JobSet/train-3");
    QueueWorkload again =
        workload(
            List.of(
                c("Admitted", "True", "Admitted", 7502),
                c("Evicted", "False", "QuotaReserved", 7502),
                c("Requeued", "True", "Preempted", 4530)));
    QueueWorkload finished = QueueWorkload.newBuilder(again).build();
    finished.getConditions().add(c("Finished", "True", "Succeeded", 12644));
    return List.of(admitted, evicted, again, finished);
  }

  static QueueAdmissions.Known read(List<QueueWorkload> observations) {
    QueueAdmissions.Known k = new QueueAdmissions.Known(List.of(), List.of());
    for (QueueWorkload w : observations) {
      k = QueueAdmissions.observed(k.admissions(), k.evictions(), w);
    }
    return k;
  }

  @Test
  void eachAdmissionWaitsFromCreationOrFromItsRequeueing() {
    List<QueueAdmission> story =
        QueueAdmissions.story(read(story()).admissions(), read(story()).evictions());

    assertThat(story).hasSize(2);
    assertThat(story.get(0).getAdmittedAt()).isEqualTo(sec(2530));
    assertThat(story.get(0).getWaitSince()).isEqualTo(sec(0));
    assertThat(story.get(0).getQueueWaitMs()).isEqualTo(2_530_000L);
    assertThat(story.get(0).getEviction().getReason()).isEqualTo("Preempted");
    assertThat(story.get(0).getEviction().getPreemptionReason()).isEqualTo("InCohortReclamation");
    assertThat(story.get(0).getEviction().getBy()).isEqualTo("team-a/JobSet/train-3");
    assertThat(story.get(1).getWaitSince()).as("Requeued's transition").isEqualTo(sec(4530));
    assertThat(story.get(1).getQueueWaitMs()).isEqualTo(2_972_000L);
    assertThat(story.get(1).getEviction()).isNull();
  }

  @Test
  void anyOrderAndRepeatsGiveTheSameLists() {
    QueueAdmissions.Known inOrder = read(story());
    Random random = new Random(53);
    for (int i = 0; i < 50; i++) {
      List<QueueWorkload> shuffled = new ArrayList<>(story());
      shuffled.addAll(story().subList(0, random.nextInt(4)));
      Collections.shuffle(shuffled, random);
      assertThat(read(shuffled)).isEqualTo(inOrder);
    }
  }

  @Test
  void anEvictionWhoseAdmissionWasNotSeenStandsAlone() {
    QueueEviction e =
        QueueAdmissions.evictionOf(workload(List.of(c("Evicted", "True", "PodsReadyTimeout", 60))));
    List<QueueAdmission> story = QueueAdmissions.story(List.of(), List.of(e));
    assertThat(story)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.getAdmittedAt()).isNull();
              assertThat(a.getQueueWaitMs()).isNull();
              assertThat(a.getEviction().getReason()).isEqualTo("PodsReadyTimeout");
            });
    assertThat(QueueAdmissions.causeOf(e)).isEqualTo(DisruptionCause.QUEUE_EVICTION);
    assertThat(QueueAdmissions.byOf(e)).isEqualTo("PodsReadyTimeout");
    assertThat(e.getBy()).as("only a preemption names a preemptor").isNull();
  }

  @Test
  void aPodBelongsToTheAdmissionBeforeItsCreationAGatedPodToTheOneAfter() {
    List<QueueAdmission> admissions = read(story()).admissions();
    assertThat(QueueAdmissions.ofPod(admissions, sec(2531), false).getAdmittedAt())
        .isEqualTo(sec(2530));
    assertThat(QueueAdmissions.ofPod(admissions, sec(7503), false).getAdmittedAt())
        .isEqualTo(sec(7502));
    assertThat(QueueAdmissions.ofPod(admissions, sec(7501), false).getAdmittedAt())
        .as("a second of clock skew between Kueue and the API server")
        .isEqualTo(sec(7502));
    assertThat(QueueAdmissions.ofPod(admissions, sec(100), false))
        .as("a pod before any admission (not Kueue's)")
        .isNull();
    assertThat(QueueAdmissions.ofPod(admissions, sec(100), true).getAdmittedAt())
        .as("Kueue's pod integration creates the pod gated, then admits it")
        .isEqualTo(sec(2530));
  }

  @Test
  void onlyAnEvictionThatFoundThePodRunningEndsIt() {
    List<QueueEviction> evictions = read(story()).evictions();
    assertThat(QueueAdmissions.ofRunningPod(evictions, sec(2550), sec(4540))).isNotNull();
    assertThat(QueueAdmissions.ofRunningPod(evictions, sec(2550), null)).isNotNull();
    assertThat(QueueAdmissions.ofRunningPod(evictions, sec(2550), sec(4000)))
        .as("completed before the eviction")
        .isNull();
    assertThat(QueueAdmissions.ofRunningPod(evictions, sec(7520), null))
        .as("a pod of the next admission")
        .isNull();
    assertThat(QueueAdmissions.ofRunningPod(evictions, null, null)).as("never ran").isNull();
  }

  /**
   * A pod of Kueue's pod integration: created with a scheduling gate (PodScheduled=False,
   * SchedulingGated, as kube-scheduler writes it for a gated pod), ungated when admitted, then
   * unschedulable for a while, then scheduled. gatedMs is the gated part of Pending only.
   */
  @Test
  void gatedMsIsThePartOfPendingBehindSchedulingGates() {
    Inputs.Pod p =
        new Inputs.Pod("u-g", "team-a", "embed-group-0", null, null, "embed", 10, 1)
            .label("kueue.x-k8s.io/queue-name", "team-a-queue")
            .condition(
                "PodScheduled",
                "False",
                0,
                "SchedulingGated",
                "Scheduling is blocked due to non-empty scheduling gates");
    TimelineState s = TimelineReducer.empty("u-g");
    reducer.apply(s, p.seen(ChangeType.ADDED, 0.2));
    p.condition(
        "PodScheduled",
        "False",
        7,
        "Unschedulable",
        "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.");
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 7.2));
    p.condition("PodScheduled", "True", 31, null, null).node("gpu-node-1");
    reducer.apply(s, p.seen(ChangeType.MODIFIED, 31.2));
    WorkloadStatus told =
        WorkloadStatus.newBuilder()
            .setPreemptions(0)
            .setCompleted(false)
            .setQueueAdmissions(
                List.of(
                    QueueAdmission.newBuilder()
                        .setAdmittedAt(sec(7))
                        .setWaitSince(sec(0))
                        .setQueueWaitMs(7000L)
                        .setQueue("team-a-queue")
                        .build()))
            .build();
    reducer.apply(s, told);

    PodTimeline t = view.view(s, at(40), false);
    assertThat(t.getPendingMs()).isEqualTo(31_000L);
    assertThat(t.getGatedMs()).as("gated 0 s, ungated at 7 s").isEqualTo(7_000L);
    assertThat(t.getQueue()).isEqualTo("team-a-queue");
    assertThat(t.getAdmittedAt()).as("admitted after the gated pod was created").isEqualTo(sec(7));
    assertThat(t.getQueueWaitMs()).isEqualTo(7_000L);
  }

  @Test
  void aPodStillGatedWhenItGoesAwayWasGatedAllItsPending() {
    Inputs.Pod p =
        new Inputs.Pod("u-g2", "team-a", "embed-group-1", null, null, "embed", 10, 1)
            .condition("PodScheduled", "False", 0, "SchedulingGated", null);
    TimelineState s = TimelineReducer.empty("u-g2");
    reducer.apply(s, p.seen(ChangeType.ADDED, 0.2));
    p.deleting(50, 0);
    reducer.apply(s, p.seen(ChangeType.DELETED, 50.5));

    PodTimeline t = view.view(s, at(60), true);
    assertThat(t.getNeverScheduled()).isTrue();
    assertThat(t.getGatedMs()).isEqualTo(t.getPendingMs()).isEqualTo(50_000L);
  }
}
