package io.schedlens.streams.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.PodIdentity;
import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.metrics.StreamsMetrics;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * The streams app's topology, as a pure factory: no I/O, every source, processor, store and sink
 * named (the names are pinned by a test, so that a refactoring cannot silently rename changelog
 * topics and lose state on upgrade).
 *
 * <pre>
 * resolve stage, keyed by namespace/name:
 *   gpu-samples, requests, internal.by-name -> resolve-names [pod-name-index (versioned), unresolved]
 *     -> internal.by-uid, dlq
 * timeline stage, keyed by pod UID:
 *   pods, k8s-events, internal.by-uid -> timeline [timelines, timeline-timers, finalized]
 *     -> internal.by-name (new pod names; victim links by name), internal.by-uid (links, answers),
 *        internal.by-workload, preemptions, dlq
 * workload stage, keyed by namespace/kind/name:
 *   internal.by-workload -> workload-rollup [workloads] -> pod-timelines
 * query stage:
 *   pod-timelines -> publish [published-timelines] (the API and the gauges read it)
 * </pre>
 *
 * The resolve and timeline stages feed each other through topics (a victim tells its preemptor,
 * which answers), so both internal topics and the inputs must have the same partition count.
 */
public final class TimelineTopology {

  public static final String NAME_INDEX_STORE = "pod-name-index";
  public static final String UNRESOLVED_STORE = "unresolved";
  public static final String TIMELINES_STORE = "timelines";
  public static final String TIMERS_STORE = "timeline-timers";
  public static final String FINALIZED_STORE = "finalized";
  public static final String WORKLOADS_STORE = "workloads";
  public static final String PUBLISHED_STORE = "published-timelines";

  static final String RESOLVED_SINK = "resolved-by-uid-sink";
  static final String RESOLVER_DLQ_SINK = "resolve-names-dlq-sink";
  static final String TIMELINE_BY_NAME_SINK = "timeline-by-name-sink";
  static final String TIMELINE_BY_UID_SINK = "timeline-by-uid-sink";
  static final String BY_WORKLOAD_SINK = "timeline-by-workload-sink";
  static final String PREEMPTIONS_SINK = "preemptions-sink";
  static final String TIMELINE_DLQ_SINK = "timeline-dlq-sink";

  private TimelineTopology() {}

  public static Topology build(Topics topics, TopologySettings settings, StreamsMetrics metrics) {
    Topology t = new Topology();
    StringDeserializer keys = new StringDeserializer();
    StringSerializer keyOut = new StringSerializer();

    // resolve stage
    t.addSource(
        "gpu-samples-source",
        keys,
        topics.gpuSamples.valueSerde().deserializer(),
        topics.gpuSamples.name());
    t.addSource(
        "requests-source",
        keys,
        topics.requests.valueSerde().deserializer(),
        topics.requests.name());
    t.addSource(
        "by-name-source", keys, topics.byName.valueSerde().deserializer(), topics.byName.name());
    t.addProcessor(
        "resolve-names",
        () ->
            new NameResolver(
                settings.timeline().grace(),
                settings.idleTimeout(),
                settings.partitions(),
                metrics),
        "gpu-samples-source",
        "requests-source",
        "by-name-source");
    t.addStateStore(
        Stores.versionedKeyValueStoreBuilder(
            Stores.persistentVersionedKeyValueStore(NAME_INDEX_STORE, settings.identityHistory()),
            Serdes.String(),
            AvroSerde.of(PodIdentity.class)),
        "resolve-names");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(UNRESOLVED_STORE),
            Serdes.String(),
            AvroSerde.of(RoutedInput.class)),
        "resolve-names");
    sinkBroadcastingWatermarks(t, RESOLVED_SINK, topics.byUid, keyOut, "resolve-names");
    sink(t, RESOLVER_DLQ_SINK, topics.deadLetters, keyOut, "resolve-names");

    // timeline stage
    t.addSource("pods-source", keys, topics.pods.valueSerde().deserializer(), topics.pods.name());
    t.addSource(
        "events-source", keys, topics.events.valueSerde().deserializer(), topics.events.name());
    t.addSource(
        "by-uid-source", keys, topics.byUid.valueSerde().deserializer(), topics.byUid.name());
    t.addProcessor(
        "timeline",
        () ->
            new TimelineProcessor(
                settings.timeline(),
                settings.emitInterval(),
                settings.orphanTimeout(),
                settings.partitions(),
                settings.idleTimeout(),
                metrics),
        "pods-source",
        "events-source",
        "by-uid-source");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(TIMELINES_STORE),
            Serdes.String(),
            AvroSerde.of(TimelineState.class)),
        "timeline");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(TIMERS_STORE), Serdes.String(), Serdes.String()),
        "timeline");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(FINALIZED_STORE), Serdes.String(), Serdes.Long()),
        "timeline");
    sinkBroadcastingWatermarks(t, TIMELINE_BY_NAME_SINK, topics.byName, keyOut, "timeline");
    sinkBroadcastingWatermarks(t, TIMELINE_BY_UID_SINK, topics.byUid, keyOut, "timeline");
    sink(t, BY_WORKLOAD_SINK, topics.byWorkload, keyOut, "timeline");
    sink(t, PREEMPTIONS_SINK, topics.preemptions, keyOut, "timeline");
    sink(t, TIMELINE_DLQ_SINK, topics.deadLetters, keyOut, "timeline");

    // workload stage
    t.addSource(
        "by-workload-source",
        keys,
        topics.byWorkload.valueSerde().deserializer(),
        topics.byWorkload.name());
    t.addProcessor(
        "workload-rollup",
        () -> new WorkloadRollup(settings.timeline().starvationPreemptions()),
        "by-workload-source");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(WORKLOADS_STORE),
            Serdes.String(),
            AvroSerde.of(WorkloadState.class)),
        "workload-rollup");
    sink(t, "pod-timelines-sink", topics.podTimelines, keyOut, "workload-rollup");

    // query stage
    t.addSource(
        "pod-timelines-source",
        keys,
        topics.podTimelines.valueSerde().deserializer(),
        topics.podTimelines.name());
    t.addProcessor(
        "publish", () -> new PublishedTimelines(settings.apiRetention()), "pod-timelines-source");
    Serde<PodTimeline> timelineSerde = AvroSerde.of(PodTimeline.class);
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(PUBLISHED_STORE), Serdes.String(), timelineSerde),
        "publish");
    return t;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void sinkBroadcastingWatermarks(
      Topology t, String name, Topic<String, ?> topic, StringSerializer keys, String parent) {
    t.addSink(
        name,
        topic.name(),
        keys,
        (org.apache.kafka.common.serialization.Serializer) topic.valueSerde().serializer(),
        new BroadcastWatermarks(),
        parent);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void sink(
      Topology t, String name, Topic<String, ?> topic, StringSerializer keys, String parent) {
    t.addSink(
        name,
        topic.name(),
        keys,
        (org.apache.kafka.common.serialization.Serializer) topic.valueSerde().serializer(),
        parent);
  }
}
