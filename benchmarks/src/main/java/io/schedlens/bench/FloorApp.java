package io.schedlens.bench;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.streams.StreamsProperties;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The engine's floor: the least an exactly-once Kafka Streams application can do with schedlens'
 * inputs, run by {@link StreamsLoad} beside the real app on the same backlog, so that the app's
 * rate can be read as a share of what Kafka Streams itself reaches on this machine, not of the raw
 * broker.
 *
 * <p>It reads the same five input topics, groups the records by pod (their key: a pod's UID or its
 * {@code namespace/name}, partitioned by name as the app's are), keeps one small aggregate per pod
 * and second in a RocksDB store (a count: read, add, write), and writes one record per pod and
 * minute. No values are decoded: what is left is the engine's own work (fetching, the record
 * dispatch, the stores and their changelogs, transactions). {@link Decoding} does the same and
 * decodes every value into its Avro class first, as any reader of these topics must: the gap
 * between the two is the decoding's. It takes the app's command line and its Kafka Streams settings
 * ({@link StreamsProperties}: exactly-once v2, commit interval, store cache, RocksDB memory,
 * producer compression), so that the two differ in their topologies, and in one setting only the
 * app needs: the floor reads its partitions as they come, not in timestamp order.
 */
public final class FloorApp {

  /** Where the floor's minute records go (created by the benchmark). */
  static final String OUTPUT = "schedlens.floor-minutes";

  static final String SECONDS_STORE = "floor-pod-seconds";
  static final String MINUTES_STORE = "floor-pod-minutes";

  private FloorApp() {}

  /** The floor's topology over {@code topics}' inputs, decoding each value or not. */
  static Topology topology(Topics topics, boolean decode) {
    Topology t = new Topology();
    t.addSource(
        "floor-inputs",
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        StreamsLoad.inputs(topics).toArray(String[]::new));
    Map<String, Deserializer<?>> values = new HashMap<>();
    if (decode) {
      for (Topic<String, ?> topic :
          List.of(
              topics.pods, topics.events, topics.gpuSamples, topics.requests, topics.workloads)) {
        values.put(topic.name(), topic.valueSerde().deserializer());
      }
    }
    t.addProcessor("floor-per-pod", () -> new PerPod(values), "floor-inputs");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(SECONDS_STORE), Serdes.String(), Serdes.Long())
            .withCachingEnabled(),
        "floor-per-pod");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(MINUTES_STORE), Serdes.String(), Serdes.Long())
            .withCachingEnabled(),
        "floor-per-pod");
    t.addSink(
        "floor-out",
        OUTPUT,
        Serdes.String().serializer(),
        Serdes.Long().serializer(),
        "floor-per-pod");
    return t;
  }

  /** Per record: its pod's count of the second, and the pod's minute record once per minute. */
  static final class PerPod implements Processor<String, byte[], String, Long> {
    /** Each input topic's value decoder; none for the engine floor. */
    private final Map<String, Deserializer<?>> values;

    private ProcessorContext<String, Long> context;

    PerPod(Map<String, Deserializer<?>> values) {
      this.values = values;
    }

    private KeyValueStore<String, Long> seconds;
    private KeyValueStore<String, Long> minutes;

    @Override
    public void init(ProcessorContext<String, Long> context) {
      this.context = context;
      this.seconds = context.getStateStore(SECONDS_STORE);
      this.minutes = context.getStateStore(MINUTES_STORE);
    }

    @Override
    public void process(Record<String, byte[]> r) {
      if (r.key() == null) {
        return; // a progress mark
      }
      if (!values.isEmpty()) {
        String topic = context.recordMetadata().orElseThrow().topic();
        values.get(topic).deserialize(topic, r.value());
      }
      long second = r.timestamp() / 1000;
      String secondKey = r.key() + "|" + second;
      Long n = seconds.get(secondKey);
      seconds.put(secondKey, n == null ? 1 : n + 1);
      String minuteKey = r.key() + "|" + second / 60;
      if (minutes.get(minuteKey) == null) {
        minutes.put(minuteKey, second);
        context.forward(new Record<>(r.key(), second, r.timestamp()));
      }
    }
  }

  /** Runs the engine floor with the app's command line until it is stopped. */
  public static void main(String[] args) throws Exception {
    run(args, false);
  }

  /** The floor that also decodes every value, as the app must before it can use one. */
  public static final class Decoding {
    private Decoding() {}

    public static void main(String[] args) throws Exception {
      run(args, true);
    }
  }

  private static void run(String[] args, boolean decode) throws Exception {
    CommandLineSettings settings =
        CommandLineSettings.load(StreamsAppConfig.DEF, List.of(args), System.getenv());
    StreamsAppConfig config = StreamsAppConfig.from(settings);
    Topics topics = Topics.withPrefix(config.getString(StreamsAppConfig.TOPIC_PREFIX));
    Properties p = StreamsProperties.of(config, topics);
    p.remove(StreamsConfig.APPLICATION_SERVER_CONFIG);
    // Its partitions unsynchronised, as fast as they come: the floor keeps nothing waiting in event
    // time, so the order it reads in costs it no memory, and it waits for no fetch (b567740 read it
    // in the app's order: a quarter to a third slower on the short backlogs).
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, -1L);
    KafkaStreams streams = new KafkaStreams(topology(topics, decode), p);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  streams.close();
                  stopped.countDown();
                },
                "floor-shutdown"));
    streams.start();
    stopped.await();
  }
}
