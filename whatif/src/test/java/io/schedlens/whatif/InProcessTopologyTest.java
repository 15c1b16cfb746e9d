package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.topology.DeadLetterHandlers;
import io.schedlens.topology.TimelineTopology;
import io.schedlens.topology.TopologySettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The what-if's own run of the topology against Kafka Streams' reference: the inputs a simulated
 * experiment writes (day08, its 3 repeats of both arms: preemptions, restarts, serving replicas,
 * requests, SLOs) reduced by {@link TopologyRun} ({@link InProcessTopology}) and by Kafka Streams'
 * {@link TopologyTestDriver} on the same topology, sliced and marked the same way, give the same
 * timelines, workload timelines and preemptions, field for field.
 */
class InProcessTopologyTest {

  static final long ORIGIN = 1_796_000_000_000L;

  /** An input and the virtual time it was written at. */
  record Written(Outgoing input, long at) {}

  static final List<Written> WRITTEN = new ArrayList<>();
  static TimelineSettings timeline;
  static TopologySettings settings;

  @TempDir static Path state;

  @BeforeAll
  static void simulate() throws Exception {
    Scenario scenario = ScenarioLoader.load("day08");
    timeline = TimelineSettings.defaults().withSlos(scenario.slos());
    settings = TopologySettings.defaults().withTimeline(timeline);
    Topics topics = Topics.defaults();
    Simulator sim = new Simulator(scenario, ORIGIN);
    sim.gpus().unwatch();
    PredictedInputs inputs =
        new PredictedInputs(
            new Records(topics, 64 * 1024),
            WhatIf.labelKeys(timeline),
            sim::now,
            o -> WRITTEN.add(new Written(o, sim.now())));
    sim.run(inputs, inputs, Simulator.Pacer.NONE, Simulator.Progress.NONE);
  }

  @Test
  void shouldReduceAsKafkaStreamsTopologyTestDriverDoes() throws Exception {
    Topics topics = Topics.defaults();
    Records records = new Records(topics, 64 * 1024);
    long[] now = {ORIGIN};
    Map<String, PodTimeline> inProcess;
    Map<String, WorkloadTimeline> inProcessWorkloads;
    Map<String, Preemption> inProcessPreemptions;
    try (TopologyRun run =
        new TopologyRun(topics, records, settings, () -> now[0], state.resolve("in-process"))) {
      for (Written w : WRITTEN) {
        now[0] = w.at();
        run.accept(w.input());
      }
      run.finish();
      inProcess = run.timelines();
      inProcessWorkloads = run.workloads();
      inProcessPreemptions = run.preemptions();
    }

    Reference reference = new Reference(topics, records, state.resolve("reference"));
    WRITTEN.forEach(reference::pipe);
    reference.finish();

    assertThat(WRITTEN).hasSizeGreaterThan(5_000);
    assertThat(inProcess).hasSizeGreaterThanOrEqualTo(30);
    assertThat(inProcess.values()).anyMatch(t -> t.getPreemptedAt() != null);
    assertThat(inProcessPreemptions).isNotEmpty();
    assertThat(inProcess).isEqualTo(reference.timelines);
    assertThat(inProcessWorkloads).isEqualTo(reference.workloads);
    assertThat(inProcessPreemptions).isEqualTo(reference.preemptions);
  }

  @Test
  void shouldRefuseAnInputNoStageReads() {
    try (InProcessTopology t =
        new InProcessTopology(
            Topics.defaults(),
            TopologySettings.defaults(),
            new StreamsMetrics(),
            state.resolve("refuse"),
            ORIGIN)) {
      assertThatThrownBy(() -> t.pipe("elsewhere", null, new byte[0], new RecordHeaders(), ORIGIN))
          .hasMessage("not an input topic of the streams app: elsewhere");
    }
  }

  /**
   * The same topology on Kafka Streams' test driver (its runtime: one task, a commit after every
   * record), fed as {@link TopologyRun} feeds it: a mark on every input topic when a slice of
   * virtual time ends, then three wall-clock steps.
   */
  static final class Reference {
    final TopologyTestDriver driver;
    final Records records;
    final Map<String, TestInputTopic<byte[], byte[]>> inputs = new LinkedHashMap<>();
    final Map<String, PodTimeline> timelines = new LinkedHashMap<>();
    final Map<String, WorkloadTimeline> workloads = new LinkedHashMap<>();
    final Map<String, Preemption> preemptions = new LinkedHashMap<>();
    final Topics topics;
    long lastMark = Long.MIN_VALUE;

    Reference(Topics topics, Records records, Path dir) {
      this.topics = topics;
      this.records = records;
      Properties p = new Properties();
      p.put(StreamsConfig.APPLICATION_ID_CONFIG, "schedlens-whatif-reference");
      p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "in-process:0");
      p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
      p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
      p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
      p.put(
          StreamsConfig.DEFAULT_DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
          DeadLetterHandlers.Deserialization.class);
      p.put(DeadLetterHandlers.TOPIC_CONFIG, topics.deadLetters.name());
      driver =
          new TopologyTestDriver(
              TimelineTopology.build(
                  topics, settings, new StreamsMetrics(), TimelineTopology.StoreKind.TRANSIENT),
              p,
              Instant.ofEpochMilli(ORIGIN));
      ByteArraySerializer bytes = new ByteArraySerializer();
      records.markedTopics().forEach(t -> inputs.put(t, driver.createInputTopic(t, bytes, bytes)));
    }

    void pipe(Written w) {
      long t = w.at();
      if (lastMark == Long.MIN_VALUE) {
        lastMark = t - 1;
      } else if (t - lastMark > TopologyRun.SLICE_MS) {
        markAll(t - 1);
        lastMark = t - 1;
        settle(3);
      }
      Outgoing o = w.input();
      inputs
          .get(o.topic())
          .pipeInput(new TestRecord<>(o.key(), o.value(), Instant.ofEpochMilli(o.eventTime())));
    }

    void finish() {
      markAll(ProgressMarks.END);
      settle(6);
      driver.advanceWallClockTime(Duration.ofSeconds(3));
      driver.advanceWallClockTime(Duration.ofSeconds(3));
      StringDeserializer keys = new StringDeserializer();
      driver
          .createOutputTopic(
              topics.podTimelines.name(), keys, topics.podTimelines.valueSerde().deserializer())
          .readKeyValuesToList()
          .forEach(kv -> timelines.put(kv.key, kv.value));
      driver
          .createOutputTopic(
              topics.workloadTimelines.name(),
              keys,
              topics.workloadTimelines.valueSerde().deserializer())
          .readValuesToList()
          .forEach(w -> io.schedlens.report.WorkloadsFile.keepLatest(workloads, w));
      driver
          .createOutputTopic(
              topics.preemptions.name(), keys, topics.preemptions.valueSerde().deserializer())
          .readKeyValuesToList()
          .forEach(kv -> preemptions.put(kv.key, kv.value));
      driver.close();
    }

    void markAll(long time) {
      for (String topic : records.markedTopics()) {
        Outgoing m = records.mark(topic, time, lastMark + 1, "whatif");
        inputs
            .get(topic)
            .pipeInput(
                new TestRecord<>(
                    null,
                    m.value(),
                    new RecordHeaders(ProgressMarks.headers().toArray()),
                    Instant.ofEpochMilli(m.eventTime())));
      }
    }

    void settle(int rounds) {
      for (int i = 0; i < rounds; i++) {
        driver.advanceWallClockTime(Duration.ofMillis(150));
      }
    }
  }
}
