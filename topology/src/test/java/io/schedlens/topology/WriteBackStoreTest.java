package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * The write-back buffer on a real task (TopologyTestDriver commits after every input): each
 * record's writes reach the changelog at its commit, once per key however often it was written, and
 * reads see the buffer.
 */
class WriteBackStoreTest {

  static final String STORE = "counts";

  /** Values serialized so far. */
  static final java.util.concurrent.atomic.AtomicInteger SERIALIZED =
      new java.util.concurrent.atomic.AtomicInteger();

  static org.apache.kafka.common.serialization.Serde<String> countingValues() {
    StringSerializer plain = new StringSerializer();
    return Serdes.serdeFrom(
        (topic, v) -> {
          SERIALIZED.incrementAndGet();
          return plain.serialize(topic, v);
        },
        new StringDeserializer());
  }

  /** Counts each word three times over (three puts per input), and reads it back. */
  static final class Counter implements Processor<String, String, String, String> {
    private KeyValueStore<String, String> store;
    private ProcessorContext<String, String> context;

    @Override
    public void init(ProcessorContext<String, String> context) {
      this.context = context;
      this.store = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, String> r) {
      for (int i = 0; i < 3; i++) {
        String old = store.get(r.value());
        store.put(r.value(), Integer.toString(old == null ? 1 : Integer.parseInt(old) + 1));
      }
      if (r.value().equals("forget")) {
        store.delete("forget");
      }
      StringBuilder all = new StringBuilder();
      if (r.value().equals("forget")) {
        try (KeyValueIterator<String, String> it = store.all()) {
          it.forEachRemaining(kv -> all.append(kv.key).append('=').append(kv.value).append(' '));
        }
      }
      context.forward(r.withValue(store.get(r.value()) + " | " + all.toString().strip()));
    }
  }

  @Test
  void shouldWriteEachKeyToTheChangelogOncePerCommitAndReadItsOwnWrites() {
    Topology t = new Topology();
    t.addSource("in", new StringDeserializer(), new StringDeserializer(), "words");
    t.addProcessor("count", Counter::new, "in");
    t.addStateStore(
        WriteBackStore.builder(
            Stores.keyValueStoreBuilder(
                    Stores.persistentKeyValueStore(STORE), Serdes.String(), countingValues())
                .withCachingEnabled()),
        "count");
    t.addSink("out", "counted", new StringSerializer(), new StringSerializer(), "count");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "write-back");
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    try (TopologyTestDriver driver = new TopologyTestDriver(t, p)) {
      TestInputTopic<String, String> in =
          driver.createInputTopic("words", new StringSerializer(), new StringSerializer());
      TestOutputTopic<String, String> out =
          driver.createOutputTopic("counted", new StringDeserializer(), new StringDeserializer());
      TestOutputTopic<String, String> changelog =
          driver.createOutputTopic(
              "write-back-" + STORE + "-changelog",
              new StringDeserializer(),
              new StringDeserializer());

      SERIALIZED.set(0);
      in.pipeInput("k", "gpu");
      assertThat(SERIALIZED.get()).as("three puts, one serialization at the commit").isEqualTo(1);
      in.pipeInput("k", "gpu");
      in.pipeInput("k", "forget");

      // reads see the buffer: the count and the range read
      assertThat(out.readValuesToList()).containsExactly("3 | ", "6 | ", "null | gpu=6");
      // one changelog record per key per commit (a commit after each input), not one per put
      List<KeyValue<String, String>> logged = changelog.readKeyValuesToList();
      assertThat(logged)
          .containsExactly(
              KeyValue.pair("gpu", "3"), KeyValue.pair("gpu", "6"), KeyValue.pair("forget", null));
      KeyValueStore<String, String> store = driver.getKeyValueStore(STORE);
      assertThat(store.get("gpu")).isEqualTo("6");
      assertThat(store.get("forget")).isNull();
    }
  }

  /** "open K" writes a new key, "settle K" deletes it; a record holds one or more, ";" apart. */
  static final class Waiting implements Processor<String, String, String, String> {
    private WriteBackStore<String> store;

    @Override
    public void init(ProcessorContext<String, String> context) {
      KeyValueStore<String, String> view = context.getStateStore(STORE);
      this.store = WriteBackStore.under(view);
    }

    @Override
    public void process(Record<String, String> r) {
      for (String step : r.value().split(";")) {
        String[] op = step.strip().split(" ");
        if (op[0].equals("open")) {
          store.putNew(op[1], "waiting");
        } else {
          store.put(op[1], null);
        }
      }
    }
  }

  @Test
  void shouldLeaveNoTraceOfAKeyBornAndDeletedBetweenTwoCommits() {
    Topology t = new Topology();
    t.addSource("in", new StringDeserializer(), new StringDeserializer(), "ops");
    t.addProcessor("wait", Waiting::new, "in");
    t.addStateStore(
        WriteBackStore.builder(
            Stores.keyValueStoreBuilder(
                    Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.String())
                .withCachingEnabled()),
        "wait");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "write-back");
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    try (TopologyTestDriver driver = new TopologyTestDriver(t, p)) {
      TestInputTopic<String, String> in =
          driver.createInputTopic("ops", new StringSerializer(), new StringSerializer());
      TestOutputTopic<String, String> changelog =
          driver.createOutputTopic(
              "write-back-" + STORE + "-changelog",
              new StringDeserializer(),
              new StringDeserializer());

      in.pipeInput("k", "open second-1; settle second-1"); // born and settled before the commit
      in.pipeInput("k", "open second-2"); // waits past a commit (one after each input)
      in.pipeInput("k", "settle second-2");
      in.pipeInput("k", "open second-3");
      // settled, then waiting again and settled again before the next commit: the store below
      // still held its first value, so its deletion must reach it
      in.pipeInput("k", "settle second-3; open second-3; settle second-3");

      assertThat(changelog.readKeyValuesToList())
          .containsExactly(
              KeyValue.pair("second-2", "waiting"),
              KeyValue.pair("second-2", null),
              KeyValue.pair("second-3", "waiting"),
              KeyValue.pair("second-3", null));
      KeyValueStore<String, String> store = driver.getKeyValueStore(STORE);
      assertThat(store.get("second-1")).isNull();
      assertThat(store.get("second-2")).isNull();
      assertThat(store.get("second-3")).isNull();
    }
  }
}
