package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static io.schedlens.testsupport.Inputs.sec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.testsupport.Inputs;
import io.schedlens.testsupport.PodLives;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole topology on TopologyTestDriver: every stage, the internal topics, the progress marks
 * and watermarks that decide when an input is attributed and when a final timeline goes out.
 */
class TimelineTopologyTest {

  static final Topics TOPICS = Topics.defaults();
  static final TopologySettings SETTINGS =
      TopologySettings.defaults()
          .withTimeline(TimelineSettings.defaults().withSlos(Map.of("chat", 500.0)));
  static final long GRACE = SETTINGS.timeline().grace().toMillis();

  @TempDir Path stateDir;
  StageDriver driver;
  StreamsMetrics metrics = new StreamsMetrics();

  static Topology topology(StreamsMetrics metrics) {
    return TimelineTopology.build(TOPICS, SETTINGS, metrics);
  }

  void start() {
    driver = new StageDriver(SETTINGS, stateDir, metrics);
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  void pipe(Object input) {
    driver.pipe(input);
  }

  /** Inputs in order, the input topics marked a second behind them, as the collector does. */
  void pipeAll(List<Object> ordered) {
    driver.pipeMarked(ordered, 1000);
  }

  /** Event time passes {@code toSeconds} on every input; everything due goes out. */
  void finish(double toSeconds) {
    driver.finish(at(toSeconds));
  }

  Map<String, PodTimeline> latestByUid() {
    return driver.latestByUid();
  }

  static long timestampOf(Object input) {
    return StageDriver.timestampOf(input);
  }

  static List<Object> scenario() {
    List<Object> in = new ArrayList<>(PodLives.interactiveLife());
    in.addAll(PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0"));
    in.addAll(PodLives.preemptedJobLife("u-asr-2", "asr-batch-x2", "u-chat-0"));
    // The preemptor goes away too, so that every pod gets a final timeline.
    Inputs.Pod chat =
        new Inputs.Pod(
                "u-chat-0",
                "ai-lab",
                "chat-5d8f7-abcde",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .label("schedlens.io/arm", "treatment")
            .condition("PodScheduled", "True", 5.123, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", 8, 0, true)
            .condition("Ready", "True", 20, null, null)
            .deleting(300, 30);
    PodObservation deleting = chat.seen(ChangeType.MODIFIED, 300.2);
    deleting.setResourceVersion("5000");
    chat.terminated("model", 8, 310, 0, "Completed");
    PodObservation gone = chat.seen(ChangeType.DELETED, 311);
    gone.setResourceVersion("5001");
    in.add(deleting);
    in.add(gone);
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    return in;
  }

  /**
   * A victim's Preempted event read before the victim's own pod observation (another topic, within
   * the grace period): the victim links to its preemptor once it knows its own name, so the
   * preemptor's answer (its priority class) finds it. Found by the determinism suite on the dense
   * scenario, where the answer was lost in some runs.
   */
  @Test
  void shouldGetThePreemptorsAnswerWhenTheVictimsEventComesBeforeItsPod() {
    start();
    List<Object> in = new ArrayList<>(scenario());
    Object event =
        in.stream()
            .filter(i -> i instanceof ClusterEvent e && "Preempted".equals(e.getReason()))
            .filter(i -> ((ClusterEvent) i).getRegarding().getUid().equals("u-asr-1"))
            .findFirst()
            .orElseThrow();
    in.remove(event);
    pipe(event);
    pipeAll(in);
    finish(311 + 130);

    PodTimeline victim = latestByUid().get("u-asr-1");
    assertThat(victim.getFinal$()).isTrue();
    assertThat(victim.getPreemptor().getUid()).isEqualTo("u-chat-0");
    assertThat(victim.getPreemptor().getPriorityClass())
        .as("answered by the preemptor")
        .isEqualTo("interactive");
    assertThat(latestByUid().get("u-chat-0").getVictims()).containsExactly("u-asr-1", "u-asr-2");
  }

  @Test
  void shouldLinkPreemptorAndVictimsBothWaysAndEmitOnePreemptionPerVictim() {
    start();
    pipeAll(scenario());
    finish(311 + 130);

    Map<String, PodTimeline> latest = latestByUid();
    PodTimeline chat = latest.get("u-chat-0");
    PodTimeline victim = latest.get("u-asr-1");
    assertThat(chat.getFinal$()).isTrue();
    assertThat(chat.getVictims()).containsExactly("u-asr-1", "u-asr-2");
    assertThat(chat.getRequests()).isEqualTo(5);
    assertThat(chat.getBusyGpuSeconds()).as("samples resolved by name to the UID").isPositive();
    assertThat(victim.getFinal$()).isTrue();
    assertThat(victim.getOutcome()).isEqualTo("Preempted");
    assertThat(victim.getPreemptor().getUid()).isEqualTo("u-chat-0");
    assertThat(victim.getPreemptor().getPriorityClass())
        .as("answered by the preemptor")
        .isEqualTo("interactive");
    assertThat(victim.getWastedGpuSeconds()).isEqualTo(70.0);
    assertThat(victim.getPreemptionsOfWorkload())
        .as("both victims are pods of Job asr-batch")
        .isEqualTo(2);

    List<org.apache.kafka.streams.KeyValue<String, Preemption>> records =
        driver.preemptions.readKeyValuesToList();
    assertThat(records).extracting(kv -> kv.key).containsExactlyInAnyOrder("u-asr-1", "u-asr-2");
    Preemption p = records.get(0).value;
    assertThat(p.getPreemptor().getPriorityClass()).isEqualTo("interactive");
    assertThat(p.getVictim().getPriorityClass()).isEqualTo("batch-low");
    assertThat(p.getWastedGpuSeconds()).isEqualTo(70.0);
    assertThat(p.getSource()).isEqualTo("event");
    assertThat(driver.dlq.isEmpty()).isTrue();
    assertThat(metrics.preemptions.labelValues("ai-lab", "batch-low", "interactive", "", "").get())
        .isEqualTo(2.0);
  }

  @Test
  void shouldMarkOnlyFinalTimelinesAndEveryPreemptionWithTheFinalHeader() {
    start();
    pipeAll(scenario());
    finish(311 + 130);

    String timelineSchema =
        io.schedlens.schemas.OutputHeaders.hex(io.schedlens.schemas.OutputSchemas.podTimeline());
    var records = driver.timelines.readRecordsToList();
    assertThat(records).isNotEmpty();
    for (var r : records) {
      assertThat(new String(r.headers().lastHeader("schedlens-schema").value()))
          .isEqualTo(timelineSchema);
      assertThat(r.headers().lastHeader("schedlens-final") != null)
          .as("header of %s final=%s", r.key(), r.value().getFinal$())
          .isEqualTo(r.value().getFinal$());
    }
    assertThat(records).anyMatch(r -> !r.value().getFinal$()).anyMatch(r -> r.value().getFinal$());
    assertThat(driver.preemptions.readRecordsToList())
        .isNotEmpty()
        .allMatch(r -> r.headers().lastHeader("schedlens-final") != null);
    assertThat(driver.workloads.readRecordsToList())
        .isNotEmpty()
        .allMatch(r -> r.headers().lastHeader("schedlens-final") == null)
        .allMatch(r -> r.headers().lastHeader("schedlens-schema") != null);
  }

  @Test
  void shouldGiveExactlyTheOrderedResultForInputShuffledWithinTheGracePeriod() {
    start();
    pipeAll(scenario());
    finish(311 + 130);
    Map<String, PodTimeline> ordered = finals(latestByUid());
    driver.close();

    SplittableRandom random = new SplittableRandom(5);
    for (int round = 0; round < 5; round++) {
      metrics = new StreamsMetrics();
      driver = new StageDriver(SETTINGS, stateDir.resolve("r" + round), metrics);
      List<Object> in = scenario();
      List<Object[]> keyed = new ArrayList<>();
      for (Object i : in) {
        keyed.add(new Object[] {timestampOf(i) + random.nextLong(GRACE / 2), i});
      }
      keyed.sort(Comparator.comparingLong(o -> (Long) o[0]));
      driver.pipeMarked(keyed.stream().map(o -> o[1]).toList(), GRACE / 2 + 1000);
      finish(311 + 190);
      assertThat(finals(latestByUid())).as("round %d", round).isEqualTo(ordered);
      driver.close();
      driver = null;
    }
  }

  static Map<String, PodTimeline> finals(Map<String, PodTimeline> latest) {
    Map<String, PodTimeline> out = new LinkedHashMap<>();
    latest.forEach(
        (k, v) -> {
          assertThat(v.getFinal$()).as("%s is final", k).isTrue();
          out.put(k, v);
        });
    return new java.util.TreeMap<>(out);
  }

  @Test
  void shouldPutSamplesOfARecreatedStatefulSetPodOnTheIncarnationOfTheirTime() {
    start();
    driver.markAll(at(0));
    Inputs.Pod first =
        new Inputs.Pod(
                "u-web-0-a", "ai-lab", "web-0", "StatefulSet", "web", "interactive", 100000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("srv", 2, 0, true);
    pipe(first.seen(ChangeType.ADDED, 2));
    // The collector's scrapes of GPU-1 at 30, 45, 59, 80 and 95 s, each with the time since the
    // previous one.
    pipe(Inputs.gpu("GPU-1", "ai-lab", "web-0", at(30), 100, null));
    pipe(Inputs.gpu("GPU-1", "ai-lab", "web-0", at(45), 100, 15_000L));
    first.terminated("srv", 2, 60, 0, "Completed");
    pipe(first.seen(ChangeType.DELETED, 61));
    Inputs.Pod second =
        new Inputs.Pod(
                "u-web-0-b", "ai-lab", "web-0", "StatefulSet", "web", "interactive", 100000, 1)
            .created(62)
            .condition("PodScheduled", "True", 63, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("srv", 64, 0, true);
    pipe(second.seen(ChangeType.ADDED, 64));
    // A late sample of the first incarnation, then samples of the second.
    pipe(Inputs.gpu("GPU-1", "ai-lab", "web-0", at(59), 100, 14_000L));
    pipe(Inputs.gpu("GPU-1", "ai-lab", "web-0", at(80), 50, 21_000L));
    pipe(Inputs.gpu("GPU-1", "ai-lab", "web-0", at(95), 50, 15_000L));
    driver.markAll(at(96));
    driver.settle();

    Map<String, PodTimeline> latest = latestByUid();
    // First: 3 samples at 100 % (the first standing for one scrape interval, 15 s; then 15 s and
    // 14 s) = 44 GPU-s. Second: 21 s (since the GPU's sample at 59 s) + 15 s at 50 % = 18.
    assertThat(latest.get("u-web-0-a").getBusyGpuSeconds()).isEqualTo(44.0);
    assertThat(latest.get("u-web-0-b").getBusyGpuSeconds()).isEqualTo(18.0);
  }

  @Test
  void shouldDeadLetterSamplesOfAPodThatNeverAppearsAfterTheGracePeriod() {
    start();
    driver.markAll(at(5));
    pipe(Inputs.gpu("GPU-9", "ai-lab", "ghost-0", at(10), 80));
    pipe(Inputs.request("ai-lab", "ghost-0", "chat", at(11), 200, 40));
    driver.markAll(at(10 + 119));
    driver.settle();
    assertThat(driver.dlq.isEmpty()).as("within the grace period a pod may still appear").isTrue();
    // The pods stream has passed 10 s + grace without a pod of that name: give up.
    driver.markAll(at(11 + 120));

    List<DeadLetter> letters = driver.dlq.readValuesToList();
    assertThat(letters)
        .hasSize(2)
        .allSatisfy(
            d -> {
              assertThat(d.getReason()).isEqualTo("unknown-pod");
              assertThat(d.getDetail()).contains("ai-lab/ghost-0").contains("offsets");
            });
    assertThat(letters.get(0).getEventTime()).isEqualTo(at(10));
    assertThat(metrics.deadLetters.labelValues("unknown-pod").get()).isEqualTo(2.0);
  }

  @Test
  void shouldDeadLetterARecordThatIsNotAvroWithItsPosition() {
    start();
    driver
        .driver
        .createInputTopic(TOPICS.pods.name(), new StringSerializer(), new StringSerializer())
        .pipeInput("u-x", "{\"this\": \"is json\"}");

    DeadLetter d = driver.dlq.readValue();
    assertThat(d.getReason()).isEqualTo("deserialization");
    assertThat(d.getSource()).isEqualTo(TOPICS.pods.name());
    assertThat(d.getOffset()).isEqualTo(0L);
    assertThat(java.nio.charset.StandardCharsets.UTF_8.decode(d.getValue()).toString())
        .isEqualTo("{\"this\": \"is json\"}");
    assertThat(metrics.deadLetters.labelValues("deserialization").get())
        .as("counted by this app's own counter, given in its streams config")
        .isEqualTo(1.0);
  }

  /**
   * On every input the pods stage reads, a record of a few bytes claiming a 600 MB string (which
   * made the decoder allocate 600 MB) is a dead letter with reason over-limit, and the stage goes
   * on: a pod's life after them gives its timeline.
   */
  @Test
  void shouldDeadLetterRecordsClaimingMoreThanTheyHoldOnEveryInputAndGoOn() {
    start();
    String marker = "hostile-marker";
    List<Map.Entry<Topic<String, ?>, Object>> hostile =
        List.of(
            Map.entry(
                TOPICS.pods,
                new Inputs.Pod("u-h", "ai-lab", marker, "Job", "j", "batch", 0, 1)
                    .seen(ChangeType.ADDED, 1)),
            Map.entry(TOPICS.events, Inputs.event("e-h", "u-h", "Scheduled", marker, at(1), null)),
            Map.entry(TOPICS.gpuSamples, Inputs.gpu("GPU-h", "ai-lab", marker, at(1), 50)),
            Map.entry(TOPICS.requests, Inputs.request("ai-lab", marker, "chat", at(1), 200, 1)));
    for (Map.Entry<Topic<String, ?>, Object> h : hostile) {
      driver
          .driver
          .createInputTopic(h.getKey().name(), new StringSerializer(), new ByteArraySerializer())
          .pipeInput("k", claimingAHugeString(h.getKey(), h.getValue(), marker));
    }
    List<DeadLetter> letters = driver.dlq.readValuesToList();
    assertThat(letters)
        .extracting(DeadLetter::getSource)
        .containsExactly(
            TOPICS.pods.name(),
            TOPICS.events.name(),
            TOPICS.gpuSamples.name(),
            TOPICS.requests.name());
    assertThat(letters)
        .allSatisfy(
            d -> {
              assertThat(d.getReason()).isEqualTo(DeadLetters.OVER_LIMIT);
              assertThat(d.getDetail()).contains("String length 600000000 exceeds maximum");
            });
    assertThat(metrics.deadLetters.labelValues(DeadLetters.OVER_LIMIT).get()).isEqualTo(4.0);

    pipeAll(PodLives.interactiveLife());
    finish(131 + 121);
    assertThat(latestByUid()).containsKey("u-chat-0");
  }

  /** {@code value} encoded, the length of its string {@code marker} made 600,000,000, cut after. */
  @SuppressWarnings("unchecked")
  private static byte[] claimingAHugeString(Topic<String, ?> topic, Object value, String marker) {
    byte[] bytes = ((Topic<String, Object>) topic).valueSerde().serializer().serialize("t", value);
    byte[] m = marker.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int at = -1;
    for (int i = 0; i + m.length <= bytes.length && at < 0; i++) {
      if (java.util.Arrays.equals(bytes, i, i + m.length, m, 0, m.length)) {
        at = i - 1;
      }
    }
    assertThat(bytes[at]).as("the marker's length").isEqualTo((byte) (m.length * 2));
    byte[] claim = {(byte) 0x80, (byte) 0x98, (byte) 0x9A, (byte) 0xBC, 0x04}; // zig-zag 6e8
    byte[] out = java.util.Arrays.copyOf(bytes, at + claim.length + 2);
    System.arraycopy(claim, 0, out, at, claim.length);
    return out;
  }

  @Test
  void shouldFlagAJobPreemptedThreeTimesAsAStarvingWorkload() {
    start();
    List<Object> in = new ArrayList<>(PodLives.interactiveLife());
    for (int i = 1; i <= 3; i++) {
      in.addAll(PodLives.preemptedJobLife("u-asr-" + i, "asr-batch-x" + i, "u-chat-0"));
    }
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(in);
    finish(131 + 121);

    Map<String, PodTimeline> latest = latestByUid();
    assertThat(latest.get("u-asr-3").getPreemptionsOfWorkload()).isEqualTo(3);
    assertThat(latest.get("u-asr-3").getStarving()).isTrue();
    assertThat(latest.get("u-chat-0").getStarving()).isFalse();
  }

  /**
   * A drain evicts the only replica of a Deployment (DisruptionTarget EvictionByEvictionAPI, then a
   * graceful deletion); the ReplicaSet creates a replacement at once, which waits for the node, is
   * scheduled, loads its model and serves. Users had no server from the eviction to the
   * replacement's Ready; a request the terminating pod failed falls inside.
   */
  @Test
  void shouldEmitTheWorkloadTimelineWithTheInterruptionAndRecoveryOfAnEvictedReplica() {
    start();
    Inputs.Pod a =
        new Inputs.Pod(
                "u-chat-a",
                "ai-lab",
                "chat-5d8f7-aaaaa",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .label("schedlens.io/arm", "treatment")
            .label("schedlens.io/repeat", "2");
    List<Object> in = new ArrayList<>();
    in.add(a.seen(ChangeType.ADDED, 0.2));
    a.condition("PodScheduled", "True", 1, null, null)
        .node("gpu-node-1")
        .phase("Running")
        .running("model", 10, 0, true)
        .condition("Ready", "True", 60, null, null);
    in.add(a.seen(ChangeType.MODIFIED, 60.3));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-aaaaa", "chat", at(61), 200, 300));
    a.condition("DisruptionTarget", "True", 600, "EvictionByEvictionAPI", "Eviction API: evicting")
        .deleting(600, 30);
    in.add(a.seen(ChangeType.MODIFIED, 600.2));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-aaaaa", "chat", at(601), 503, 5));
    a.terminated("model", 10, 604, 0, "Completed").phase("Succeeded");
    in.add(a.seen(ChangeType.MODIFIED, 604.3));
    in.add(a.seen(ChangeType.DELETED, 605));
    Inputs.Pod b =
        new Inputs.Pod(
                "u-chat-b",
                "ai-lab",
                "chat-5d8f7-bbbbb",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .created(600)
            .label("pod-template-hash", "5d8f7")
            .label("schedlens.io/arm", "treatment")
            .label("schedlens.io/repeat", "2");
    in.add(b.seen(ChangeType.ADDED, 600.4));
    b.condition("PodScheduled", "True", 840, null, null)
        .node("gpu-node-1")
        .phase("Running")
        .running("model", 860, 0, true)
        .condition("Ready", "True", 950, null, null);
    in.add(b.seen(ChangeType.MODIFIED, 950.2));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-bbbbb", "chat", at(951.5), 200, 300));
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(in);
    finish(1300);

    Map<String, WorkloadTimeline> latest = driver.latestWorkloads();
    assertThat(latest).containsOnlyKeys("ai-lab/Deployment/chat");
    WorkloadTimeline t = latest.get("ai-lab/Deployment/chat");
    assertThat(t.getInterruptions())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.getStart()).isEqualTo(at(600));
              assertThat(i.getEnd()).isEqualTo(at(950));
              assertThat(i.getCause()).isEqualTo("eviction-api");
              assertThat(i.getPod()).isEqualTo("u-chat-a");
              assertThat(i.getArm()).isEqualTo("treatment");
              assertThat(i.getRepeat()).isEqualTo("2");
              assertThat(i.getErrors()).isEqualTo(1);
            });
    assertThat(t.getRecoveries())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReplacement()).isEqualTo("u-chat-b");
              assertThat(r.getToScheduledMs()).isEqualTo(240_000L);
              assertThat(r.getToReadyMs()).isEqualTo(350_000L);
              assertThat(r.getToFirstOkMs()).isEqualTo(351_500L);
            });
    assertThat(t.getDesired()).isEqualTo(1);
    assertThat(t.getReady()).isEqualTo(1);
    assertThat(t.getEvictions()).isEqualTo(1);
    assertThat(t.getRequests()).isEqualTo(3);
    assertThat(t.getErrors()).isEqualTo(1);

    assertThat(
            metrics
                .workloadInterruptionSeconds
                .labelValues("ai-lab", "interactive", "Deployment", "treatment", "2")
                .get())
        .isEqualTo(350.0);
    var recovery =
        metrics.workloadRecovery.collect().getDataPoints().stream()
            .filter(d -> "first_ok".equals(d.getLabels().get("stage")))
            .toList();
    assertThat(recovery)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getCount()).isEqualTo(1);
              assertThat(d.getSum()).isEqualTo(351.5);
              assertThat(d.getLabels().get("cause")).isEqualTo("eviction-api");
            });
  }

  /**
   * A rollout (maxUnavailable 1) deletes the old ReplicaSet's pod, with nothing on the pod itself
   * to say why; the workload stage sees the new ReplicaSet's pod and tells the old pod, whose final
   * timeline names the rollout as its disruption.
   */
  @Test
  void shouldNameARolloutAsTheDisruptionOfThePodItReplaced() {
    start();
    Inputs.Pod old =
        new Inputs.Pod(
                "u-old",
                "ai-lab",
                "chat-5d8f7-aaaaa",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", 10, 0, true)
            .condition("Ready", "True", 60, null, null);
    List<Object> in = new ArrayList<>();
    in.add(old.seen(ChangeType.ADDED, 60.5));
    old.deleting(600, 30);
    in.add(old.seen(ChangeType.MODIFIED, 600.2));
    Inputs.Pod fresh =
        new Inputs.Pod(
                "u-new",
                "ai-lab",
                "chat-6c9a1-bbbbb",
                "ReplicaSet",
                "chat-6c9a1",
                "interactive",
                100000,
                1)
            .created(600)
            .label("pod-template-hash", "6c9a1");
    in.add(fresh.seen(ChangeType.ADDED, 600.4));
    old.terminated("model", 10, 604, 0, "Completed").phase("Succeeded");
    in.add(old.seen(ChangeType.MODIFIED, 604.3));
    in.add(old.seen(ChangeType.DELETED, 605));
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(in);
    finish(1300);

    PodTimeline t = latestByUid().get("u-old");
    assertThat(t.getFinal$()).isTrue();
    assertThat(t.getOutcome()).isEqualTo("Deleted");
    assertThat(t.getDisruption().getCause()).isEqualTo("rollout");
    assertThat(t.getDisruption().getBy()).isEqualTo("deployment-controller");
    assertThat(t.getDisruption().getAt()).isEqualTo(sec(600));
  }

  /**
   * With the workload object watched, desired replicas are what the Deployment says: it wants two,
   * one Ready replica is evicted and the other keeps serving: degraded (1 of 2), not interrupted. A
   * Job's object is keyed without its UID on the workloads topic and still meets its pods.
   */
  @Test
  void shouldTakeDesiredReplicasFromTheObservedWorkloadObject() {
    start();
    pipe(
        WorkloadObservation.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Deployment")
            .setName("chat")
            .setUid("u-deploy")
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(sec(0))
            .setDesired(2)
            .build());
    List<Object> in = new ArrayList<>();
    for (String suffix : List.of("aaaaa", "bbbbb")) {
      Inputs.Pod p =
          new Inputs.Pod(
                  "u-" + suffix,
                  "ai-lab",
                  "chat-5d8f7-" + suffix,
                  "ReplicaSet",
                  "chat-5d8f7",
                  "interactive",
                  100000,
                  1)
              .label("pod-template-hash", "5d8f7")
              .condition("PodScheduled", "True", 1, null, null)
              .node("gpu-node-1")
              .phase("Running")
              .running("model", 10, 0, true)
              .condition("Ready", "True", 60, null, null);
      in.add(p.seen(ChangeType.ADDED, 60.5));
      if (suffix.equals("aaaaa")) {
        p.condition(
                "DisruptionTarget", "True", 600, "EvictionByEvictionAPI", "Eviction API: evicting")
            .deleting(600, 30);
        in.add(p.seen(ChangeType.MODIFIED, 600.2));
      }
    }
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(in);
    finish(700);

    WorkloadTimeline t = driver.latestWorkloads().get("ai-lab/Deployment/chat");
    assertThat(t.getDesiredSource()).isEqualTo("observed");
    assertThat(t.getDesired()).isEqualTo(2);
    assertThat(t.getReady()).isEqualTo(1);
    assertThat(t.getInterruptions()).isEmpty();
    assertThat(t.getDegraded())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getStart()).isEqualTo(sec(600));
              assertThat(d.getEnd()).isNull();
              assertThat(d.getCause()).isEqualTo("eviction-api");
            });
  }

  /** A Deployment's object, as the collector sends it. */
  static WorkloadObservation deployment(String name, ChangeType change, double at, int desired) {
    return WorkloadObservation.newBuilder()
        .setNamespace("ai-lab")
        .setKind("Deployment")
        .setName(name)
        .setUid("u-deploy-" + name)
        .setChangeType(change)
        .setObservedAt(sec(at))
        .setDesired(desired)
        .build();
  }

  /** A pod of a Deployment that runs from {@code t} and is gone at {@code end} (null: lives on). */
  static List<Object> replica(String deployment, String suffix, double t, Double end) {
    Inputs.Pod p =
        new Inputs.Pod(
                "u-" + deployment + "-" + suffix,
                "ai-lab",
                deployment + "-5d8f7-" + suffix,
                "ReplicaSet",
                deployment + "-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .created(t)
            .condition("PodScheduled", "True", t + 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", t + 2, 0, true)
            .condition("Ready", "True", t + 10, null, null);
    List<Object> in = new ArrayList<>(List.of(p.seen(ChangeType.ADDED, t + 10.5)));
    if (end != null) {
      p.deleting(end - 5, 30);
      in.add(p.seen(ChangeType.MODIFIED, end - 4.9));
      p.terminated("model", t + 2, end, 0, "Completed");
      in.add(p.seen(ChangeType.DELETED, end + 0.5));
    }
    return in;
  }

  /**
   * A deleted Deployment whose pods ended is freed an orphan timeout later (its last timeline stays
   * published); one that still exists keeps its state, and one deleted while a pod still runs keeps
   * it until that pod ends. A Deployment created again under the freed name starts anew.
   */
  @Test
  void shouldFreeADeletedWorkloadsStateAnOrphanTimeoutAfterItsLastPodEnded() {
    start();
    List<Object> in = new ArrayList<>();
    in.add(deployment("gone", ChangeType.ADDED, 0, 2));
    in.add(deployment("kept", ChangeType.ADDED, 0, 1));
    in.add(deployment("late", ChangeType.ADDED, 0, 1));
    in.addAll(replica("gone", "aaaaa", 0, 300.0));
    in.addAll(replica("gone", "bbbbb", 0, 320.0));
    in.addAll(replica("kept", "ccccc", 0, 300.0));
    in.addAll(replica("late", "ddddd", 0, 2000.0));
    in.add(deployment("gone", ChangeType.DELETED, 330, 0));
    in.add(deployment("late", ChangeType.DELETED, 330, 0));
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(in);
    finish(400);
    KeyValueStore<String, Object> states =
        driver.driver.getKeyValueStore(TopologyNames.WORKLOADS_STORE);
    KeyValueStore<String, Object> members =
        driver.driver.getKeyValueStore(TopologyNames.WORKLOAD_PODS_STORE);
    assertThat(states.get("ai-lab/Deployment/gone")).as("within the timeout").isNotNull();

    finish(330 + 3600 + 60);
    assertThat(states.get("ai-lab/Deployment/gone")).isNull();
    assertThat(keysStartingWith(members, "ai-lab/Deployment/gone")).isEmpty();
    assertThat(states.get("ai-lab/Deployment/kept")).as("its object still exists").isNotNull();
    assertThat(states.get("ai-lab/Deployment/late")).as("its pod ended at 2000 s").isNotNull();
    assertThat(driver.metrics.workloadsFreed.get()).isEqualTo(1.0);
    WorkloadTimeline gone = driver.latestWorkloads().get("ai-lab/Deployment/gone");
    assertThat(gone.getPods()).isEqualTo(2);
    assertThat(gone.getDesired()).isZero();

    finish(2000 + 3600 + 60);
    assertThat(states.get("ai-lab/Deployment/late")).isNull();
    assertThat(driver.metrics.workloadsFreed.get()).isEqualTo(2.0);

    // The name used again: a new workload, not the old one's counts.
    List<Object> again = new ArrayList<>();
    again.add(deployment("gone", ChangeType.ADDED, 8000, 1));
    again.addAll(replica("gone", "eeeee", 8000, null));
    again.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    pipeAll(again);
    finish(8100);
    WorkloadTimeline anew = driver.latestWorkloads().get("ai-lab/Deployment/gone");
    assertThat(anew.getPods()).isEqualTo(1);
    assertThat(anew.getDesired()).isEqualTo(1);
    assertThat(anew.getReady()).isEqualTo(1);
  }

  private static List<String> keysStartingWith(KeyValueStore<String, Object> store, String p) {
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, Object> it = store.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.key.startsWith(p)) {
              keys.add(kv.key);
            }
          });
    }
    return keys;
  }

  /**
   * A scale-down written at 600 s (the scale subresource's managedFields time) but read by the
   * collector 45 s later: the desired step stands at the write, not at the read.
   */
  @Test
  void shouldPlaceADesiredReplicasChangeAtItsWriteNotItsRead() {
    start();
    Inputs.Pod p =
        new Inputs.Pod(
                "u-chat-a",
                "ai-lab",
                "chat-5d8f7-aaaaa",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("model", 10, 0, true)
            .condition("Ready", "True", 60, null, null);
    pipe(p.seen(ChangeType.ADDED, 60.5));
    for (int[] change : new int[][] {{0, 1, 0}, {600, 0, 645}}) {
      pipe(
          WorkloadObservation.newBuilder()
              .setNamespace("ai-lab")
              .setKind("Deployment")
              .setName("chat")
              .setUid("u-deploy")
              .setChangeType(change[0] == 0 ? ChangeType.ADDED : ChangeType.MODIFIED)
              .setObservedAt(sec(Math.max(change[0], change[2])))
              .setDesiredChangedAt(sec(change[0]))
              .setDesired(change[1])
              .build());
    }
    finish(650);

    WorkloadTimeline t = driver.latestWorkloads().get("ai-lab/Deployment/chat");
    assertThat(t.getSeries())
        .filteredOn(x -> x.getDesired() == 0)
        .first()
        .satisfies(x -> assertThat(x.getAt()).isEqualTo(sec(600)));
  }

  /**
   * An experiment runs its Job three times under one name: three workloads. The workload timelines
   * topic is compacted, which keeps the last record of each key; keyed by the name alone, the
   * second and third repeat's timelines would fold the first away. Keyed by identity, all three
   * stay, in the one partition of their name.
   */
  @Test
  void shouldKeepEveryRepeatOfAJobOfOneNameWhatCompactionLeaves() {
    start();
    List<Object> in = new ArrayList<>();
    for (int r = 1; r <= 3; r++) {
      double t0 = r * 1000;
      Inputs.Pod p =
          new Inputs.Pod(
                  "u-embed-" + r, "ai-lab", "embed-" + r, "Job", "embed", "batch-low", 1000, 1)
              .ownerUid("u-job-" + r)
              .created(t0)
              .condition("PodScheduled", "True", t0 + 1, null, null)
              .node("gpu-node-1")
              .phase("Running")
              .running("embed", t0 + 2, 0, true);
      in.add(p.seen(ChangeType.ADDED, t0 + 2.5));
      p.terminated("embed", t0 + 2, t0 + 300, 0, "Completed").phase("Succeeded");
      in.add(p.seen(ChangeType.MODIFIED, t0 + 300.5));
      in.add(p.seen(ChangeType.DELETED, t0 + 301));
    }
    pipeAll(in);
    finish(3 * 1000 + 600);

    // the last record of each key: what compaction leaves
    Map<String, WorkloadTimeline> compacted = driver.latestWorkloads();
    assertThat(compacted.keySet())
        .filteredOn(k -> k.startsWith("ai-lab/Job/embed"))
        .containsExactlyInAnyOrder(
            "ai-lab/Job/embed/u-job-1", "ai-lab/Job/embed/u-job-2", "ai-lab/Job/embed/u-job-3");
    compacted.forEach((k, w) -> assertThat(k).isEqualTo(WorkloadKey.of(w).identity()));
  }

  /**
   * An upgrade: the topic holds a running Job's timeline keyed by its name alone, as the release
   * before wrote it. When the Job's timeline comes under its identity, the API's store drops the
   * old copy instead of keeping a stale second one for good.
   */
  @Test
  void shouldReplaceARecordKeyedByNameAloneWithTheSameWorkloadUnderItsIdentity() {
    start();
    var oldTopic =
        driver.driver.createInputTopic(
            Topics.defaults().workloadTimelines.name(),
            new StringSerializer(),
            Topics.defaults().workloadTimelines.valueSerde().serializer());
    oldTopic.pipeInput(
        "ai-lab/Job/embed",
        WorkloadTimeline.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Job")
            .setName("embed")
            .setControllerUid("u-job-1")
            .setDesiredSource("observed")
            .setDesired(1)
            .setReady(0)
            .setUpdatedAt(sec(500))
            .build(),
        sec(500));
    Inputs.Pod p =
        new Inputs.Pod("u-embed-1", "ai-lab", "embed-1", "Job", "embed", "batch-low", 1000, 1)
            .ownerUid("u-job-1")
            .created(1000)
            .condition("PodScheduled", "True", 1001, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("embed", 1002, 0, true);
    pipeAll(List.of(p.seen(ChangeType.ADDED, 1002.5)));
    finish(1300);

    KeyValueStore<String, WorkloadTimeline> published =
        driver.driver.getKeyValueStore(TopologyNames.PUBLISHED_WORKLOADS_STORE);
    assertThat(published.get("ai-lab/Job/embed/u-job-1")).isNotNull();
    assertThat(published.get("ai-lab/Job/embed")).as("the stale copy under the name").isNull();
  }

  @Test
  void shouldPartitionAWorkloadsFactsWithItsObjectWhateverTheControllerUid() {
    assertThat(ByWorkloadObject.objectKey("ai-lab/Job/embed/u-1")).isEqualTo("ai-lab/Job/embed");
    assertThat(ByWorkloadObject.objectKey("ai-lab/Deployment/chat"))
        .isEqualTo("ai-lab/Deployment/chat");
    for (int n : new int[] {1, 3, 6, 12}) {
      // what a producer does with a record keyed by the object alone
      int expected =
          org.apache.kafka.clients.producer.internals.BuiltInPartitioner.partitionForKey(
              "ai-lab/Job/embed".getBytes(java.nio.charset.StandardCharsets.UTF_8), n);
      assertThat(ByWorkloadObject.partition("ai-lab/Job/embed/u-1", n)).isEqualTo(expected);
    }
  }

  /**
   * The pods stream lags minutes behind the samples and requests (a collector restart, a slow
   * partition, a backlog): every sample and request waits for the pods stream to say which
   * incarnation held the name at its time, and none is dead-lettered, even for a name that two
   * incarnations held one after the other.
   */
  @Test
  void shouldAttributeEverySampleAndRequestWhenThePodsStreamLagsMinutesBehind() {
    start();
    Inputs.Pod first =
        new Inputs.Pod("u-web-a", "ai-lab", "web-0", "StatefulSet", "web", "interactive", 100000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("srv", 2, 0, true)
            .condition("Ready", "True", 3, null, null);
    Inputs.Pod second =
        new Inputs.Pod("u-web-b", "ai-lab", "web-0", "StatefulSet", "web", "interactive", 100000, 1)
            .created(90)
            .condition("PodScheduled", "True", 90, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("srv", 91, 0, true)
            .condition("Ready", "True", 91, null, null);
    List<Object> pods = new ArrayList<>();
    pods.add(first.seen(ChangeType.ADDED, 3.2));
    first.deleting(85, 0).terminated("srv", 2, 86, 0, "Completed");
    pods.add(first.seen(ChangeType.MODIFIED, 86.2));
    pods.add(first.seen(ChangeType.DELETED, 86.5));
    pods.add(second.seen(ChangeType.ADDED, 91.2));
    List<Object> named = new ArrayList<>();
    Long previous = null;
    for (int s = 4; s < 180; s++) {
      if (s > 86 && s < 91) {
        continue; // nothing served between the two
      }
      named.add(Inputs.request("ai-lab", "web-0", "chat", at(s + 0.5), 200, 100));
      named.add(
          Inputs.gpu(
              "GPU-1", "ai-lab", "web-0", at(s), 50, previous == null ? null : at(s) - previous));
      previous = at(s);
    }
    // Samples and requests first, their topics marked as they go; the pods topic marked nowhere.
    long last = Long.MIN_VALUE;
    for (Object in : named) {
      long t = timestampOf(in);
      if (t - 1000 > last + 1000) {
        last = t - 1000;
        driver.mark(TOPICS.gpuSamples.name(), last);
        driver.mark(TOPICS.requests.name(), last);
        driver.mark(TOPICS.events.name(), last);
      }
      pipe(in);
    }
    driver.settle();
    assertThat(latestByUid()).as("nothing is known of a pod yet").isEmpty();
    // Minutes later, the pods stream catches up.
    pods.forEach(this::pipe);
    finish(200);

    Map<String, PodTimeline> latest = latestByUid();
    assertThat(driver.dlq.isEmpty()).as("no unknown-pod dead letter").isTrue();
    assertThat(latest.get("u-web-a").getRequests()).isEqualTo(86 - 4 + 1);
    assertThat(latest.get("u-web-b").getRequests()).isEqualTo(180 - 91);
    // a: the first sample stands for one scrape interval (15 s), the others for 1 s, at 50 %;
    // b: its first sample stands for the 5 s since the GPU's previous one.
    assertThat(latest.get("u-web-a").getBusyGpuSeconds()).isEqualTo(7.5 + 82 * 0.5);
    assertThat(latest.get("u-web-b").getBusyGpuSeconds()).isEqualTo(2.5 + 88 * 0.5);
  }

  /** A shipper that got no answer sends the batch again: each line counts once. */
  @Test
  void shouldCountARequestLineSentTwiceOnce() {
    start();
    Inputs.Pod p =
        new Inputs.Pod(
                "u-chat", "ai-lab", "chat-0", "StatefulSet", "chat", "interactive", 100000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("srv", 2, 0, true)
            .condition("Ready", "True", 3, null, null);
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, 3.5));
    List<RequestLog> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      RequestLog r = Inputs.request("ai-lab", "chat-0", "chat", at(10 + i * 0.25), 200, 900);
      r.setRequestId("req-" + i);
      batch.add(r);
    }
    in.addAll(batch);
    in.addAll(batch.subList(0, 10)); // the retry, seconds later in arrival, same lines
    RequestLog noId = Inputs.request("ai-lab", "chat-0", "chat", at(20), 500, 10);
    in.add(noId);
    in.add(noId); // without an id, a line counts as it comes
    driver.pipeMarked(in, 1000);
    driver.markAll(at(30));
    pipe(batch.get(19)); // once more, after the second was settled
    finish(40);

    PodTimeline t = latestByUid().get("u-chat");
    assertThat(t.getRequests()).isEqualTo(22);
    assertThat(t.getErrors()).isEqualTo(2);
    assertThat(t.getSloBreaches()).as("900 ms over the 500 ms SLO of chat").isEqualTo(20);
    assertThat(metrics.lateRecords.labelValues("duplicate-request").get()).isEqualTo(11.0);
  }

  /**
   * GPU samples in any order within the grace period, some delivered twice, give the busy time of
   * the samples in order, counted once: each carries the span it stands for, and the sum does not
   * depend on order (it did when the span was taken from whichever sample had arrived before).
   */
  @Test
  void shouldCountGpuSamplesInAnyOrderAndEachOnce() {
    Inputs.Pod p =
        new Inputs.Pod("u-asr", "ai-lab", "asr-0", "StatefulSet", "asr", "batch-low", 500, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("asr", 2, 0, true);
    List<GpuSample> samples = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      // 10 Hz, utilisation varying, each with the 100 ms since the previous one
      samples.add(
          Inputs.gpu(
              "GPU-1", "ai-lab", "asr-0", at(3 + i * 0.1), (i * 37) % 101, i == 0 ? null : 100L));
    }
    double expected = 0; // the first sample (0 %) stands for one scrape interval
    for (int i = 1; i < 600; i++) {
      expected += ((i * 37) % 101) / 100.0 * 0.1;
    }
    List<Double> busy = new ArrayList<>();
    for (long seed : List.of(1L, 2L, 3L)) {
      metrics = new StreamsMetrics();
      driver = new StageDriver(SETTINGS, stateDir.resolve("r" + seed), metrics);
      List<Object> in = new ArrayList<>(samples);
      java.util.Collections.shuffle(in, new java.util.Random(seed));
      in.addAll(samples.subList(100, 150)); // delivered twice
      in.add(0, p.seen(ChangeType.ADDED, 2.5));
      driver.markAll(at(1));
      in.forEach(this::pipe);
      finish(80);
      busy.add(latestByUid().get("u-asr").getBusyGpuSeconds());
      assertThat(metrics.lateRecords.labelValues("duplicate-gpu-sample").get()).isEqualTo(50.0);
      driver.close();
      driver = null;
    }
    double inOrder = expected;
    assertThat(busy).allSatisfy(b -> assertThat(b).isCloseTo(inOrder, within(1e-6)));
    assertThat(busy).as("the same number to the last digit").containsOnly(busy.get(0));
  }

  @Test
  void shouldDeadLetterTombstonesNullKeysAndRecordsOnAnotherPartition() {
    TopologySettings three = SETTINGS.withPartitions(3);
    driver = new StageDriver(three, stateDir, metrics);
    var raw =
        driver.driver.createInputTopic(
            TOPICS.requests.name(),
            new StringSerializer(),
            TOPICS.requests.valueSerde().serializer());
    RequestLog r = Inputs.request("ai-lab", "chat-1", "chat", at(10), 200, 40);
    raw.pipeInput("ai-lab/chat-1", null);
    raw.pipeInput(null, r);
    // TopologyTestDriver reads every topic as partition 0; chat-1 belongs on another of three.
    int partition = io.schedlens.schemas.PodName.partitionOf("ai-lab/chat-1", 3);
    assertThat(partition).as("the test's premise").isNotZero();
    raw.pipeInput("ai-lab/chat-1", r);

    List<DeadLetter> letters = driver.dlq.readValuesToList();
    assertThat(letters)
        .extracting(DeadLetter::getReason)
        .containsExactly("tombstone", "null-key", "wrong-partition");
    assertThat(letters.get(2).getDetail()).contains("partition " + partition + " of 3");
    assertThat(letters.get(1).getValue()).as("the record, to look at").isNotNull();
  }

  /**
   * The Preempted event expired and the condition names no preemptor: the pod the scheduler
   * nominated to the victim's node at the preemption is the preemptor, marked inferred, on both
   * timelines.
   */
  @Test
  void shouldInferThePreemptorFromTheNominationWhenNothingNamesIt() {
    start();
    Inputs.Pod victim =
        new Inputs.Pod("u-asr", "ai-lab", "asr-0", "Job", "asr", "batch-low", 1000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1")
            .phase("Running")
            .running("asr", 2, 0, true);
    Inputs.Pod preemptor =
        new Inputs.Pod(
                "u-chat", "ai-lab", "chat-0", "StatefulSet", "chat", "interactive", 100000, 1)
            .created(50)
            .condition("PodScheduled", "False", 50, "Unschedulable", "0/1 nodes are available");
    Inputs.Pod bystander =
        new Inputs.Pod("u-other", "ai-lab", "other-0", "Job", "other", "batch-low", 1000, 1)
            .created(55)
            .condition("PodScheduled", "False", 55, "Unschedulable", "0/1 nodes are available");
    List<Object> in = new ArrayList<>();
    in.add(victim.seen(ChangeType.ADDED, 2.5));
    in.add(preemptor.seen(ChangeType.ADDED, 50.2));
    in.add(bystander.seen(ChangeType.ADDED, 55.2));
    victim
        .condition(
            "DisruptionTarget",
            "True",
            60,
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod")
        .deleting(60, 0)
        .terminated("asr", 2, 61, 137, "Error");
    in.add(victim.seen(ChangeType.MODIFIED, 60.3));
    preemptor.nominated("gpu-node-1");
    in.add(preemptor.seen(ChangeType.MODIFIED, 60.5));
    in.add(victim.seen(ChangeType.DELETED, 61.5));
    preemptor
        .condition("PodScheduled", "True", 62, null, null)
        .node("gpu-node-1")
        .phase("Running")
        .running("srv", 63, 0, true);
    in.add(preemptor.seen(ChangeType.MODIFIED, 63.2));
    bystander.condition("PodScheduled", "True", 64, null, null).node("gpu-node-1");
    in.add(bystander.seen(ChangeType.MODIFIED, 64.2));
    pipeAll(in);
    finish(61.5 + 130);

    Map<String, PodTimeline> latest = latestByUid();
    PodTimeline v = latest.get("u-asr");
    assertThat(v.getFinal$()).isTrue();
    assertThat(v.getOutcome()).isEqualTo("Preempted");
    assertThat(v.getPreemptor()).isNotNull();
    assertThat(v.getPreemptor().getUid()).isEqualTo("u-chat");
    assertThat(v.getPreemptor().getPriorityClass()).isEqualTo("interactive");
    assertThat(v.getPreemptor().getInferred()).isTrue();
    assertThat(latest.get("u-chat").getVictims()).containsExactly("u-asr");
    assertThat(latest.get("u-other").getVictims()).isEmpty();
  }

  /**
   * Whatever order a task reads its four input topics in (each topic's own order kept, as Kafka
   * keeps a partition's), and whenever the stages' watermarks go out, the final timelines,
   * preemptions and dead letters are the same; with the stores in RocksDB or on the heap.
   */
  @Test
  void shouldGiveTheSameOutputsWhateverTheOrderItReadsItsTopicsIn() {
    List<Object> in = scenario();
    in.add(Inputs.gpu("GPU-9", "ai-lab", "ghost-0", at(30), 80));
    in.sort(Comparator.comparingLong(TimelineTopologyTest::timestampOf));
    Map<String, List<Object[]>> byTopic = new LinkedHashMap<>();
    long lastMark = Long.MIN_VALUE;
    List<Object> marked = new ArrayList<>();
    for (Object i : in) {
      long t = timestampOf(i);
      if (t - 1000 > lastMark + 1000) {
        lastMark = t - 1000;
        marked.add(lastMark);
      }
      marked.add(i);
    }
    // one sequence per topic: its inputs and its marks, in order
    for (Object o : marked) {
      for (String topic : topicsOf(o)) {
        byTopic.computeIfAbsent(topic, k -> new ArrayList<>()).add(new Object[] {topic, o});
      }
    }
    Map<String, PodTimeline> expected = null;
    List<String> expectedLetters = null;
    List<String> expectedPreemptions = null;
    SplittableRandom random = new SplittableRandom(11);
    for (int round = 0; round < 6; round++) {
      metrics = new StreamsMetrics();
      // every other round decodes each state from the store's bytes, as after a restart; rounds
      // 2 and 5 keep the stores on the heap without changelogs, as a what-if does
      driver =
          new StageDriver(
              round % 2 == 1 ? SETTINGS.withHotObjects(0) : SETTINGS,
              stateDir.resolve("i" + round),
              metrics,
              round % 3 == 2
                  ? TimelineTopology.StoreKind.TRANSIENT
                  : TimelineTopology.StoreKind.PERSISTENT);
      Map<String, Integer> next = new LinkedHashMap<>();
      byTopic.keySet().forEach(k -> next.put(k, 0));
      while (!next.isEmpty()) {
        List<String> open = new ArrayList<>(next.keySet());
        String topic = open.get(random.nextInt(open.size()));
        int n = 1 + random.nextInt(round == 0 ? 1 : 40);
        List<Object[]> seq = byTopic.get(topic);
        for (int k = 0; k < n && next.containsKey(topic); k++) {
          Object o = seq.get(next.get(topic))[1];
          if (o instanceof Long mark) {
            driver.mark(topic, mark);
          } else {
            pipe(o);
          }
          if (next.get(topic) + 1 == seq.size()) {
            next.remove(topic);
          } else {
            next.put(topic, next.get(topic) + 1);
          }
        }
        if (random.nextInt(8) == 0) {
          driver.settle(); // the stages' broadcasts go out at some point, any point
        }
      }
      finish(311 + 200);
      Map<String, PodTimeline> finals = finals(latestByUid());
      List<String> letters =
          driver.dlq.readValuesToList().stream()
              .map(d -> d.getReason() + " " + d.getDetail())
              .sorted()
              .toList();
      List<String> preempted =
          driver.preemptions.readValuesToList().stream().map(Object::toString).sorted().toList();
      if (expected == null) {
        expected = finals;
        expectedLetters = letters;
        expectedPreemptions = preempted;
        assertThat(letters).singleElement().asString().startsWith("unknown-pod");
      } else {
        assertThat(finals).as("round %d", round).isEqualTo(expected);
        assertThat(letters).as("round %d", round).isEqualTo(expectedLetters);
        assertThat(preempted).as("round %d", round).isEqualTo(expectedPreemptions);
      }
      driver.close();
      driver = null;
    }
  }

  /** The input topics an element of a marked sequence goes to (a mark goes to all). */
  static List<String> topicsOf(Object o) {
    if (o instanceof Long) {
      return List.of(
          TOPICS.pods.name(),
          TOPICS.events.name(),
          TOPICS.gpuSamples.name(),
          TOPICS.requests.name(),
          TOPICS.workloads.name());
    }
    if (o instanceof PodObservation) {
      return List.of(TOPICS.pods.name());
    }
    if (o instanceof ClusterEvent) {
      return List.of(TOPICS.events.name());
    }
    if (o instanceof GpuSample) {
      return List.of(TOPICS.gpuSamples.name());
    }
    return List.of(TOPICS.requests.name());
  }

  @Test
  void shouldKeepTheTopologyNamesPinned() throws Exception {
    String described = topology(new StreamsMetrics()).describe().toString();
    Path pinned = Path.of("src/test/resources/topology-description.txt");
    if (!Files.exists(pinned)) {
      Files.writeString(pinned, described);
      throw new AssertionError("wrote " + pinned + " for the first time: review it and commit it");
    }
    assertThat(described)
        .as(
            "the topology's names changed; if on purpose, and state can be migrated, replace %s with:%n%s",
            pinned, described)
        .isEqualTo(Files.readString(pinned));
  }

  @Test
  void shouldReportStarvationWhenAPodWaitsPastTheThreshold() {
    start();
    Inputs.Pod p =
        new Inputs.Pod("u-wait", "ai-lab", "asr-batch-w", "Job", "asr-batch", "batch-low", 1000, 1)
            .condition("PodScheduled", "False", 0, "Unschedulable", null);
    pipe(p.seen(ChangeType.ADDED, 0.5));
    finish(599);
    assertThat(latestByUid().get("u-wait").getStarving()).isFalse();
    finish(601);
    PodTimeline t = latestByUid().get("u-wait");
    assertThat(t.getStarving()).isTrue();
    assertThat(t.getOutcome()).isEqualTo("Pending");
    assertThat(sec(0)).isEqualTo(t.getCreatedAt());
  }
}
