package io.schedlens.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.NodeState;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.SecondCount;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The streams app's topology, as a pure factory: no I/O, every source, processor, store and sink
 * named (the names are pinned by a test, so that a refactoring cannot silently rename changelog
 * topics and lose state on upgrade).
 *
 * <pre>
 * pod stage, one task per partition; every input about a pod is partitioned by its namespace/name:
 *   pods, k8s-events, gpu-samples, requests, internal.to-pod
 *     -> pods [pods-by-name, pod-series (live pods' closed series points), input-seconds,
 *              request-id-windows, request-ids (emptied at start: an earlier release's),
 *              pod-timers, pod-progress]
 *     -> pod-timelines, preemptions, dlq,
 *        internal.to-pod (a victim to its preemptor, the answer back),
 *        internal.by-workload (a pod's facts), internal.by-node (nominations, bindings, victims)
 * workload stage, keyed by namespace/kind/name:
 *   internal.by-workload, workloads (the objects)
 *     -> workloads [workloads, workload-pods, workload-seconds]
 *     -> internal.to-pod (workload status to its pods), workload-timelines, dlq
 * node stage, keyed by node:
 *   internal.by-node -> nodes [nodes, node-timers] -> internal.to-pod (an inferred preemptor)
 * query stage:
 *   pod-timelines -> publish [published-timelines] (the API and the gauges read it)
 *   workload-timelines -> publish-workloads [published-workloads] (the API reads it)
 * </pre>
 *
 * Every internal topic also carries the stages' watermarks to all its partitions ({@link
 * Watermarks}); inputs and internal topics must have the same partition count.
 */
public final class TimelineTopology {

  private TimelineTopology() {}

  /** Where the topology keeps its state. */
  public enum StoreKind {
    /**
     * RocksDB, each store logged to its changelog topic: the app's (state survives a restart and
     * moves with its task).
     */
    PERSISTENT,
    /**
     * On the heap, no changelog and no cache: a run in one process whose state is thrown away at
     * its end (a what-if). The same stores, keys, order and values; only where the bytes live
     * differs.
     */
    TRANSIENT
  }

  public static Topology build(Topics topics, TopologySettings settings, StreamsMetrics metrics) {
    return build(topics, settings, metrics, StoreKind.PERSISTENT);
  }

  public static Topology build(
      Topics topics, TopologySettings settings, StreamsMetrics metrics, StoreKind stores) {
    Topology t = new Topology();
    wire(new KafkaStreamsWiring(t), topics, settings, metrics, stores);
    return t;
  }

  /** How {@code pods-by-name} stores its values: compressed ({@link CompressedSerde}). */
  public static CompressedSerde<PodsOfName> podsSerde() {
    return CompressedSerde.of(AvroSerde.of(PodsOfName.class));
  }

  /** How {@code pod-series} stores its values: compressed ({@link CompressedSerde}). */
  public static CompressedSerde<ClosedPoints> closedPointsSerde() {
    return CompressedSerde.of(AvroSerde.of(ClosedPoints.class));
  }

  /**
   * Where the topology's parts go. {@link #build} hands them to a Kafka Streams {@link Topology}; a
   * run in one process (the what-if) takes them itself, so that both run the same stages on the
   * same stores, topics and serdes. The parts come in the order they are declared: each processor
   * after its sources, before its stores and sinks.
   */
  public interface Wiring {

    void source(String name, String topic, Deserializer<String> keys, Deserializer<?> values);

    <I, O> void processor(
        String name, ProcessorSupplier<String, I, String, O> processor, String... sources);

    void store(StoreBuilder<?> store, String processor);

    /** A sink partitioned by {@code partitioner}, or by key when it is null. */
    <V> void sink(
        String name,
        String topic,
        Serializer<String> keys,
        Serializer<V> values,
        StreamPartitioner<String, Object> partitioner,
        String parent);

    /**
     * A store kept from a topic by {@code processor}, for queries (the query stage): it writes
     * nothing.
     */
    <V> void published(
        String name,
        StoreBuilder<?> store,
        String source,
        String topic,
        Deserializer<String> keys,
        Deserializer<V> values,
        ProcessorSupplier<String, V, Void, Void> processor);
  }

  /** Every part of the topology, to {@code w}. */
  public static void wire(
      Wiring w,
      Topics topics,
      TopologySettings settings,
      StreamsMetrics metrics,
      StoreKind stores) {
    StoreFactory kept = new StoreFactory(stores);
    StringDeserializer keys = new StringDeserializer();
    StringSerializer keyOut = new StringSerializer();

    podStage(w, topics, settings, metrics, kept, keyOut);
    workloadStage(w, topics, settings, metrics, kept, keyOut);
    nodeStage(w, topics, settings, kept, keyOut);
    queryStage(w, topics, settings, kept, keys);
  }

  private static void podStage(
      Wiring w,
      Topics topics,
      TopologySettings settings,
      StreamsMetrics metrics,
      StoreFactory kept,
      StringSerializer keyOut) {
    Map<String, Deserializer<PodInput>> podReaders = PodInput.readers(topics);
    source(w, "pods-source", topics.pods, podReaders);
    source(w, "events-source", topics.events, podReaders);
    source(w, "gpu-samples-source", topics.gpuSamples, podReaders);
    source(w, "requests-source", topics.requests, podReaders);
    source(w, "to-pod-source", topics.toPod, podReaders);
    w.processor(
        "pods",
        () -> new PodStage(settings, metrics),
        "pods-source",
        "events-source",
        "gpu-samples-source",
        "requests-source",
        "to-pod-source");
    writeBackStore(w, kept, TopologyNames.PODS_BY_NAME_STORE, podsSerde(), "pods");
    // Not cached: written during the commit, by pods-by-name's write-back (PodSeriesStore).
    w.store(kept.builder(TopologyNames.POD_SERIES_STORE, closedPointsSerde()), "pods");
    writeBackStore(
        w, kept, TopologyNames.INPUT_SECONDS_STORE, AvroSerde.of(InputSecond.class), "pods");
    w.store(
        kept.windows(
            TopologyNames.REQUEST_ID_WINDOWS_STORE,
            RequestIdWindows.retention(settings.dedupWindow()),
            RequestIdWindows.WINDOW,
            RequestIdWindows.serde()),
        "pods");
    store(w, kept, TopologyNames.LEGACY_REQUEST_IDS_STORE, AvroSerde.of(InputSecond.class), "pods");
    store(w, kept, TopologyNames.POD_TIMERS_STORE, Serdes.String(), "pods");
    store(w, kept, TopologyNames.POD_PROGRESS_STORE, Serdes.Long(), "pods");
    sink(w, TopologyNames.PODS_TO_POD_SINK, topics.toPod, keyOut, new Broadcast(), "pods");
    sink(
        w,
        TopologyNames.PODS_TO_WORKLOAD_SINK,
        topics.byWorkload,
        keyOut,
        new Broadcast(ByWorkloadObject::partition),
        "pods");
    sink(w, TopologyNames.PODS_TO_NODE_SINK, topics.byNode, keyOut, new Broadcast(), "pods");
    sink(w, TopologyNames.POD_TIMELINES_SINK, topics.podTimelines, keyOut, null, "pods");
    sink(w, TopologyNames.PREEMPTIONS_SINK, topics.preemptions, keyOut, null, "pods");
    sink(w, TopologyNames.PODS_DLQ_SINK, topics.deadLetters, keyOut, null, "pods");
  }

  private static void workloadStage(
      Wiring w,
      Topics topics,
      TopologySettings settings,
      StreamsMetrics metrics,
      StoreFactory kept,
      StringSerializer keyOut) {
    Map<String, Deserializer<WorkloadInput>> workloadReaders = WorkloadInput.readers(topics);
    source(w, "by-workload-source", topics.byWorkload, workloadReaders);
    source(w, "workload-objects-source", topics.workloads, workloadReaders);
    w.processor(
        "workloads",
        () -> new WorkloadStage(settings, metrics),
        "by-workload-source",
        "workload-objects-source");
    writeBackStore(
        w, kept, TopologyNames.WORKLOADS_STORE, AvroSerde.of(WorkloadState.class), "workloads");
    store(
        w,
        kept,
        TopologyNames.WORKLOAD_PODS_STORE,
        AvroSerde.of(WorkloadMember.class),
        "workloads");
    store(
        w,
        kept,
        TopologyNames.WORKLOAD_SECONDS_STORE,
        AvroSerde.of(SecondCount.class),
        "workloads");
    sink(
        w, TopologyNames.WORKLOADS_TO_POD_SINK, topics.toPod, keyOut, new Broadcast(), "workloads");
    // Keyed by the workload's identity (a repeat's Job is another workload), partitioned by its
    // object's name: every identity of a name sits in one partition, where a lookup by name finds
    // them (and the records keyed by name alone, written before the key carried the identity).
    sink(
        w,
        TopologyNames.WORKLOAD_TIMELINES_SINK,
        topics.workloadTimelines,
        keyOut,
        new Broadcast(ByWorkloadObject::partition),
        "workloads");
    sink(w, TopologyNames.WORKLOADS_DLQ_SINK, topics.deadLetters, keyOut, null, "workloads");
  }

  private static void nodeStage(
      Wiring w,
      Topics topics,
      TopologySettings settings,
      StoreFactory kept,
      StringSerializer keyOut) {
    source(w, "by-node-source", topics.byNode, NodeInput.readers(topics));
    w.processor("nodes", () -> new NodeStage(settings), "by-node-source");
    writeBackStore(w, kept, TopologyNames.NODES_STORE, AvroSerde.of(NodeState.class), "nodes");
    store(w, kept, TopologyNames.NODE_TIMERS_STORE, Serdes.String(), "nodes");
    sink(w, TopologyNames.NODES_TO_POD_SINK, topics.toPod, keyOut, new Broadcast(), "nodes");
  }

  /**
   * The query stage: the published topic is the store's changelog (a read-only store), so keeping
   * it costs no second copy of every timeline.
   */
  private static void queryStage(
      Wiring w,
      Topics topics,
      TopologySettings settings,
      StoreFactory kept,
      StringDeserializer keys) {
    w.published(
        "publish",
        kept.builder(TopologyNames.PUBLISHED_STORE, AvroSerde.of(PodTimeline.class))
            .withLoggingDisabled(),
        "pod-timelines-source",
        topics.podTimelines.name(),
        keys,
        topics.podTimelines.valueSerde().deserializer(),
        () -> Published.timelines(settings.apiRetention()));
    w.published(
        "publish-workloads",
        kept.builder(TopologyNames.PUBLISHED_WORKLOADS_STORE, AvroSerde.of(WorkloadTimeline.class))
            .withLoggingDisabled(),
        "workload-timelines-source",
        topics.workloadTimelines.name(),
        keys,
        topics.workloadTimelines.valueSerde().deserializer(),
        () -> Published.workloads(settings.apiRetention()));
  }

  /** A topic a stage reads, each record read into the stage's input type. */
  private static <I> void source(
      Wiring w, String name, Topic<String, ?> topic, Map<String, Deserializer<I>> readers) {
    w.source(name, topic.name(), new StringDeserializer(), readers.get(topic.name()));
  }

  /** Builds a stage's stores as {@link StoreKind} says. */
  private record StoreFactory(StoreKind kind) {

    <V> StoreBuilder<KeyValueStore<String, V>> builder(String name, Serde<V> values) {
      StoreBuilder<KeyValueStore<String, V>> b =
          Stores.keyValueStoreBuilder(
              kind == StoreKind.PERSISTENT
                  ? Stores.persistentKeyValueStore(name)
                  : Stores.inMemoryKeyValueStore(name),
              Serdes.String(),
              values);
      return kind == StoreKind.PERSISTENT ? b : b.withLoggingDisabled();
    }

    /**
     * Windows of {@code size} kept for {@code retention} after the latest written: whole segments
     * expire, nothing is deleted key by key. Written once per key and window, so not cached.
     */
    <V> StoreBuilder<WindowStore<String, V>> windows(
        String name, Duration retention, Duration size, Serde<V> values) {
      StoreBuilder<WindowStore<String, V>> b =
          Stores.windowStoreBuilder(
              kind == StoreKind.PERSISTENT
                  ? Stores.persistentWindowStore(name, retention, size, false)
                  : Stores.inMemoryWindowStore(name, retention, size, false),
              Serdes.String(),
              values);
      return kind == StoreKind.PERSISTENT ? b : b.withLoggingDisabled();
    }

    /** Kafka Streams' cache in front of a store that is written between commits. */
    <T extends StateStore> StoreBuilder<T> cached(StoreBuilder<T> b) {
      return kind == StoreKind.PERSISTENT ? b.withCachingEnabled() : b.withCachingDisabled();
    }
  }

  private static <V> void store(
      Wiring w, StoreFactory kept, String name, Serde<V> values, String processor) {
    w.store(kept.cached(kept.builder(name, values)), processor);
  }

  /**
   * A store whose values are rewritten many times between commits (a pod's state and its open
   * second, a workload's, a node's): serialized once per commit, not once per change ({@link
   * WriteBackStore}).
   */
  private static <V> void writeBackStore(
      Wiring w, StoreFactory kept, String name, Serde<V> values, String processor) {
    w.store(WriteBackStore.builder(kept.cached(kept.builder(name, values))), processor);
  }

  private static void sink(
      Wiring w,
      String name,
      Topic<String, ?> topic,
      StringSerializer keys,
      StreamPartitioner<String, Object> partitioner,
      String parent) {
    w.sink(name, topic.name(), keys, topic.valueSerde().serializer(), partitioner, parent);
  }

  /** The parts, into a Kafka Streams topology. */
  private record KafkaStreamsWiring(Topology t) implements Wiring {

    @Override
    public void source(
        String name, String topic, Deserializer<String> keys, Deserializer<?> values) {
      t.addSource(name, keys, values, topic);
    }

    @Override
    public <I, O> void processor(
        String name, ProcessorSupplier<String, I, String, O> processor, String... sources) {
      t.addProcessor(name, processor, sources);
    }

    @Override
    public void store(StoreBuilder<?> store, String processor) {
      t.addStateStore(store, processor);
    }

    @Override
    public <V> void sink(
        String name,
        String topic,
        Serializer<String> keys,
        Serializer<V> values,
        StreamPartitioner<String, Object> partitioner,
        String parent) {
      if (partitioner == null) {
        t.addSink(name, topic, keys, values, parent);
      } else {
        t.addSink(name, topic, keys, values, partitioner, parent);
      }
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
      t.addReadOnlyStateStore(store, source, keys, values, topic, name, processor);
    }
  }
}
