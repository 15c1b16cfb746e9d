package io.schedlens.topology;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.Inputs;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The whole topology on {@link TopologyTestDriver}, fed as the collector feeds Kafka: each input
 * keyed and timestamped as the collector does, and progress marks on every input topic (the
 * collector's promise that what it read up to a time is written). The driver's wall clock moves
 * only when told, so the stages' watermark broadcasts and counter flushes go out on demand.
 */
final class StageDriver implements AutoCloseable {

  static final Topics TOPICS = Topics.defaults();

  final TopologyTestDriver driver;
  final StreamsMetrics metrics;
  private final Map<String, TestInputTopic<String, Object>> inputs = new LinkedHashMap<>();
  private final Map<String, TestInputTopic<String, byte[]>> marks = new LinkedHashMap<>();
  final TestOutputTopic<String, PodTimeline> timelines;
  final TestOutputTopic<String, WorkloadTimeline> workloads;
  final TestOutputTopic<String, Preemption> preemptions;
  final TestOutputTopic<String, DeadLetter> dlq;
  private final Map<String, PodTimeline> latest = new LinkedHashMap<>();
  private final Map<String, WorkloadTimeline> latestWorkloads = new LinkedHashMap<>();

  StageDriver(TopologySettings settings, Path stateDir, StreamsMetrics metrics) {
    this(settings, stateDir, metrics, TimelineTopology.StoreKind.PERSISTENT);
  }

  StageDriver(
      TopologySettings settings,
      Path stateDir,
      StreamsMetrics metrics,
      TimelineTopology.StoreKind stores) {
    this.metrics = metrics;
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "schedlens-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(
        StreamsConfig.DEFAULT_DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterHandlers.Deserialization.class);
    p.put(DeadLetterHandlers.TOPIC_CONFIG, TOPICS.deadLetters.name());
    Consumer<String> counted = reason -> metrics.deadLetters.labelValues(reason).inc();
    p.put(DeadLetterHandlers.COUNTER_CONFIG, counted);
    driver =
        new TopologyTestDriver(
            TimelineTopology.build(TOPICS, settings, metrics, stores),
            p,
            Instant.ofEpochMilli(Inputs.T0));
    for (Topic<String, ?> t :
        List.of(TOPICS.pods, TOPICS.events, TOPICS.gpuSamples, TOPICS.requests, TOPICS.workloads)) {
      inputs.put(t.name(), input(t));
      marks.put(
          t.name(),
          driver.createInputTopic(t.name(), new StringSerializer(), new ByteArraySerializer()));
    }
    StringDeserializer kd = new StringDeserializer();
    timelines =
        driver.createOutputTopic(
            TOPICS.podTimelines.name(), kd, TOPICS.podTimelines.valueSerde().deserializer());
    workloads =
        driver.createOutputTopic(
            TOPICS.workloadTimelines.name(),
            kd,
            TOPICS.workloadTimelines.valueSerde().deserializer());
    preemptions =
        driver.createOutputTopic(
            TOPICS.preemptions.name(), kd, TOPICS.preemptions.valueSerde().deserializer());
    dlq =
        driver.createOutputTopic(
            TOPICS.deadLetters.name(), kd, TOPICS.deadLetters.valueSerde().deserializer());
  }

  @SuppressWarnings("unchecked")
  private TestInputTopic<String, Object> input(Topic<String, ?> t) {
    return (TestInputTopic<String, Object>)
        (TestInputTopic<String, ?>)
            driver.createInputTopic(t.name(), new StringSerializer(), t.valueSerde().serializer());
  }

  /** Pipes an input as the collector keys and timestamps it. */
  void pipe(Object input) {
    if (input instanceof PodObservation o) {
      inputs
          .get(TOPICS.pods.name())
          .pipeInput(new TestRecord<>(o.getUid(), o, Instant.ofEpochMilli(o.getObservedAt())));
    } else if (input instanceof ClusterEvent e) {
      inputs
          .get(TOPICS.events.name())
          .pipeInput(
              new TestRecord<>(
                  e.getRegarding().getUid(), e, Instant.ofEpochMilli(EventTimes.of(e))));
    } else if (input instanceof GpuSample g) {
      inputs
          .get(TOPICS.gpuSamples.name())
          .pipeInput(
              new TestRecord<>(
                  g.getNamespace() + "/" + g.getPod(), g, Instant.ofEpochMilli(g.getTime())));
    } else if (input instanceof RequestLog r) {
      inputs
          .get(TOPICS.requests.name())
          .pipeInput(
              new TestRecord<>(
                  r.getNamespace() + "/" + r.getPod(), r, Instant.ofEpochMilli(r.getTime())));
    } else if (input instanceof WorkloadObservation w) {
      inputs
          .get(TOPICS.workloads.name())
          .pipeInput(
              new TestRecord<>(
                  w.getNamespace() + "/" + w.getKind() + "/" + w.getName(),
                  w,
                  Instant.ofEpochMilli(w.getObservedAt())));
    } else {
      throw new IllegalArgumentException("not an input: " + input);
    }
  }

  /** A progress mark of {@code time} on one input topic. */
  void mark(String topic, long time) {
    marks
        .get(topic)
        .pipeInput(
            new TestRecord<>(
                null,
                ProgressMarks.value("test", time),
                new RecordHeaders(ProgressMarks.headers().toArray()),
                Instant.ofEpochMilli(ProgressMarks.timestamp(time, Inputs.T0))));
  }

  /** A progress mark of {@code time} on every input topic. */
  void markAll(long time) {
    for (String topic : marks.keySet()) {
      mark(topic, time);
    }
  }

  /** Lets the stages' watermarks go round (two rounds and then some), and counters flush. */
  void settle() {
    for (int i = 0; i < 6; i++) {
      driver.advanceWallClockTime(Duration.ofMillis(150));
    }
    // a pod's flush tells its workload, whose own flush then publishes
    driver.advanceWallClockTime(Duration.ofSeconds(3));
    driver.advanceWallClockTime(Duration.ofSeconds(3));
  }

  /**
   * Pipes inputs in the order given, marking every input topic as a collector would: {@code lag}
   * behind the latest input (inputs may be that much out of order), at most once an event second.
   */
  void pipeMarked(List<?> ordered, long lag) {
    long lastMark = Long.MIN_VALUE;
    for (Object input : ordered) {
      long t = timestampOf(input);
      if (t - lag > lastMark + 1000) {
        lastMark = t - lag;
        markAll(lastMark);
      }
      pipe(input);
    }
  }

  /** Marks every input up to {@code time} and lets everything due go out. */
  void finish(long time) {
    markAll(time);
    settle();
  }

  /** The latest timeline of every pod so far. */
  Map<String, PodTimeline> latestByUid() {
    timelines.readKeyValuesToList().forEach(kv -> latest.put(kv.key, kv.value));
    return latest;
  }

  /** The latest timeline of every workload so far. */
  Map<String, WorkloadTimeline> latestWorkloads() {
    workloads.readKeyValuesToList().forEach(kv -> latestWorkloads.put(kv.key, kv.value));
    return latestWorkloads;
  }

  static long timestampOf(Object input) {
    if (input instanceof PodObservation o) {
      return o.getObservedAt();
    } else if (input instanceof ClusterEvent e) {
      return EventTimes.of(e);
    } else if (input instanceof GpuSample g) {
      return g.getTime();
    } else if (input instanceof WorkloadObservation w) {
      return w.getObservedAt();
    }
    return ((RequestLog) input).getTime();
  }

  @Override
  public void close() {
    driver.close();
  }
}
