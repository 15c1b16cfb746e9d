package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.Inputs;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * The pod stage's processor on its own ({@link MockStage}): what it forwards to which sink, and
 * when, for inputs read as a task reads them. Every decision waits for event-time progress (the
 * input topics' marks, the stages' watermarks); the wall clock only runs the schedules.
 */
class PodStageTest {

  static final Topics TOPICS = Topics.defaults();

  /** No decoded states kept: every read and write goes through the stores' bytes. */
  static final TopologySettings SETTINGS = TopologySettings.defaults().withHotObjects(0);

  static final long GRACE = SETTINGS.timeline().grace().toMillis();

  MockStage stage(TopologySettings settings) {
    return new MockStage(
            new PodStage(settings, new StreamsMetrics()),
            PodInput.readers(TOPICS),
            TOPICS.toPod.name())
        .store(TopologyNames.PODS_BY_NAME_STORE, AvroSerde.of(PodsOfName.class))
        .store(TopologyNames.POD_SERIES_STORE, AvroSerde.of(ClosedPoints.class))
        .store(TopologyNames.INPUT_SECONDS_STORE, AvroSerde.of(InputSecond.class))
        .windows(
            TopologyNames.REQUEST_ID_WINDOWS_STORE,
            RequestIdWindows.retention(settings.dedupWindow()),
            RequestIdWindows.WINDOW,
            RequestIdWindows.serde())
        .store(TopologyNames.LEGACY_REQUEST_IDS_STORE, AvroSerde.of(InputSecond.class))
        .store(TopologyNames.POD_TIMERS_STORE, Serdes.String())
        .store(TopologyNames.POD_PROGRESS_STORE, Serdes.Long())
        .init();
  }

  static void pod(MockStage s, PodObservation o) {
    s.read(TOPICS.pods.name(), 0, o.getUid(), o, o.getObservedAt());
  }

  static void request(MockStage s, RequestLog r) {
    s.read(TOPICS.requests.name(), 0, r.getNamespace() + "/" + r.getPod(), r, r.getTime());
  }

  /** Every input topic's producer says it wrote everything up to {@code time}. */
  static void marks(MockStage s, long time) {
    for (String topic :
        List.of(
            TOPICS.pods.name(),
            TOPICS.events.name(),
            TOPICS.gpuSamples.name(),
            TOPICS.requests.name())) {
      s.read(topic, 0, null, ProgressMarks.decode(ProgressMarks.value("test", time)), time);
    }
  }

  /** Every stage's task (one partition each) answered up to {@code answered}. */
  static void allAnswered(MockStage s, long answered) {
    s.watermark(Watermarks.PODS, 0, answered, answered);
    s.watermark(Watermarks.WORKLOADS, 0, Long.MAX_VALUE, answered);
    s.watermark(Watermarks.NODES, 0, Long.MAX_VALUE, answered);
  }

  static Inputs.Pod batchPod(String uid, String name) {
    return new Inputs.Pod(uid, "ai-lab", name, null, null, "batch", 1000, 1);
  }

  /** A pod created at {@code created} s, bound and running a second later, observed then. */
  static Inputs.Pod running(MockStage s, String uid, String name, double created) {
    Inputs.Pod p = batchPod(uid, name).created(created);
    p.condition("PodScheduled", "True", created + 1, null, null)
        .node("gpu-node-1")
        .phase("Running");
    pod(s, p.seen(ChangeType.ADDED, created + 1));
    return p;
  }

  @Test
  void shouldPublishAFinalTimelineOnceEveryStageAnsweredPastItsEndPlusTheGracePeriod() {
    MockStage s = stage(SETTINGS);
    Inputs.Pod p = batchPod("u-1", "embed-0");
    pod(s, p.seen(ChangeType.ADDED, 0.2));
    p.condition("PodScheduled", "True", 2, null, null).node("gpu-node-1");
    p.phase("Running").running("main", 3, 0, true).condition("Ready", "True", 4, null, null);
    pod(s, p.seen(ChangeType.MODIFIED, 4.1));
    p.phase("Succeeded").terminated("main", 3, 60, 0, "Completed");
    pod(s, p.seen(ChangeType.MODIFIED, 60.1));
    pod(s, p.seen(ChangeType.DELETED, 61));
    long due = at(61) + GRACE;
    marks(s, due + 1_000);
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class))
        .as("the story's changes go out at once, none of them final")
        .isNotEmpty()
        .noneMatch(PodTimeline::getFinal$);

    s.clear();
    s.watermark(Watermarks.PODS, 0, due, due);
    s.watermark(Watermarks.WORKLOADS, 0, Long.MAX_VALUE, due);
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class))
        .as("the node stage has not spoken: its answers may still be on their way")
        .isEmpty();
    allAnswered(s, due - 1);
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class))
        .as("answered, but not past the pod's end plus the grace period")
        .isEmpty();

    allAnswered(s, due);
    allAnswered(s, due + 10_000);
    List<Record<String, Object>> out = s.records(TopologyNames.POD_TIMELINES_SINK);
    assertThat(out).as("one final, however often the watermarks say it").hasSize(1);
    PodTimeline t = (PodTimeline) out.get(0).value();
    assertThat(t.getFinal$()).isTrue();
    assertThat(out.get(0).key()).as("keyed by UID").isEqualTo("u-1");
    assertThat(out.get(0).timestamp())
        .as("its last update's event time")
        .isEqualTo(t.getUpdatedAt());
    assertThat(t.getTerminatedAt()).isEqualTo(Inputs.sec(60));
    assertThat(t.getOutcome()).isEqualTo("Succeeded");

    PodsOfName kept = s.<PodsOfName>store(TopologyNames.PODS_BY_NAME_STORE).get("ai-lab/embed-0");
    assertThat(kept.getPods()).as("its state freed").isEmpty();
    assertThat(kept.getRetired()).as("a stub, so that late inputs are known as late").hasSize(1);

    s.clear();
    pod(s, p.seen(ChangeType.MODIFIED, 62));
    assertThat(s.records(TopologyNames.POD_TIMELINES_SINK))
        .as("an observation after the final changes nothing")
        .isEmpty();

    marks(s, due + SETTINGS.orphanTimeout().toMillis());
    assertThat(s.<PodsOfName>store(TopologyNames.PODS_BY_NAME_STORE).get("ai-lab/embed-0"))
        .as("the stub forgotten an orphan timeout of the pods stream after the final")
        .isNull();
  }

  @Test
  void shouldGiveRequestsToTheIncarnationThatHeldTheNameWhateverOrderTheyWereReadIn() {
    MockStage s = stage(SETTINGS);
    Inputs.Pod first = running(s, "u-a", "worker-0", 0);
    pod(s, first.seen(ChangeType.DELETED, 30));
    marks(s, at(10));
    // Requests at 20 s (the first pod's) and 50 s (the second's), read before the second pod.
    request(s, withId(Inputs.request("ai-lab", "worker-0", "chat", at(20), 200, 30), "r1"));
    request(s, withId(Inputs.request("ai-lab", "worker-0", "chat", at(50), 200, 30), "r2"));
    s.clear();
    s.punctuate(SETTINGS.emitInterval(), 1_000);
    assertThat(requestsByUid(s).values())
        .as("the pods stream has not passed them: they wait")
        .allMatch(n -> n == 0);

    running(s, "u-b", "worker-0", 40);
    marks(s, at(60));
    s.clear();
    s.punctuate(SETTINGS.emitInterval(), 3_000);
    assertThat(requestsByUid(s))
        .as("each to the pod created last before it")
        .isEqualTo(Map.of("u-a", 1L, "u-b", 1L));

    s.clear();
    request(s, withId(Inputs.request("ai-lab", "worker-0", "chat", at(50), 200, 30), "r2"));
    s.punctuate(SETTINGS.emitInterval(), 5_000);
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class))
        .as("a line sent again counts once")
        .isEmpty();
  }

  @Test
  void shouldPublishCounterChangesOnTheEmitScheduleOnly() {
    MockStage s = stage(SETTINGS);
    running(s, "u-a", "worker-0", 0);
    marks(s, at(5));
    s.clear();
    request(s, Inputs.request("ai-lab", "worker-0", "chat", at(6), 200, 30));
    marks(s, at(10));
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class))
        .as("a counter is not a change of the story")
        .isEmpty();
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 1_000);
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class)).isEmpty();
    s.punctuate(SETTINGS.emitInterval(), 2_000);
    assertThat(requestsByUid(s)).isEqualTo(Map.of("u-a", 1L));
  }

  @Test
  void shouldDeadLetterASecondOfInputsForANameNoPodHeldOnceThePodsStreamPassedTheGracePeriod() {
    MockStage s = stage(SETTINGS);
    request(s, Inputs.request("ai-lab", "ghost-0", "chat", at(10.5), 200, 30));
    marks(s, at(10) + GRACE - 1);
    assertThat(s.sent(TopologyNames.PODS_DLQ_SINK, DeadLetter.class))
        .as("a pod of that name may still be announced")
        .isEmpty();

    marks(s, at(10) + GRACE);
    List<Record<String, Object>> dlq = s.records(TopologyNames.PODS_DLQ_SINK);
    assertThat(dlq).hasSize(1);
    DeadLetter d = (DeadLetter) dlq.get(0).value();
    assertThat(d.getReason()).isEqualTo(DeadLetters.UNKNOWN_POD);
    assertThat(d.getEventTime()).isEqualTo(at(10));
    assertThat(dlq.get(0).timestamp()).as("at its second's event time").isEqualTo(at(10));
    assertThat(d.getDetail())
        .contains("1 GPU sample(s) and request(s) for pod ai-lab/ghost-0")
        .contains("1 at " + TOPICS.requests.name() + ":0 offsets 0..0");
  }

  @Test
  void shouldDeadLetterAnInputOnAnotherPartitionThanItsNamesSayingWhichItBelongsOn() {
    MockStage s = stage(SETTINGS.withPartitions(4));
    PodName name = new PodName("ai-lab", "embed-7");
    int wrong = (name.partition(4) + 1) % 4;
    PodObservation o = batchPod("u-7", "embed-7").seen(ChangeType.ADDED, 1);
    s.read(TOPICS.pods.name(), wrong, "u-7", o, o.getObservedAt());

    DeadLetter d = s.sent(TopologyNames.PODS_DLQ_SINK, DeadLetter.class).get(0);
    assertThat(d.getReason()).isEqualTo(DeadLetters.WRONG_PARTITION);
    assertThat(d.getSource()).isEqualTo(TOPICS.pods.name());
    assertThat(d.getPartition()).isEqualTo(wrong);
    assertThat(d.getDetail())
        .contains(
            "on partition "
                + wrong
                + ", but ai-lab/embed-7 belongs on partition "
                + name.partition(4)
                + " of 4");
    assertThat(d.getValue()).as("the record as read").isNotNull();
    assertThat(s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class)).isEmpty();
    assertThat(s.<PodsOfName>store(TopologyNames.PODS_BY_NAME_STORE).get(name.key())).isNull();
  }

  @Test
  void shouldStampAnInputsDeadLetterWithTheContextsClockAndStreamTime() {
    MockStage s = stage(SETTINGS);
    pod(s, batchPod("u-1", "embed-0").seen(ChangeType.ADDED, 5));
    s.context.setCurrentSystemTimeMs(1_234_567);
    s.read(TOPICS.events.name(), 0, "e-1", null, at(3));
    List<Record<String, Object>> dlq = s.records(TopologyNames.PODS_DLQ_SINK);
    DeadLetter d = (DeadLetter) dlq.get(0).value();
    assertThat(d.getReason()).isEqualTo(DeadLetters.TOMBSTONE);
    assertThat(d.getAt())
        .as("when it was dead-lettered: the context's wall clock")
        .isEqualTo(1_234_567);
    assertThat(d.getEventTime()).isEqualTo(at(3));
    assertThat(dlq.get(0).timestamp()).as("stream time, not the wall clock").isEqualTo(at(5));
  }

  /**
   * The dead letters of the same inputs say the same, however late on the wall clock they are read,
   * but for {@code at}: the schema's read time of the letter, the one wall-clock field of an output
   * (the README's Determinism section says so).
   */
  @Test
  void shouldDeadLetterTheSameInputsTheSameWayAtAnyWallTimeButForTheReadTime() {
    List<DeadLetter> first = deadLettersOfBadInputs(1_000);
    List<DeadLetter> second = deadLettersOfBadInputs(9_999_000);
    assertThat(first).hasSize(3);
    assertThat(first).extracting(DeadLetter::getAt).containsOnly(1_000L);
    assertThat(second).extracting(DeadLetter::getAt).containsOnly(9_999_000L);
    assertThat(withoutReadTime(second)).isEqualTo(withoutReadTime(first));
  }

  List<DeadLetter> deadLettersOfBadInputs(long wall) {
    MockStage s = stage(SETTINGS.withPartitions(2));
    s.context.setCurrentSystemTimeMs(wall);
    PodObservation o = batchPod("u-7", "embed-7").seen(ChangeType.ADDED, 1);
    int wrong = (PodName.of(o).partition(2) + 1) % 2;
    s.read(TOPICS.pods.name(), wrong, "u-7", o, o.getObservedAt());
    s.read(TOPICS.events.name(), 0, "e-1", null, at(3));
    s.read(
        TOPICS.requests.name(),
        0,
        null,
        Inputs.request("ai-lab", "x", "chat", at(4), 200, 1),
        at(4));
    return s.sent(TopologyNames.PODS_DLQ_SINK, DeadLetter.class);
  }

  static List<DeadLetter> withoutReadTime(List<DeadLetter> letters) {
    return letters.stream().map(d -> DeadLetter.newBuilder(d).setAt(0).build()).toList();
  }

  @Test
  void shouldDeadLetterEventsForAUidNeverObservedAnOrphanTimeoutLater() {
    MockStage s = stage(SETTINGS);
    batchPod("u-unseen", "embed-9"); // known to the event, never observed
    var e = Inputs.event("e-1", "u-unseen", "Scheduled", "assigned", at(3), null);
    s.read(TOPICS.events.name(), 0, "u-unseen", e, at(3));
    marks(s, at(3) + SETTINGS.orphanTimeout().toMillis() - 1);
    assertThat(s.sent(TopologyNames.PODS_DLQ_SINK, DeadLetter.class)).isEmpty();
    marks(s, at(3) + SETTINGS.orphanTimeout().toMillis());
    DeadLetter d = s.sent(TopologyNames.PODS_DLQ_SINK, DeadLetter.class).get(0);
    assertThat(d.getReason()).isEqualTo(DeadLetters.UNKNOWN_POD);
    assertThat(d.getDetail()).contains("pod UID u-unseen").contains("never observed within PT1H");
    assertThat(d.getEventTime()).isEqualTo(at(3));
  }

  @Test
  void shouldBroadcastItsWatermarkToEveryStageWhenItMovesAndNowAndThenAnyway() {
    MockStage s = stage(SETTINGS);
    marks(s, at(10));
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 1_000);
    for (String sink :
        List.of(
            TopologyNames.PODS_TO_POD_SINK,
            TopologyNames.PODS_TO_WORKLOAD_SINK,
            TopologyNames.PODS_TO_NODE_SINK)) {
      List<Watermark> w = s.watermarks(sink);
      assertThat(w).as(sink).hasSize(1);
      assertThat(w.get(0).getTime()).as("the least of its inputs' marks").isEqualTo(at(10));
      assertThat(w.get(0).getAnswered())
          .as("no pod-stage task heard yet")
          .isEqualTo(Long.MIN_VALUE);
    }
    s.clear();
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 1_100);
    assertThat(s.watermarks(TopologyNames.PODS_TO_POD_SINK)).as("nothing moved").isEmpty();
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 3_100);
    assertThat(s.watermarks(TopologyNames.PODS_TO_POD_SINK))
        .as("said again after two seconds: a task that started late hears it")
        .hasSize(1);
    s.clear();
    s.read(
        TOPICS.requests.name(),
        0,
        null,
        ProgressMarks.decode(ProgressMarks.value("t", at(20))),
        at(20));
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 3_200);
    assertThat(s.watermarks(TopologyNames.PODS_TO_POD_SINK))
        .as("one input's mark moved, not the least: nothing new to say")
        .isEmpty();
  }

  static RequestLog withId(RequestLog r, String id) {
    r.setRequestId(id);
    return r;
  }

  /** The latest published request count per UID. */
  static Map<String, Long> requestsByUid(MockStage s) {
    return s.sent(TopologyNames.POD_TIMELINES_SINK, PodTimeline.class).stream()
        .collect(
            Collectors.toMap(
                PodTimeline::getUid, PodTimeline::getRequests, (a, b) -> b, java.util.TreeMap::new))
        .entrySet()
        .stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }
}
