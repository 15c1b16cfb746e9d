package io.schedlens.schemas;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.StageMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Every topic of docs/design.md section 3, inputs and outputs and the dead-letter queue side by
 * side. Keys are strings: a pod UID, {@code namespace/pod}, or the dead letter's source.
 *
 * <p>The four inputs about pods ({@link #pods}, {@link #events}, {@link #gpuSamples}, {@link
 * #requests}) are partitioned alike, by the pod's {@code namespace/name} ({@link PodName}),
 * whatever their key: observations and events keep the pod UID as their key, but go to the
 * partition of the pod's name, so that one task sees a name's incarnations and everything that
 * names them. Every partition of every input topic also carries its producer's {@link ProgressMarks
 * progress marks}. Records of the input topics, which others write, are read within {@link
 * AvroLimits} ({@link AvroSerde#asInput}).
 */
public final class Topics {

  /** Default topic name prefix. */
  public static final String DEFAULT_PREFIX = "schedlens.";

  private static final String WEEK = Long.toString(Duration.ofDays(7).toMillis());
  private static final String TWO_WEEKS = Long.toString(Duration.ofDays(14).toMillis());

  public final Topic<String, PodObservation> pods;

  /** Workload objects, keyed namespace/kind/name; joined with the pods' facts by workload. */
  public final Topic<String, WorkloadObservation> workloads;

  public final Topic<String, ClusterEvent> events;

  /** Experiment ConfigMaps, keyed namespace/name; read by the report, not the streams app. */
  public final Topic<String, ExperimentConfig> experiments;

  public final Topic<String, GpuSample> gpuSamples;
  public final Topic<String, RequestLog> requests;
  public final Topic<String, PodTimeline> podTimelines;
  public final Topic<String, WorkloadTimeline> workloadTimelines;
  public final Topic<String, Preemption> preemptions;
  public final Topic<String, DeadLetter> deadLetters;

  /**
   * The streams app's own topics between its stages: messages to a pod (keyed and partitioned by
   * its {@code namespace/name}, like every input about it), pod facts for workloads (partitioned by
   * {@code namespace/kind/name}) and for nodes (by node name); each also carries the stages'
   * watermarks to every partition. Internal, but created with the others: the stages feed each
   * other in a cycle (a victim tells its preemptor, which answers; a pod tells its workload, which
   * answers), which Kafka Streams' generated repartition topics cannot express. All must have as
   * many partitions as the input topics.
   */
  public final Topic<String, StageMessage> toPod;

  public final Topic<String, StageMessage> byWorkload;
  public final Topic<String, StageMessage> byNode;

  private Topics(String prefix) {
    // Inputs keep their history (delete + retention) so that the streams app can be reset and
    // reprocess; outputs keyed by pod UID are compacted so the latest timeline per pod survives.
    Map<String, String> history =
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG,
            WEEK);
    Map<String, String> latestPerKey =
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
            Long.toString(Duration.ofMinutes(10).toMillis()));
    this.pods =
        new Topic<>(
            prefix + "pods",
            Serdes.String(),
            AvroSerde.of(PodObservation.class).asInput(),
            history);
    this.workloads =
        new Topic<>(
            prefix + "workloads",
            Serdes.String(),
            AvroSerde.of(WorkloadObservation.class).asInput(),
            history);
    this.events =
        new Topic<>(
            prefix + "k8s-events",
            Serdes.String(),
            AvroSerde.of(ClusterEvent.class).asInput(),
            history);
    this.experiments =
        new Topic<>(
            prefix + "experiments",
            Serdes.String(),
            AvroSerde.of(ExperimentConfig.class).asInput(),
            latestPerKey);
    this.gpuSamples =
        new Topic<>(
            prefix + "gpu-samples",
            Serdes.String(),
            AvroSerde.of(GpuSample.class).asInput(),
            history);
    this.requests =
        new Topic<>(
            prefix + "requests",
            Serdes.String(),
            AvroSerde.of(RequestLog.class).asInput(),
            history);
    this.podTimelines =
        new Topic<>(
            prefix + "pod-timelines",
            Serdes.String(),
            AvroSerde.of(PodTimeline.class),
            latestPerKey);
    this.workloadTimelines =
        new Topic<>(
            prefix + "workload-timelines",
            Serdes.String(),
            AvroSerde.of(WorkloadTimeline.class),
            latestPerKey);
    this.preemptions =
        new Topic<>(
            prefix + "preemptions", Serdes.String(), AvroSerde.of(Preemption.class), latestPerKey);
    this.deadLetters =
        new Topic<>(
            prefix + "dlq",
            Serdes.String(),
            AvroSerde.of(DeadLetter.class),
            Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG,
                TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG,
                TWO_WEEKS));
    Map<String, String> internal =
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG,
            Long.toString(Duration.ofDays(1).toMillis()));
    this.toPod =
        new Topic<>(
            prefix + "internal.to-pod",
            Serdes.String(),
            AvroSerde.of(StageMessage.class),
            internal);
    this.byWorkload =
        new Topic<>(
            prefix + "internal.by-workload",
            Serdes.String(),
            AvroSerde.of(StageMessage.class),
            internal);
    this.byNode =
        new Topic<>(
            prefix + "internal.by-node",
            Serdes.String(),
            AvroSerde.of(StageMessage.class),
            internal);
  }

  /** The topics with the default {@code schedlens.} prefix. */
  public static Topics defaults() {
    return new Topics(DEFAULT_PREFIX);
  }

  /** The topics with another name prefix, e.g. for several installations on one cluster. */
  public static Topics withPrefix(String prefix) {
    return new Topics(prefix);
  }

  /** All topics: those of docs/design.md section 3, then the streams app's internal ones. */
  public List<Topic<String, ?>> all() {
    return List.of(
        pods,
        workloads,
        events,
        experiments,
        gpuSamples,
        requests,
        podTimelines,
        workloadTimelines,
        preemptions,
        deadLetters,
        toPod,
        byWorkload,
        byNode);
  }

  /** Admin requests creating every topic with its settings. */
  public List<NewTopic> newTopics(int partitions, short replicationFactor) {
    return all().stream().map(t -> t.newTopic(partitions, replicationFactor)).toList();
  }
}
