package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.collector.kafka.Outgoing;
import io.schedlens.collector.kafka.Records;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.metrics.StreamsMetrics;
import io.schedlens.streams.topology.DeadLetterHandlers;
import io.schedlens.streams.topology.TimelineTopology;
import io.schedlens.streams.topology.TopologySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The streams app's topology ({@link TimelineTopology}: every stage, store and internal topic, the
 * same reducer) in-process on Kafka Streams' {@link TopologyTestDriver}: one thread, one partition,
 * no broker. Fed the collector's records as they come, with a progress mark on every input topic
 * each {@link #SLICE_MS} of virtual time (the marks are true: later inputs are never earlier than
 * the virtual now they are read at), and the driver's wall clock moved on so that the stages'
 * watermarks go round. The marks, not the wall clock, decide what the timelines say: outputs are a
 * function of the inputs alone.
 */
final class TopologyRun implements Consumer<Outgoing>, AutoCloseable {

  /** Virtual time between progress marks. */
  static final long SLICE_MS = 60_000;

  private static final String PRODUCER = "whatif";

  private final Topics topics;
  private final Records records;
  private final TopologyTestDriver driver;
  private final LongSupplier now;
  private final Map<String, TestInputTopic<byte[], byte[]>> inputs = new HashMap<>();
  private final TestOutputTopic<String, PodTimeline> timelines;
  private final TestOutputTopic<String, WorkloadTimeline> workloads;
  private final TestOutputTopic<String, Preemption> preemptions;
  private final Map<String, PodTimeline> latest = new LinkedHashMap<>();
  private final Map<String, WorkloadTimeline> latestWorkloads = new LinkedHashMap<>();
  private final Map<String, Preemption> latestPreemptions = new LinkedHashMap<>();
  private long lastMark = Long.MIN_VALUE;
  private long piped;

  /**
   * @param now the simulation's virtual time
   * @param stateDir where the topology's RocksDB stores live for this run
   */
  TopologyRun(
      Topics topics, Records records, TopologySettings settings, LongSupplier now, Path stateDir) {
    this.topics = topics;
    this.records = records;
    this.now = now;
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "schedlens-whatif");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "in-process:0");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    p.put(
        StreamsConfig.DEFAULT_DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterHandlers.Deserialization.class);
    p.put(DeadLetterHandlers.TOPIC_CONFIG, topics.deadLetters.name());
    this.driver =
        new TopologyTestDriver(
            TimelineTopology.build(topics, settings, new StreamsMetrics()),
            p,
            Instant.ofEpochMilli(now.getAsLong()));
    ByteArraySerializer bytes = new ByteArraySerializer();
    for (String topic : records.markedTopics()) {
      inputs.put(topic, driver.createInputTopic(topic, bytes, bytes));
    }
    StringDeserializer keys = new StringDeserializer();
    timelines =
        driver.createOutputTopic(
            topics.podTimelines.name(), keys, topics.podTimelines.valueSerde().deserializer());
    workloads =
        driver.createOutputTopic(
            topics.workloadTimelines.name(),
            keys,
            topics.workloadTimelines.valueSerde().deserializer());
    preemptions =
        driver.createOutputTopic(
            topics.preemptions.name(), keys, topics.preemptions.valueSerde().deserializer());
  }

  /** One input, read now: first the mark of the slice that ended, if one did. */
  @Override
  public void accept(Outgoing o) {
    long t = now.getAsLong();
    if (lastMark == Long.MIN_VALUE) {
      lastMark = t - 1;
    } else if (t - lastMark > SLICE_MS) {
      markAll(t - 1);
      lastMark = t - 1;
      settle(3);
      drain();
    }
    TestInputTopic<byte[], byte[]> topic = inputs.get(o.topic());
    if (topic == null) {
      throw new IllegalArgumentException("not an input topic of the streams app: " + o.topic());
    }
    topic.pipeInput(new TestRecord<>(o.key(), o.value(), Instant.ofEpochMilli(o.eventTime())));
    piped++;
  }

  /** Inputs piped so far. */
  long piped() {
    return piped;
  }

  /** Ends the input (the last mark): every final timeline due goes out. */
  void finish() {
    markAll(ProgressMarks.END);
    settle(6);
    // a pod's flush tells its workload, whose own flush then publishes
    driver.advanceWallClockTime(Duration.ofSeconds(3));
    driver.advanceWallClockTime(Duration.ofSeconds(3));
    drain();
  }

  private void markAll(long time) {
    for (String topic : records.markedTopics()) {
      Outgoing m = records.mark(topic, time, lastMark + 1, PRODUCER);
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

  private void settle(int rounds) {
    for (int i = 0; i < rounds; i++) {
      driver.advanceWallClockTime(Duration.ofMillis(150));
    }
  }

  private void drain() {
    timelines.readKeyValuesToList().forEach(kv -> latest.put(kv.key, kv.value));
    workloads.readValuesToList().forEach(w -> WorkloadsFile.keepLatest(latestWorkloads, w));
    preemptions.readKeyValuesToList().forEach(kv -> latestPreemptions.put(kv.key, kv.value));
  }

  /** The latest timeline of every pod. */
  Map<String, PodTimeline> timelines() {
    return latest;
  }

  /** The latest timeline of every workload, by identity. */
  Map<String, WorkloadTimeline> workloads() {
    return latestWorkloads;
  }

  Map<String, Preemption> preemptions() {
    return latestPreemptions;
  }

  @Override
  public void close() {
    driver.close();
  }
}
