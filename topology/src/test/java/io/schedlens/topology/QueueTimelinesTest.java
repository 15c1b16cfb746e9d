package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.k8s.QueueWorkloadProjection;
import io.schedlens.projections.recorded.RecordedObjects;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.schemas.EventTimes;
import io.schedlens.testsupport.Fixtures;
import io.schedlens.testsupport.Inputs;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kueue's queue on the timelines (DESIGN section 4, queues): the Workload of testdata/kueue's watch
 * recording (pending, admitted, preempted within its ClusterQueue, re-queued, admitted again,
 * finished), read as replay and the collector read it, with the pods its Job had in each admission.
 * The recording's times are moved to the test's clock; nothing else of it is changed.
 */
class QueueTimelinesTest {

  static final TopologySettings SETTINGS = TopologySettings.defaults();
  static final String NS = "team-b";
  static final String JOB = "asr-batch-7";
  static final String JOB_UID = "e3b3c1aa-51f4-4b8f-9a0b-2f9a4d9c6e70";
  static final String PREEMPTOR_UID = "7d2b9e10-4a3c-4f1e-8f5d-6b1c0a9e2d44";
  static final String PREEMPTOR = "team-b/Job/asr-urgent-1";

  /** The recording's Workload was created at 09:00:00; the test's clock starts there. */
  static final long SHIFT = Inputs.T0 - Instant.parse("2026-03-02T09:00:00Z").toEpochMilli();

  @TempDir Path stateDir;
  StageDriver driver;

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  /** The recording's Workload observations, as the collector projects them, on the test clock. */
  static List<WorkloadObservation> workloads(String file) {
    Unusable unusable = new Unusable();
    List<WorkloadObservation> out = new ArrayList<>();
    for (RecordedObjects.Item item :
        RecordedObjects.read(Fixtures.text("../kueue/" + file), unusable)) {
      RecordedObjects.QueueWorkloadItem w = (RecordedObjects.QueueWorkloadItem) item;
      for (WorkloadObservation o :
          QueueWorkloadProjection.project(
              w.workload(), w.change(), 0, uid -> uid.equals(PREEMPTOR_UID) ? PREEMPTOR : null)) {
        QueueWorkload q = o.getQueueWorkload();
        q.setCreatedAt(q.getCreatedAt() + SHIFT);
        for (QueueCondition c : q.getConditions()) {
          c.setLastTransitionTime(c.getLastTransitionTime() + SHIFT);
        }
        if (q.getRequeueAt() != null) {
          q.setRequeueAt(q.getRequeueAt() + SHIFT);
        }
        o.setObservedAt(EventTimes.latestFact(q) + 400);
        out.add(o);
      }
    }
    assertThat(unusable.total()).isZero();
    return out;
  }

  /** A pod of the Job, created after an admission; preempted (deleted) or completed. */
  static List<Object> jobPod(String uid, double created, double running, double end, boolean ok) {
    Inputs.Pod p =
        new Inputs.Pod(uid, NS, JOB + "-" + uid, "Job", JOB, "asr-batch", 100, 1)
            .ownerUid(JOB_UID)
            .created(created)
            .condition("PodScheduled", "True", created + 1, null, null)
            .node("gpu-node-2");
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, created + 0.3));
    p.phase("Running")
        .running("asr", running, 0, true)
        .condition("Ready", "True", running + 1, null, null);
    in.add(p.seen(ChangeType.MODIFIED, running + 1.3));
    if (ok) {
      p.terminated("asr", running, end, 0, "Completed").phase("Succeeded");
      in.add(p.seen(ChangeType.MODIFIED, end + 0.4));
      in.add(p.seen(ChangeType.DELETED, end + 60));
    } else {
      // The Job suspended by Kueue: its controller deletes the pods.
      p.deleting(end - 9, 30);
      in.add(p.seen(ChangeType.MODIFIED, end - 8.8));
      p.terminated("asr", running, end, 143, "Error").phase("Failed");
      in.add(p.seen(ChangeType.MODIFIED, end + 0.4));
      in.add(p.seen(ChangeType.DELETED, end + 1));
    }
    return in;
  }

  /** The Job's pods: two in the first admission (2530 s), two in the second (7502 s). */
  static List<Object> pods() {
    List<Object> in = new ArrayList<>();
    in.addAll(jobPod("u-q-1", 2531, 2550, 4540, false));
    in.addAll(jobPod("u-q-2", 2531, 2552, 4540, false));
    in.addAll(jobPod("u-q-3", 7503, 7520, 12640, true));
    in.addAll(jobPod("u-q-4", 7503, 7521, 12640, true));
    return in;
  }

  static List<Object> inOrder(List<Object> in) {
    List<Object> sorted = new ArrayList<>(in);
    sorted.sort(Comparator.comparingLong(StageDriver::timestampOf));
    return sorted;
  }

  Map<String, PodTimeline> run(List<Object> ordered) {
    driver = new StageDriver(SETTINGS, stateDir, new StreamsMetrics());
    driver.pipeMarked(ordered, 30_000);
    driver.finish(at(12_700 + 600));
    return driver.latestByUid();
  }

  @Test
  void aKueuePreemptionMakesTheRunningPodsVictimsAndEachAdmissionCarriesItsWait() {
    List<Object> in = new ArrayList<>(pods());
    in.addAll(workloads("workloads-requeued.watch.json"));
    Map<String, PodTimeline> t = run(inOrder(in));

    PodTimeline victim = t.get("u-q-1");
    assertThat(victim.getFinal$()).isTrue();
    assertThat(victim.getQueue()).as("the Workload's LocalQueue").isEqualTo("team-b-queue");
    assertThat(victim.getAdmittedAt()).isEqualTo(at(2530));
    assertThat(victim.getQueueWaitMs())
        .as("created 09:00:00, admitted 09:42:10")
        .isEqualTo(2_530_000L);
    assertThat(victim.getPendingMs()).as("Pending keeps its meaning").isEqualTo(1000L);
    assertThat(victim.getOutcome()).isEqualTo("Preempted");
    assertThat(victim.getDisruption().getCause()).isEqualTo("queue-preemption");
    assertThat(victim.getDisruption().getAt()).isEqualTo(at(4530));
    assertThat(victim.getDisruption().getBy()).isEqualTo(PREEMPTOR);
    assertThat(victim.getPreemptedAt()).isEqualTo(at(4530));
    assertThat(victim.getPreemptor()).as("a workload preempted it, not one pod").isNull();
    assertThat(victim.getWastedGpuSeconds())
        .as("running 2550 to 4540, no checkpoint")
        .isEqualTo(1990.0);
    assertThat(victim.getPreemptionsOfWorkload()).isEqualTo(1);
    assertThat(victim.getGatedMs()).isNull();

    PodTimeline second = t.get("u-q-3");
    assertThat(second.getAdmittedAt()).isEqualTo(at(7502));
    assertThat(second.getQueueWaitMs())
        .as("re-queued at its eviction, 10:15:30, admitted again 11:05:02")
        .isEqualTo(2_972_000L);
    assertThat(second.getOutcome()).isEqualTo("Succeeded");
    assertThat(second.getDisruption()).isNull();
    assertThat(second.getWastedGpuSeconds()).isNull();
    assertThat(second.getPreemptionsOfWorkload()).isEqualTo(1);

    List<Preemption> preemptions = new ArrayList<>();
    driver.preemptions.readValuesToList().forEach(preemptions::add);
    assertThat(preemptions)
        .extracting(p -> p.getVictim().getUid())
        .containsExactlyInAnyOrder("u-q-1", "u-q-2");
    assertThat(preemptions).allSatisfy(p -> assertThat(p.getSource()).isEqualTo("kueue"));

    WorkloadTimeline w =
        driver.latestWorkloads().entrySet().stream()
            .filter(e -> e.getKey().startsWith(NS + "/Job/" + JOB))
            .map(Map.Entry::getValue)
            .findFirst()
            .orElseThrow();
    List<QueueAdmission> admissions = w.getAdmissions();
    assertThat(admissions).hasSize(2);
    assertThat(admissions.get(0).getQueueWaitMs()).isEqualTo(2_530_000L);
    assertThat(admissions.get(0).getClusterQueue()).isEqualTo("team-b-cq");
    assertThat(admissions.get(0).getPriorityClass()).isEqualTo("asr-batch");
    assertThat(admissions.get(0).getEviction().getReason()).isEqualTo("Preempted");
    assertThat(admissions.get(0).getEviction().getPreemptionReason()).isEqualTo("InClusterQueue");
    assertThat(admissions.get(0).getEviction().getBy()).isEqualTo(PREEMPTOR);
    assertThat(admissions.get(1).getWaitSince()).isEqualTo(at(4530));
    assertThat(admissions.get(1).getEviction()).isNull();
    assertThat(driver.dlq.isEmpty()).isTrue();

    var wait = waitOf(driver.metrics);
    assertThat(wait.getCount()).as("one wait per admission").isEqualTo(2);
    assertThat(wait.getSum()).isEqualTo(2530.0 + 2972.0);
    assertThat(
            driver
                .metrics
                .queueEvictions
                .labelValues(NS, "team-b-queue", "queue-preemption", "Preempted", "InClusterQueue")
                .get())
        .isEqualTo(1.0);
  }

  /**
   * The Workload's observations read late (after the pods' own, within the grace period) or
   * repeated give the same final timelines as in order: the collector's watches of Workloads and of
   * pods are not ordered with each other.
   */
  @Test
  void workloadObservationsLateOrRepeatedGiveTheSameTimelines() throws Exception {
    List<Object> in = new ArrayList<>(pods());
    List<WorkloadObservation> workloads = workloads("workloads-requeued.watch.json");
    in.addAll(workloads);
    Map<String, PodTimeline> expected = finals(run(inOrder(in)));
    driver.close();
    driver = null;

    List<Object> late = new ArrayList<>(pods());
    for (WorkloadObservation o : workloads) {
      WorkloadObservation later = WorkloadObservation.newBuilder(o).build();
      later.setObservedAt(o.getObservedAt() + 25_000);
      late.add(later);
      late.add(WorkloadObservation.newBuilder(later).build()); // read twice (a relist)
    }
    Path other = stateDir.resolve("late");
    Files.createDirectories(other);
    stateDir = other;
    Map<String, PodTimeline> actual = finals(run(inOrder(late)));

    assertThat(actual).isEqualTo(expected);
    assertThat(waitOf(driver.metrics).getCount())
        .as("each admission counted once, read twice")
        .isEqualTo(2);
  }

  /** The admission waits counted for team-b's queue. */
  static HistogramSnapshot.HistogramDataPointSnapshot waitOf(StreamsMetrics m) {
    return m.queueWait.collect().getDataPoints().stream()
        .filter(d -> "team-b-queue".equals(d.getLabels().get("queue")))
        .filter(d -> "team-b-cq".equals(d.getLabels().get("cluster_queue")))
        .filter(d -> "asr-batch".equals(d.getLabels().get("priority_class")))
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, PodTimeline> finals(Map<String, PodTimeline> latest) {
    Map<String, PodTimeline> out = new TreeMap<>();
    latest.forEach(
        (uid, t) -> {
          assertThat(t.getFinal$()).as("%s final", uid).isTrue();
          out.put(uid, PodTimeline.newBuilder(t).setUpdatedAt(0L).build());
        });
    return out;
  }

  @Test
  void aPodsReadyTimeoutIsAQueueEvictionWithItsReason() {
    // The v1beta1 Workload evicted at 10:03:12 for PodsReadyTimeout, moved to the test's clock.
    long shift = Inputs.T0 - Instant.parse("2024-04-18T10:00:00Z").toEpochMilli();
    List<Object> in = new ArrayList<>();
    Unusable unusable = new Unusable();
    for (RecordedObjects.Item item :
        RecordedObjects.read(
            Fixtures.text("../kueue/workload-podsready-timeout.v1beta1.json"), unusable)) {
      RecordedObjects.QueueWorkloadItem w = (RecordedObjects.QueueWorkloadItem) item;
      for (WorkloadObservation o :
          QueueWorkloadProjection.project(w.workload(), w.change(), 0, uid -> null)) {
        QueueWorkload q = o.getQueueWorkload();
        q.setCreatedAt(q.getCreatedAt() + shift);
        q.getConditions().forEach(c -> c.setLastTransitionTime(c.getLastTransitionTime() + shift));
        o.setObservedAt(EventTimes.latestFact(q) + 400);
        in.add(o);
      }
    }
    Inputs.Pod p =
        new Inputs.Pod("u-rt-1", "default", "sample-job-x1", "Job", "sample-job", null, 0, 1)
            .ownerUid("6e1d2c4b-9a7f-4e3c-8b5d-0f2a1c9e7d55")
            .created(132)
            .condition("PodScheduled", "True", 133, null, null)
            .node("gpu-node-3")
            .phase("Running")
            .running("main", 150, 0, false);
    in.add(p.seen(ChangeType.ADDED, 150.5));
    p.deleting(193, 30).terminated("main", 150, 195, 143, "Error").phase("Failed");
    in.add(p.seen(ChangeType.MODIFIED, 195.5));
    in.add(p.seen(ChangeType.DELETED, 196));

    PodTimeline t = run(inOrder(in)).get("u-rt-1");

    assertThat(t.getDisruption().getCause()).isEqualTo("queue-eviction");
    assertThat(t.getDisruption().getAt()).isEqualTo(at(192));
    assertThat(t.getDisruption().getBy()).isEqualTo("PodsReadyTimeout");
    assertThat(t.getOutcome()).isEqualTo("Evicted");
    assertThat(t.getPreemptedAt()).as("not a preemption").isNull();
    assertThat(t.getPreemptionsOfWorkload()).isZero();
    assertThat(t.getQueue()).as("its admission was never observed: no queue known").isNull();
  }

  /** Reading the Workload (a different kind of input) leaves a pod outside Kueue as it was. */
  @Test
  void aPodOutsideKueueHasNoQueueFields() {
    List<Object> in = new ArrayList<>(jobPod("u-plain", 10, 20, 100, true));
    PodTimeline t = run(inOrder(in)).get("u-plain");
    assertThat(t.getQueue()).isNull();
    assertThat(t.getAdmittedAt()).isNull();
    assertThat(t.getQueueWaitMs()).isNull();
    assertThat(t.getGatedMs()).isNull();
    assertThat(((PodObservation) in.get(0)).getLabels()).isEmpty();
  }

  /** A pod group's Workload naming pods never read: a dead letter once its state is freed. */
  @Test
  void aWorkloadWhosePodsNeverCameIsADeadLetter() {
    long shift = Inputs.T0 - Instant.parse("2026-03-02T08:10:00Z").toEpochMilli();
    List<Object> in = new ArrayList<>();
    Unusable unusable = new Unusable();
    for (RecordedObjects.Item item :
        RecordedObjects.read(Fixtures.text("../kueue/workload-pod-group.v1beta1.json"), unusable)) {
      RecordedObjects.QueueWorkloadItem w = (RecordedObjects.QueueWorkloadItem) item;
      for (ChangeType change : List.of(ChangeType.ADDED, ChangeType.DELETED)) {
        for (WorkloadObservation o :
            QueueWorkloadProjection.project(w.workload(), change, 0, uid -> null)) {
          QueueWorkload q = o.getQueueWorkload();
          q.setCreatedAt(q.getCreatedAt() + shift);
          q.getConditions()
              .forEach(c -> c.setLastTransitionTime(c.getLastTransitionTime() + shift));
          o.setObservedAt(EventTimes.latestFact(q) + (change == ChangeType.DELETED ? 60_000 : 400));
          in.add(o);
        }
      }
    }
    driver = new StageDriver(SETTINGS, stateDir, new StreamsMetrics());
    driver.pipeMarked(inOrder(in), 30_000);
    driver.finish(at(60 + 2 * 3600));
    assertThat(driver.dlq.readValuesToList())
        .extracting(d -> d.getReason(), d -> new String(d.getKey().array()))
        .containsExactlyInAnyOrder(
            tuple("queue-without-pods", "team-a/Pod/embed-group-0"),
            tuple("queue-without-pods", "team-a/Pod/embed-group-1"));
  }

  /** An admission before the Workload existed: not Kueue's writing; a dead letter, not a wait. */
  @Test
  void anAdmissionBeforeTheWorkloadsCreationIsADeadLetter() {
    List<Object> in = new ArrayList<>(jobPod("u-q-1", 2531, 2550, 4540, false));
    WorkloadObservation admitted = workloads("workloads-requeued.watch.json").get(1);
    admitted.getQueueWorkload().setCreatedAt(at(3000));
    in.add(admitted);
    Map<String, PodTimeline> t = run(inOrder(in));

    assertThat(driver.dlq.readValuesToList())
        .singleElement()
        .satisfies(d -> assertThat(d.getReason()).isEqualTo("queue-out-of-order"));
    assertThat(t.get("u-q-1").getAdmittedAt()).isNull();
  }
}
