package io.schedlens.streams.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.PodIdentity;
import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.metrics.StreamsMetrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
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
 *     -> pod-timelines, preemptions, dlq,
 *        internal.by-name (new pod names; victim links by name), internal.by-uid (links, answers),
 *        internal.by-workload (pod facts: member, preempted, succeeded, final)
 * workload stage, keyed by namespace/kind/name:
 *   internal.by-workload (pod facts, request errors and breaches), workloads (the objects)
 *     -> workloads [workloads]
 *     -> internal.by-uid (workload status to its pods), workload-timelines
 * query stage:
 *   pod-timelines -> publish [published-timelines] (the API and the gauges read it)
 *   workload-timelines -> publish-workloads [published-workloads] (the API reads it)
 * </pre>
 *
 * The stages feed each other through topics (a victim tells its preemptor, which answers; a pod
 * tells its workload, which answers), so the internal topics and the inputs must have the same
 * partition count; watermarks (see {@link Watermarks}) keep final timelines from going out before
 * the answers are in.
 */
public final class TimelineTopology {

  public static final String NAME_INDEX_STORE = "pod-name-index";
  public static final String UNRESOLVED_STORE = "unresolved";
  public static final String UNRESOLVED_BY_TIME_STORE = "unresolved-by-time";
  public static final String TIMELINES_STORE = "timelines";
  public static final String TIMERS_STORE = "timeline-timers";
  public static final String FINALIZED_STORE = "finalized";
  public static final String WORKLOADS_STORE = "workloads";
  public static final String PUBLISHED_STORE = "published-timelines";
  public static final String PUBLISHED_WORKLOADS_STORE = "published-workloads";

  static final String RESOLVED_SINK = "resolved-by-uid-sink";
  static final String RESOLVER_DLQ_SINK = "resolve-names-dlq-sink";
  static final String TIMELINE_BY_NAME_SINK = "timeline-by-name-sink";
  static final String TIMELINE_BY_UID_SINK = "timeline-by-uid-sink";
  static final String BY_WORKLOAD_SINK = "timeline-by-workload-sink";
  static final String PREEMPTIONS_SINK = "preemptions-sink";
  static final String POD_TIMELINES_SINK = "pod-timelines-sink";
  static final String WORKLOAD_BY_UID_SINK = "workload-by-uid-sink";
  static final String WORKLOAD_TIMELINES_SINK = "workload-timelines-sink";
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
                AvroSerde.of(RoutedInput.class))
            .withCachingEnabled(),
        "resolve-names");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(UNRESOLVED_BY_TIME_STORE),
            Serdes.String(),
            Serdes.String()),
        "resolve-names");
    sink(t, RESOLVED_SINK, topics.byUid, keyOut, new BroadcastWatermarks(), "resolve-names");
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
                AvroSerde.of(TimelineState.class))
            .withCachingEnabled(),
        "timeline");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(TIMERS_STORE), Serdes.String(), Serdes.String())
            .withCachingEnabled(),
        "timeline");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(FINALIZED_STORE), Serdes.String(), Serdes.Long())
            .withCachingEnabled(),
        "timeline");
    sink(t, TIMELINE_BY_NAME_SINK, topics.byName, keyOut, new BroadcastWatermarks(), "timeline");
    sink(t, TIMELINE_BY_UID_SINK, topics.byUid, keyOut, new BroadcastWatermarks(), "timeline");
    sink(t, BY_WORKLOAD_SINK, topics.byWorkload, keyOut, new ByWorkloadObject(), "timeline");
    sink(t, PREEMPTIONS_SINK, topics.preemptions, keyOut, "timeline");
    sink(t, TIMELINE_DLQ_SINK, topics.deadLetters, keyOut, "timeline");

    sink(t, POD_TIMELINES_SINK, topics.podTimelines, keyOut, "timeline");

    // workload stage
    t.addSource(
        "by-workload-source",
        keys,
        topics.byWorkload.valueSerde().deserializer(),
        topics.byWorkload.name());
    t.addSource(
        "workload-objects-source",
        keys,
        topics.workloads.valueSerde().deserializer(),
        topics.workloads.name());
    t.addProcessor(
        "workloads",
        () -> new WorkloadProcessor(settings.idleTimeout(), settings.emitInterval(), metrics),
        "by-workload-source",
        "workload-objects-source");
    t.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(WORKLOADS_STORE),
                Serdes.String(),
                AvroSerde.of(WorkloadState.class))
            .withCachingEnabled(),
        "workloads");
    sink(t, WORKLOAD_BY_UID_SINK, topics.byUid, keyOut, new BroadcastWatermarks(), "workloads");
    sink(t, WORKLOAD_TIMELINES_SINK, topics.workloadTimelines, keyOut, "workloads");

    // query stage: the published topic is the store's changelog (a read-only store), so keeping
    // it costs no second copy of every timeline.
    t.addReadOnlyStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(PUBLISHED_STORE),
                Serdes.String(),
                AvroSerde.of(PodTimeline.class))
            .withLoggingDisabled(),
        "pod-timelines-source",
        keys,
        topics.podTimelines.valueSerde().deserializer(),
        topics.podTimelines.name(),
        "publish",
        () -> new PublishedTimelines(settings.apiRetention()));
    t.addReadOnlyStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(PUBLISHED_WORKLOADS_STORE),
                Serdes.String(),
                AvroSerde.of(WorkloadTimeline.class))
            .withLoggingDisabled(),
        "workload-timelines-source",
        keys,
        topics.workloadTimelines.valueSerde().deserializer(),
        topics.workloadTimelines.name(),
        "publish-workloads",
        PublishedWorkloads::new);
    return t;
  }

  /** A sink partitioned by {@code partitioner} (watermarks to every partition; by object). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void sink(
      Topology t,
      String name,
      Topic<String, ?> topic,
      StringSerializer keys,
      StreamPartitioner<String, Object> partitioner,
      String parent) {
    t.addSink(
        name,
        topic.name(),
        keys,
        (org.apache.kafka.common.serialization.Serializer) topic.valueSerde().serializer(),
        partitioner,
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
