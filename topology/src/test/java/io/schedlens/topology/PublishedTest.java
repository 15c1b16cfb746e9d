package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.AvroSerde;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API's store of published timelines, as a processor on {@link MockProcessorContext} (Kafka's
 * way to unit-test a processor): stream time decides what is old, the wall clock only when to look.
 */
class PublishedTest {

  static final Duration RETENTION = Duration.ofHours(1);
  static final long H = RETENTION.toMillis();

  MockProcessorContext<Void, Void> context;
  KeyValueStore<String, PodTimeline> store;
  Published<PodTimeline> processor;

  @BeforeEach
  void start() {
    context = new MockProcessorContext<>();
    store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(TopologyNames.PUBLISHED_STORE),
                Serdes.String(),
                AvroSerde.of(PodTimeline.class))
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    processor = Published.timelines(RETENTION);
    processor.init(context);
  }

  static PodTimeline timeline(String uid, long updatedAt, boolean isFinal) {
    return PodTimeline.newBuilder().setUid(uid).setUpdatedAt(updatedAt).setFinal$(isFinal).build();
  }

  /** A published record read at stream time {@code streamTime} and wall time {@code wall}. */
  void read(String uid, PodTimeline t, long streamTime, long wall) {
    context.setCurrentStreamTimeMs(streamTime);
    context.setCurrentSystemTimeMs(wall);
    processor.process(new Record<>(uid, t, streamTime));
  }

  @Test
  void shouldForgetAFinalTimelineARetentionOfStreamTimeAfterItsLastUpdate() {
    read("gone", timeline("gone", 0, true), 0, 0);
    read("live", timeline("live", 0, false), 0, 0);
    read("other", timeline("other", H - 1, false), H - 1, 2_000);
    assertThat(store.get("gone")).as("a look, but a retention not yet passed").isNotNull();

    long look = H - 1;
    read("other", timeline("other", look + H / 4 - 1, false), look + H / 4 - 1, 4_000);
    assertThat(store.get("gone"))
        .as("old now, but stream time not a quarter past the look")
        .isNotNull();

    read("other", timeline("other", look + H / 4, false), look + H / 4, 6_000);
    assertThat(store.get("gone")).as("older than the retention").isNull();
    assertThat(store.get("live")).as("a live pod's timeline stays").isNotNull();
  }

  @Test
  void shouldLookAtMostOnceAWallSecondHoweverFastStreamTimeRuns() {
    read("gone", timeline("gone", 0, true), 0, 0);
    read("a", timeline("a", H / 2, false), H / 2, 10_000); // a look: nothing old yet
    read("b", timeline("b", 2 * H, false), 2 * H, 10_500); // half a wall second later: no look
    assertThat(store.get("gone")).isNotNull();

    read("c", timeline("c", 2 * H, false), 2 * H, 11_000);
    assertThat(store.get("gone")).as("what is old: by stream time, once the wall allows").isNull();
  }

  @Test
  void shouldLookWithinAWallSecondWhenTheRecordsStopRightAfterALook() {
    read("gone", timeline("gone", 0, true), 0, 0);
    read("a", timeline("a", H / 2, false), H / 2, 10_000); // a look: nothing old yet
    read("b", timeline("b", 2 * H, false), 2 * H, 10_500); // put off: within a wall second
    CapturedPunctuator pending = context.scheduledPunctuators().get(1);
    assertThat(pending.getInterval()).isEqualTo(Duration.ofSeconds(1));

    context.setCurrentSystemTimeMs(10_900);
    pending.getPunctuator().punctuate(10_900);
    assertThat(store.get("gone")).as("still within the wall second").isNotNull();

    context.setCurrentSystemTimeMs(11_000);
    pending.getPunctuator().punctuate(11_000);
    assertThat(store.get("gone")).as("no record came: the put-off look ran").isNull();
  }

  @Test
  void shouldAlsoForgetOnTheWallClockScanByStreamTime() {
    read("gone", timeline("gone", 0, true), 0, 0);
    CapturedPunctuator scan = context.scheduledPunctuators().get(0);
    assertThat(scan.getInterval()).isEqualTo(Duration.ofSeconds(60));

    context.setCurrentStreamTimeMs(H - 1);
    scan.getPunctuator().punctuate(60_000);
    assertThat(store.get("gone")).as("an hour of stream time not passed").isNotNull();

    context.setCurrentStreamTimeMs(H + 1);
    scan.getPunctuator().punctuate(120_000);
    assertThat(store.get("gone")).isNull();
  }

  @Test
  void shouldForgetWhatWasOverBeforeARestartFromTheStoreAlone() {
    read("gone", timeline("gone", 0, true), 0, 0);
    read("live", timeline("live", 0, false), 0, 0);
    // a new processor on the same store: the task started again, restored
    processor = Published.timelines(RETENTION);
    MockProcessorContext<Void, Void> again = new MockProcessorContext<>();
    again.addStateStore(store);
    processor.init(again);
    again.setCurrentStreamTimeMs(H + 1);
    again.setCurrentSystemTimeMs(60_000);
    again.scheduledPunctuators().get(0).getPunctuator().punctuate(60_000);
    assertThat(store.get("gone")).as("over before the restart, old now").isNull();
    assertThat(store.get("live")).isNotNull();
  }

  @Test
  void shouldKeepAValueThatIsNoLongerOverAndForgetByTheLatestTimeItWasOver() {
    MockProcessorContext<Void, Void> ctx = new MockProcessorContext<>();
    KeyValueStore<String, WorkloadTimeline> workloads = workloadStore(ctx);
    Published<WorkloadTimeline> p = workloadsAtZero(ctx);
    WorkloadTimeline.Builder w = workload().setUpdatedAt(0);
    p.process(new Record<>("ai-lab/Deployment/up", w.setDesired(0).setReady(0).build(), 0));
    p.process(new Record<>("ai-lab/Deployment/up", w.setDesired(2).setUpdatedAt(10).build(), 10));
    p.process(new Record<>("ai-lab/Job/twice", w.setDesired(0).setUpdatedAt(0).build(), 10));
    p.process(new Record<>("ai-lab/Job/twice", w.setUpdatedAt(H / 2).build(), H / 2));
    ctx.setCurrentStreamTimeMs(H + 1);
    ctx.scheduledPunctuators().get(0).getPunctuator().punctuate(60_000);
    assertThat(workloads.get("ai-lab/Deployment/up")).as("wants replicas again").isNotNull();
    assertThat(workloads.get("ai-lab/Job/twice"))
        .as("over since half a retention: its later change counts")
        .isNotNull();
    ctx.setCurrentStreamTimeMs(H + H / 2 + 1);
    ctx.scheduledPunctuators().get(0).getPunctuator().punctuate(120_000);
    assertThat(workloads.get("ai-lab/Job/twice")).isNull();
  }

  @Test
  void shouldDeleteOnATombstone() {
    read("u", timeline("u", 0, false), 0, 0);
    read("u", null, 1, 0);
    assertThat(store.get("u")).isNull();
  }

  @Test
  void shouldForgetAWorkloadThatWantsNoReplicasAndHasNoneARetentionAfterItsLastChange() {
    MockProcessorContext<Void, Void> ctx = new MockProcessorContext<>();
    KeyValueStore<String, WorkloadTimeline> workloads = workloadStore(ctx);
    Published<WorkloadTimeline> p = workloadsAtZero(ctx);
    WorkloadTimeline.Builder w = workload().setUpdatedAt(0);
    p.process(new Record<>("ai-lab/Job/done", w.setDesired(0).setReady(0).build(), 0));
    p.process(new Record<>("ai-lab/Deployment/chat", w.setDesired(2).setReady(0).build(), 0));
    ctx.setCurrentStreamTimeMs(H + 1);
    ctx.scheduledPunctuators().get(0).getPunctuator().punctuate(60_000);
    assertThat(workloads.get("ai-lab/Job/done")).as("over a retention ago").isNull();
    assertThat(workloads.get("ai-lab/Deployment/chat")).as("still wants replicas").isNotNull();
  }

  static KeyValueStore<String, WorkloadTimeline> workloadStore(MockProcessorContext<Void, Void> c) {
    KeyValueStore<String, WorkloadTimeline> workloads =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(TopologyNames.PUBLISHED_WORKLOADS_STORE),
                Serdes.String(),
                AvroSerde.of(WorkloadTimeline.class))
            .withLoggingDisabled()
            .build();
    workloads.init(c.getStateStoreContext(), workloads);
    c.addStateStore(workloads);
    return workloads;
  }

  /** The workloads' processor on {@code ctx}, at stream and wall time 0. */
  static Published<WorkloadTimeline> workloadsAtZero(MockProcessorContext<Void, Void> ctx) {
    Published<WorkloadTimeline> p = Published.workloads(RETENTION);
    p.init(ctx);
    ctx.setCurrentStreamTimeMs(0);
    ctx.setCurrentSystemTimeMs(0);
    return p;
  }

  static WorkloadTimeline.Builder workload() {
    return WorkloadTimeline.newBuilder()
        .setNamespace("ai-lab")
        .setKind("Job")
        .setName("x")
        .setPriorityClass("batch")
        .setArm("treatment")
        .setRepeat("1")
        .setDesiredSource("observed")
        .setInterruptions(List.of())
        .setReady(0);
  }
}
