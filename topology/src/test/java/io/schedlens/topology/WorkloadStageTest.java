package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.SecondCount;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.base.Outcome;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topics;
import io.schedlens.timeline.OwningWorkload;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.util.List;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * The workload stage's processor on its own ({@link MockStage}): what it tells a workload's pods,
 * and when its timeline goes out.
 */
class WorkloadStageTest {

  static final Topics TOPICS = Topics.defaults();
  static final TopologySettings SETTINGS = TopologySettings.defaults().withHotObjects(0);
  static final String JOB =
      OwningWorkload.key("ai-lab", new WorkloadRef("Job", "asr-batch"), "job-uid-1");

  MockStage stage() {
    return new MockStage(
            new WorkloadStage(SETTINGS, new StreamsMetrics()),
            WorkloadInput.readers(TOPICS),
            TOPICS.byWorkload.name())
        .store(TopologyNames.WORKLOADS_STORE, AvroSerde.of(WorkloadState.class))
        .store(TopologyNames.WORKLOAD_PODS_STORE, AvroSerde.of(WorkloadMember.class))
        .store(TopologyNames.WORKLOAD_SECONDS_STORE, AvroSerde.of(SecondCount.class))
        .init();
  }

  static WorkloadMember member(String uid, String name, double createdAt, boolean isFinal) {
    return WorkloadMember.newBuilder()
        .setUid(uid)
        .setName(name)
        .setCreatedAt(at(createdAt))
        .setScheduledAt(at(createdAt + 1))
        .setOutcome(isFinal ? Outcome.SUCCEEDED.wire() : Outcome.RUNNING.wire())
        .setFinal$(isFinal)
        .build();
  }

  static void fact(MockStage s, String uid, String fact, double at, WorkloadMember pod) {
    s.message(JOB, new StageMessage(uid, new WorkloadEvent(uid, fact, at(at), pod, 0, 0)), at(at));
  }

  @Test
  void shouldTellEveryLivePodOfAPreemptionOnceAndAPodThatJoinsLater() {
    MockStage s = stage();
    fact(s, "u-a", "pod", 1, member("u-a", "asr-batch-a", 0, false));
    fact(s, "u-b", "pod", 2, member("u-b", "asr-batch-b", 0, true));
    s.clear();

    fact(s, "u-a", "preempted", 100, null);
    List<Record<String, Object>> told = s.records(TopologyNames.WORKLOADS_TO_POD_SINK);
    assertThat(told).as("to the live pod only: a finished pod's timeline is out").hasSize(1);
    assertThat(told.get(0).key()).as("by the pod's namespace/name").isEqualTo("ai-lab/asr-batch-a");
    StageMessage m = (StageMessage) told.get(0).value();
    assertThat(m.getUid()).isEqualTo("u-a");
    WorkloadStatus status = (WorkloadStatus) m.getPayload();
    assertThat(status.getPreemptions()).isEqualTo(1);
    assertThat(status.getPreemptedAt()).containsExactly(at(100));

    s.clear();
    fact(s, "u-a", "preempted", 100, null);
    assertThat(s.records(TopologyNames.WORKLOADS_TO_POD_SINK))
        .as("the same word again says nothing new")
        .isEmpty();

    fact(s, "u-c", "pod", 110, member("u-c", "asr-batch-c", 105, false));
    List<WorkloadStatus> joined = s.sent(TopologyNames.WORKLOADS_TO_POD_SINK, WorkloadStatus.class);
    assertThat(joined).as("a pod that joins a preempted workload is told on joining").hasSize(1);
    assertThat(joined.get(0).getPreemptions()).isEqualTo(1);
  }

  @Test
  void shouldPublishTheWorkloadsTimelineOnTheEmitScheduleAtItsLastUpdatesEventTime() {
    MockStage s = stage();
    fact(s, "u-a", "pod", 1, member("u-a", "asr-batch-a", 0, false));
    assertThat(s.records(TopologyNames.WORKLOAD_TIMELINES_SINK)).isEmpty();
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 1_000);
    assertThat(s.records(TopologyNames.WORKLOAD_TIMELINES_SINK)).isEmpty();

    s.punctuate(SETTINGS.emitInterval(), 2_000);
    List<Record<String, Object>> out = s.records(TopologyNames.WORKLOAD_TIMELINES_SINK);
    assertThat(out).hasSize(1);
    assertThat(out.get(0).key())
        .as(
            "the topic's key: the workload's identity, with its controller's UID (DESIGN section 3)")
        .isEqualTo("ai-lab/Job/asr-batch/job-uid-1");
    assertThat(out.get(0).timestamp()).isEqualTo(at(1));
    assertThat(((WorkloadTimeline) out.get(0).value()).getControllerUid()).isEqualTo("job-uid-1");

    s.clear();
    s.punctuate(SETTINGS.emitInterval(), 4_000);
    assertThat(s.records(TopologyNames.WORKLOAD_TIMELINES_SINK))
        .as("nothing changed since")
        .isEmpty();
  }

  @Test
  void shouldDeadLetterATombstoneOnTheWorkloadsTopic() {
    MockStage s = stage();
    s.read(TOPICS.workloads.name(), 0, "ai-lab/Job/asr-batch", null, at(5));
    DeadLetter d = s.sent(TopologyNames.WORKLOADS_DLQ_SINK, DeadLetter.class).get(0);
    assertThat(d.getReason()).isEqualTo(DeadLetters.TOMBSTONE);
    assertThat(d.getSource()).isEqualTo(TOPICS.workloads.name());
  }
}
