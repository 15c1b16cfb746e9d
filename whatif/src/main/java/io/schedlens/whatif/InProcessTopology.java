package io.schedlens.whatif;

import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.topology.TimelineTopology;
import io.schedlens.topology.TopologySettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedForward;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * The streams app's topology ({@link TimelineTopology#wire}: the same stages, stores, topics and
 * serdes) run in one process, on one partition, without Kafka Streams' runtime: a record piped in
 * goes to the stage that reads its topic, and every record a stage writes to a topic another stage
 * reads goes there next, through the topic's serdes, in the order written (a topic partition's
 * order; how the stages interleave is theirs to be indifferent to, as on a broker). Each stage is a
 * task of its own with its own stream time, as in the app. Wall-clock punctuators fire when {@link
 * #advanceWallClock} passes their time; {@link #commit} hands the stores' write-back buffers down.
 *
 * <p>Why not Kafka Streams' {@code TopologyTestDriver}: it commits after every record (each store's
 * buffer serialized every time) and matches every record's topic against every source topic as a
 * regular expression, compiled anew; in a what-if of a week that was three fifths of the topology's
 * time (JFR, {@code WhatIfLoad}). The stages' contexts are Kafka Streams' own {@link
 * MockProcessorContext}, which initializes real stores and records what a stage forwards and
 * schedules; this class only routes and punctuates. Stores must be uncached and unlogged ({@link
 * TimelineTopology.StoreKind#TRANSIENT}). The query stage (stores kept for the API) is not run: the
 * outputs are read from their topics ({@link #output}).
 */
final class InProcessTopology implements AutoCloseable {

  /** A record on its way to a stage. */
  private record Pending(String topic, byte[] key, byte[] value, Headers headers, long timestamp) {}

  private record Source(Stage<?, ?> stage, Deserializer<String> keys, Deserializer<?> values) {}

  /** A source as declared, before its stage is known. */
  private record Declared(String topic, Deserializer<String> keys, Deserializer<?> values) {}

  /** A stage reading a source. */
  private record Reads(String stage, String source) {}

  private record Sink(
      String topic,
      Serializer<String> keys,
      Serializer<Object> values,
      StreamPartitioner<String, Object> partitioner) {}

  private record Output<V>(Deserializer<V> values, BiConsumer<String, V> to) {}

  /** A wall-clock punctuator and the wall time it fires next. */
  private static final class Timer {
    final CapturedPunctuator punctuator;
    final long interval;
    long next;

    Timer(CapturedPunctuator punctuator, long now) {
      this.punctuator = punctuator;
      this.interval = punctuator.getInterval().toMillis();
      this.next = now + interval;
    }

    /** As Kafka Streams schedules after a punctuation: missed times are skipped, not caught up. */
    void fired(long now) {
      long missed = (now - next) / interval;
      next = next + (missed + 1) * interval;
    }
  }

  /**
   * One stage: a task of its own, reading keys {@code String} and values {@code I}, writing values
   * {@code O}.
   */
  private static final class Stage<I, O> {
    final String name;
    final MockProcessorContext<String, O> context;
    final Processor<String, I, String, O> processor;
    final List<StateStore> stores = new ArrayList<>();
    final Map<String, Sink> sinks = new LinkedHashMap<>();
    final List<Timer> timers = new ArrayList<>();
    long streamTime = -1;

    Stage(
        String name,
        MockProcessorContext<String, O> context,
        Processor<String, I, String, O> processor) {
      this.name = name;
      this.context = context;
      this.processor = processor;
    }

    /**
     * A record read from one of the stage's topics. The value came through the deserializer the
     * topology declared for that topic, which the topology wires to this stage: it is an {@code I}.
     */
    @SuppressWarnings("unchecked")
    void process(String key, Object value, long timestamp, Headers headers) {
      processor.process(new Record<>(key, (I) value, timestamp, headers));
    }

    void init() {
      processor.init(context);
    }
  }

  private final Map<String, Stage<?, ?>> stages = new LinkedHashMap<>();
  private final Map<String, Source> sources = new HashMap<>();
  private final Map<String, Output<?>> outputs = new HashMap<>();
  private final Map<String, Long> offsets = new HashMap<>();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private long wall;

  /**
   * @param wallClockMs the wall clock the stages start at (their punctuators' first times)
   */
  InProcessTopology(
      Topics topics,
      TopologySettings settings,
      StreamsMetrics metrics,
      Path stateDir,
      long wallClockMs) {
    this.wall = wallClockMs;
    Wired wired = new Wired(stateDir);
    TimelineTopology.wire(wired, topics, settings, metrics, TimelineTopology.StoreKind.TRANSIENT);
    for (Reads r : wired.reads) {
      Declared d = wired.declared.get(r.source());
      sources.put(d.topic(), new Source(stages.get(r.stage()), d.keys(), d.values()));
    }
    for (Stage<?, ?> stage : stages.values()) {
      for (StoreBuilder<?> b : wired.stores.getOrDefault(stage.name, List.of())) {
        StateStore store = b.build();
        store.init(stage.context.getStateStoreContext(), store);
        stage.context.addStateStore(store);
        stage.stores.add(store);
      }
      stage.init();
      scheduled(stage);
      route(stage);
    }
    run();
  }

  /**
   * What the topology declares, collected: a stage per processor (its context a task of its own),
   * its sources, stores and sinks.
   */
  private final class Wired implements TimelineTopology.Wiring {
    final Properties config = new Properties();
    final Path stateDir;
    final Map<String, List<StoreBuilder<?>>> stores = new HashMap<>();
    final Map<String, Declared> declared = new HashMap<>();
    final List<Reads> reads = new ArrayList<>();

    Wired(Path stateDir) {
      this.stateDir = stateDir;
      config.put(StreamsConfig.APPLICATION_ID_CONFIG, "schedlens-whatif");
      config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "in-process:0");
      config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
      // as the app sets it (StreamsConfig warns once per context otherwise); nothing here reads it
      config.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    }

    @Override
    public void source(
        String name, String topic, Deserializer<String> keys, Deserializer<?> values) {
      declared.put(name, new Declared(topic, keys, values));
    }

    @Override
    public <I, O> void processor(
        String name, ProcessorSupplier<String, I, String, O> processor, String... from) {
      MockProcessorContext<String, O> context =
          new MockProcessorContext<>(
              config, new TaskId(stages.size(), 0), stateDir.resolve(name).toFile());
      context.setCurrentSystemTimeMs(wall);
      context.setCurrentStreamTimeMs(-1); // Kafka Streams' stream time before any record
      stages.put(name, new Stage<>(name, context, processor.get()));
      for (String source : from) {
        reads.add(new Reads(name, source));
      }
    }

    @Override
    public void store(StoreBuilder<?> store, String processor) {
      stores.computeIfAbsent(processor, p -> new ArrayList<>()).add(store);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> void sink(
        String name,
        String topic,
        Serializer<String> keys,
        Serializer<V> values,
        StreamPartitioner<String, Object> partitioner,
        String parent) {
      stages
          .get(parent)
          .sinks
          .put(name, new Sink(topic, keys, (Serializer<Object>) values, partitioner));
    }

    @Override
    public <V> void published(
        String name,
        StoreBuilder<?> store,
        String source,
        String topic,
        Deserializer<String> keys,
        Deserializer<V> values,
        ProcessorSupplier<String, V, Void, Void> processor) {
      // not run: see the class comment
    }
  }

  /** The topics a stage reads. */
  Set<String> inputTopics() {
    return sources.keySet();
  }

  /**
   * Every record the topology writes to {@code topic} from now on, to {@code to} (through the
   * topic's serde, as a consumer reads it).
   */
  <V> void output(Topic<String, V> topic, BiConsumer<String, V> to) {
    outputs.put(topic.name(), new Output<>(topic.valueSerde().deserializer(), to));
  }

  /** A record on an input topic: processed, with everything it causes, before this returns. */
  void pipe(String topic, byte[] key, byte[] value, Headers headers, long timestamp) {
    if (!sources.containsKey(topic)) {
      throw new IllegalArgumentException("not an input topic of the streams app: " + topic);
    }
    pending.add(new Pending(topic, key, value, headers, timestamp));
    run();
  }

  /**
   * Moves the stages' wall clock on: every punctuator whose time came fires once (stage by stage,
   * in the order they were scheduled), then what they wrote is processed.
   */
  void advanceWallClock(Duration by) {
    wall += by.toMillis();
    for (Stage<?, ?> stage : stages.values()) {
      scheduled(stage);
      stage.context.setCurrentSystemTimeMs(wall);
      for (Timer t : stage.timers) {
        if (!t.punctuator.cancelled() && wall >= t.next) {
          t.punctuator.getPunctuator().punctuate(wall);
          t.fired(wall);
          route(stage);
        }
      }
    }
    run();
  }

  /** The punctuators {@code stage} scheduled since the last look, from the wall clock's now. */
  private void scheduled(Stage<?, ?> stage) {
    List<CapturedPunctuator> all = stage.context.scheduledPunctuators();
    for (CapturedPunctuator p : all.subList(stage.timers.size(), all.size())) {
      if (p.getType() != PunctuationType.WALL_CLOCK_TIME) {
        throw new IllegalStateException(
            "stage "
                + stage.name
                + " schedules a stream-time punctuator, which a what-if does not drive");
      }
      stage.timers.add(new Timer(p, wall));
    }
  }

  /** What a commit does to the stores: their write-back buffers go to the stores below. */
  void commit() {
    for (Stage<?, ?> stage : stages.values()) {
      for (StateStore s : stage.stores) {
        s.commit(Map.of());
      }
    }
  }

  private void run() {
    Pending r;
    while ((r = pending.poll()) != null) {
      deliver(r);
    }
  }

  private void deliver(Pending r) {
    Source source = sources.get(r.topic());
    Stage<?, ?> stage = source.stage();
    long offset = offsets.merge(r.topic(), 1L, Long::sum) - 1;
    String key = source.keys().deserialize(r.topic(), r.headers(), r.key());
    Object value = source.values().deserialize(r.topic(), r.headers(), r.value());
    stage.streamTime = Math.max(stage.streamTime, r.timestamp());
    stage.context.setRecordMetadata(r.topic(), 0, offset);
    stage.context.setCurrentStreamTimeMs(stage.streamTime);
    stage.context.setCurrentSystemTimeMs(wall);
    try {
      stage.process(key, value, r.timestamp(), r.headers());
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "stage " + stage.name + " failed on " + r.topic() + " record " + offset, e);
    }
    route(stage);
  }

  /** What {@code stage} forwarded, to its sinks' topics. */
  private void route(Stage<?, ?> stage) {
    for (CapturedForward<?, ?> f : stage.context.forwarded()) {
      Optional<String> child = f.childName();
      if (child.isPresent()) {
        Sink sink = stage.sinks.get(child.get());
        if (sink == null) {
          throw new IllegalStateException(
              "stage " + stage.name + " forwarded to " + child.get() + ", not one of its sinks");
        }
        write(sink, f.record());
      } else {
        for (Sink sink : stage.sinks.values()) {
          write(sink, f.record());
        }
      }
    }
    stage.context.resetForwards();
  }

  /** As Kafka Streams' record collector sends a record to a topic of one partition. */
  private void write(Sink sink, Record<?, ?> record) {
    String key = (String) record.key();
    Object value = record.value();
    if (sink.partitioner() != null) {
      Optional<Set<Integer>> to = sink.partitioner().partitions(sink.topic(), key, value, 1);
      if (to.isPresent() && !to.get().contains(0)) {
        return; // the partitioner dropped it
      }
    }
    Headers headers = new RecordHeaders(record.headers().toArray());
    byte[] k = sink.keys().serialize(sink.topic(), headers, key);
    byte[] v = sink.values().serialize(sink.topic(), headers, value);
    Output<?> output = outputs.get(sink.topic());
    if (output != null) {
      deliver(output, key, sink.topic(), headers, v);
    }
    if (sources.containsKey(sink.topic())) {
      pending.add(new Pending(sink.topic(), k, v, headers, record.timestamp()));
    }
  }

  private static <V> void deliver(
      Output<V> output, String key, String topic, Headers headers, byte[] value) {
    output.to().accept(key, output.values().deserialize(topic, headers, value));
  }

  @Override
  public void close() {
    for (Stage<?, ?> stage : stages.values()) {
      stage.processor.close();
      for (StateStore s : stage.stores) {
        s.close();
      }
    }
  }
}
