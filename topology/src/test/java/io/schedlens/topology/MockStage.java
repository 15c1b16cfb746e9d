package io.schedlens.topology;

import io.schedlens.avro.ProgressMark;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.ProgressMarks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/**
 * One stage's processor on {@link MockProcessorContext}, Kafka's way to unit-test a processor: its
 * stores in memory (no changelog), the records it forwards captured per sink, its wall-clock
 * schedules run only when a test says, and record metadata (topic, partition, offset) as a task
 * would see it.
 */
final class MockStage {

  final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
  private final Processor<String, Object, String, Object> processor;

  /** How the stage reads each of its topics, by name: a test's values go through them as bytes. */
  private final Map<String, Deserializer<?>> readers;

  /** The internal topic the stage's messages come from. */
  private final String messages;

  private long offset;

  /** A task's stream time: the largest timestamp read, -1 before the first (as in Kafka). */
  private long streamTime = -1;

  /**
   * @param readers the stage's own readers of its topics, by name (as the topology gives them)
   * @param messages the internal topic it reads other stages' messages from
   */
  @SuppressWarnings("unchecked")
  <I, O> MockStage(
      Processor<String, I, String, O> processor,
      Map<String, ? extends Deserializer<I>> readers,
      String messages) {
    // The context is typed as the processor's output; the test reads what it captured as values.
    this.processor =
        (Processor<String, Object, String, Object>) (Processor<String, ?, String, ?>) processor;
    this.readers = Map.copyOf(readers);
    this.messages = messages;
    context.setCurrentStreamTimeMs(streamTime);
    context.setCurrentSystemTimeMs(0);
  }

  /** Adds an in-memory store of the name the stage asks for. */
  <V> MockStage store(String name, Serde<V> values) {
    KeyValueStore<String, V> store =
        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return this;
  }

  /** Adds an in-memory window store of the name the stage asks for. */
  <V> MockStage windows(String name, Duration retention, Duration size, Serde<V> values) {
    WindowStore<String, V> store =
        Stores.windowStoreBuilder(
                Stores.inMemoryWindowStore(name, retention, size, false), Serdes.String(), values)
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return this;
  }

  MockStage init() {
    processor.init(context);
    return this;
  }

  <V> KeyValueStore<String, V> store(String name) {
    return context.getStateStore(name);
  }

  /**
   * A record read from {@code topic}'s {@code partition}, as the stage's task reads it: the value
   * written with the topic's serializer (a progress mark with its header, null as no value) and
   * read back by the stage's reader of that topic. Stream time moves to its timestamp.
   */
  void read(String topic, int partition, String key, Object value, long timestamp) {
    Headers headers = new RecordHeaders();
    byte[] bytes;
    if (value instanceof ProgressMark m) {
      headers = ProgressMarks.headers();
      bytes = ProgressMarks.value(m.getProducer(), m.getTime());
    } else {
      bytes = value == null ? null : serializer(topic).serialize(topic, headers, value);
    }
    Deserializer<?> reader = readers.get(topic);
    if (reader == null) {
      throw new IllegalArgumentException("the stage does not read " + topic);
    }
    context.setRecordMetadata(topic, partition, offset++);
    streamTime = Math.max(streamTime, timestamp);
    context.setCurrentStreamTimeMs(streamTime);
    processor.process(
        new Record<>(key, reader.deserialize(topic, headers, bytes), timestamp, headers));
  }

  @SuppressWarnings("unchecked")
  private static Serializer<Object> serializer(String topic) {
    return StageDriver.TOPICS.all().stream()
        .filter(t -> t.name().equals(topic))
        .map(t -> (Serializer<Object>) t.valueSerde().serializer())
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no topic " + topic));
  }

  /** A message from another stage (or this one's other tasks). */
  void message(String key, StageMessage m, long timestamp) {
    read(messages, 0, key, m, timestamp);
  }

  /** What a stage's task said of its progress. */
  void watermark(String stage, int partition, long time, long answered) {
    message(
        "watermark",
        new StageMessage(null, Watermarks.of(stage, partition, time, answered)),
        Math.max(0, streamTime));
  }

  /** The values forwarded to {@code sink} since the last {@link #clear}, in order. */
  <T> List<T> sent(String sink, Class<T> type) {
    return context.forwarded().stream()
        .filter(f -> f.childName().orElse("").equals(sink))
        .map(f -> f.record().value())
        .map(v -> v instanceof StageMessage m && !type.isInstance(v) ? m.getPayload() : v)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }

  /** The records forwarded to {@code sink} since the last {@link #clear}. */
  @SuppressWarnings("unchecked")
  List<Record<String, Object>> records(String sink) {
    return context.forwarded().stream()
        .filter(f -> f.childName().orElse("").equals(sink))
        .map(f -> (Record<String, Object>) f.record())
        .toList();
  }

  void clear() {
    context.resetForwards();
  }

  /** Runs the wall-clock schedule of that interval once, at wall time {@code wall}. */
  void punctuate(Duration interval, long wall) {
    context.setCurrentSystemTimeMs(wall);
    for (CapturedPunctuator p : context.scheduledPunctuators()) {
      if (p.getType() == PunctuationType.WALL_CLOCK_TIME && p.getInterval().equals(interval)) {
        p.getPunctuator().punctuate(wall);
      }
    }
  }

  /** The watermarks forwarded to {@code sink}. */
  List<Watermark> watermarks(String sink) {
    return sent(sink, Watermark.class);
  }
}
