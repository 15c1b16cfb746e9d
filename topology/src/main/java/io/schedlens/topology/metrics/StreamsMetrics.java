package io.schedlens.topology.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.schedlens.common.metrics.ProcessMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The streams app's metrics for Grafana (docs/design.md section 5). Labels are bounded: namespace,
 * priority_class, workload_kind, arm and repeat (empty outside experiments; an experiment has a
 * handful of each), and for pipeline health the topic and the reason; never a pod name or UID.
 */
public final class StreamsMetrics {

  /** Label names of the per-pod figures. */
  public static final String[] POD_LABELS = {
    "namespace", "priority_class", "workload_kind", "arm", "repeat"
  };

  private static final double[] DURATION_BUCKETS = {
    0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 14400
  };

  public final PrometheusRegistry registry;

  public final Histogram pendingDuration;
  public final Histogram startupDuration;
  public final Histogram modelLoadDuration;
  public final Histogram timeToReady;
  public final Histogram timeToFirstOk;
  public final Counter preemptions;
  public final Counter allocatedGpuSeconds;
  public final Counter busyGpuSeconds;
  public final Counter idleGpuSeconds;
  public final Counter unsampledGpuSeconds;
  public final Counter gpuEquivalentSeconds;
  public final Counter gpuShareAssumed;
  public final Counter wastedGpuSeconds;
  public final Counter podsFinished;
  public final Counter workloadsFreed;
  public final Counter requests;
  public final Counter requestErrors;
  public final Counter sloBreaches;
  public final Counter recordsIn;
  public final Counter recordsOut;
  public final Counter deadLetters;
  public final Counter lateRecords;
  public final Histogram eventToMetricLag;

  /**
   * The per-topic data points of the two figures every input record touches, kept: {@code
   * labelValues} looks one up anew on each call (3 % of the stream thread in StreamsLoad fleet).
   */
  private final Map<String, CounterDataPoint> recordsInByTopic = new ConcurrentHashMap<>();

  private final Map<String, DistributionDataPoint> lagByTopic = new ConcurrentHashMap<>();
  public final Counter workloadInterruptionSeconds;
  public final Counter workloadDegradedSeconds;
  public final Histogram workloadRecovery;
  public final Counter gangWaitGpuSeconds;
  public final Histogram queueWait;
  public final Counter queueEvictions;

  /**
   * The labels of a pod's or workload's figures, their experiment values bounded ({@link
   * BoundedLabel}).
   */
  public PodLabels labels(
      String namespace, String priorityClass, String workloadKind, String arm, String repeat) {
    return new PodLabels(namespace, priorityClass, workloadKind, arms.of(arm), repeats.of(repeat));
  }

  /** Label names of the per-workload figures (no workload name: unbounded). */
  public static final String[] WORKLOAD_LABELS = {
    "namespace", "priority_class", "workload_kind", "arm", "repeat"
  };

  /** Values of {@code arm} kept by default, and of {@code repeat} ({@link BoundedLabel}). */
  public static final int DEFAULT_ARMS = 16;

  public static final int DEFAULT_REPEATS = 100;

  public final Counter labelOverflow;
  private final BoundedLabel arms;
  private final BoundedLabel repeats;

  public StreamsMetrics() {
    this(new PrometheusRegistry(), DEFAULT_ARMS, DEFAULT_REPEATS);
  }

  /**
   * @param maxArms values of the {@code arm} label kept, the rest reported as {@code _other}
   * @param maxRepeats values of the {@code repeat} label kept
   */
  public StreamsMetrics(PrometheusRegistry registry, int maxArms, int maxRepeats) {
    this.registry = registry;
    ProcessMetrics.register(registry);
    labelOverflow =
        Counter.builder()
            .name("schedlens_metric_label_overflow_total")
            .help(
                "Updates whose arm or repeat label value was past the values kept"
                    + " (metrics.arm.values.max, metrics.repeat.values.max) and reported as"
                    + " _other.")
            .labelNames("label")
            .register(registry);
    arms = new BoundedLabel("arm", maxArms, labelOverflow);
    repeats = new BoundedLabel("repeat", maxRepeats, labelOverflow);
    pendingDuration =
        duration(
            "schedlens_pending_duration_seconds",
            "Time from creation to scheduling (or to going away, for pods never scheduled).");
    startupDuration =
        duration(
            "schedlens_startup_duration_seconds",
            "Time from scheduling to the first container running (image pull, volumes, start).");
    modelLoadDuration =
        duration(
            "schedlens_model_load_duration_seconds",
            "Time from running to Ready (model loaded, for serving pods).");
    timeToReady = duration("schedlens_time_to_ready_seconds", "Time from creation to Ready.");
    timeToFirstOk =
        duration(
            "schedlens_time_to_first_ok_request_seconds",
            "Time from creation to the first successful request after Ready: what users feel.");
    preemptions =
        Counter.builder()
            .name("schedlens_preemptions_total")
            .help("Pods preempted by the scheduler, by victim and preemptor priority class.")
            .labelNames(
                "namespace", "victim_priority_class", "preemptor_priority_class", "arm", "repeat")
            .register(registry);
    allocatedGpuSeconds =
        podCounter(
            "schedlens_allocated_gpu_seconds_total",
            "GPU-seconds allocated to pods that finished.");
    busyGpuSeconds =
        podCounter(
            "schedlens_busy_gpu_seconds_total",
            "GPU-seconds busy (DCGM utilisation) of pods that finished.");
    idleGpuSeconds =
        podCounter(
            "schedlens_idle_allocated_gpu_seconds_total",
            "GPU-seconds allocated that DCGM samples saw idle, of pods that finished.");
    unsampledGpuSeconds =
        podCounter(
            "schedlens_unsampled_gpu_seconds_total",
            "GPU-seconds allocated that no DCGM sample covers (missing data, neither busy nor idle), of pods that finished.");
    gpuEquivalentSeconds =
        Counter.builder()
            .name("schedlens_gpu_equivalent_seconds_total")
            .help(
                "GPU-seconds allocated to pods that finished, in GPU-equivalents (devices x the"
                    + " part of a GPU each is x time), by the GPU resource they requested and"
                    + " whether other pods could hold the same GPU (time-slicing, MPS).")
            .labelNames("namespace", "resource", "shared")
            .register(registry);
    gpuShareAssumed =
        Counter.builder()
            .name("schedlens_gpu_share_assumed_total")
            .help(
                "Pods that finished on a shared GPU resource whose replicas per GPU were not"
                    + " known: counted as a whole GPU each (an upper bound).")
            .labelNames("namespace", "resource")
            .register(registry);
    wastedGpuSeconds =
        Counter.builder()
            .name("schedlens_wasted_gpu_seconds_total")
            .help(
                "GPU-seconds of work lost when a pod was ended before completing (since its last checkpoint), by cause.")
            .labelNames("namespace", "priority_class", "workload_kind", "arm", "repeat", "cause")
            .register(registry);
    podsFinished =
        Counter.builder()
            .name("schedlens_pods_finished_total")
            .help("Pods whose final timeline was emitted, by outcome.")
            .labelNames("namespace", "priority_class", "workload_kind", "arm", "repeat", "outcome")
            .register(registry);
    workloadsFreed =
        Counter.builder()
            .name("schedlens_workloads_freed_total")
            .help(
                "Workloads whose state was freed: deleted (or never observed) with every pod ended, an orphan timeout of event time before.")
            .register(registry);
    requests = podCounter("schedlens_requests_total", "Inference requests served by pods.");
    requestErrors =
        podCounter(
            "schedlens_request_errors_total", "Requests that failed: HTTP 5xx or no response.");
    sloBreaches =
        podCounter(
            "schedlens_slo_breaches_total",
            "Requests slower than the SLO of their service or priority class.");
    workloadInterruptionSeconds =
        Counter.builder()
            .name("schedlens_workload_interruption_seconds_total")
            .help(
                "Seconds of service interruption (no Ready replica while one is wanted) of"
                    + " workloads, counted when the interruption ends.")
            .labelNames(WORKLOAD_LABELS)
            .register(registry);
    workloadDegradedSeconds =
        Counter.builder()
            .name("schedlens_workload_degraded_seconds_total")
            .help(
                "Seconds workloads ran with some but fewer Ready replicas than wanted, counted"
                    + " when the interval ends.")
            .labelNames(WORKLOAD_LABELS)
            .register(registry);
    queueWait =
        Histogram.builder()
            .name("schedlens_queue_wait_seconds")
            .help(
                "Time a workload waited in a Kueue queue for each admission: from the Workload's"
                    + " creation or its re-queueing after an eviction to its Admitted transition.")
            .unit(Unit.SECONDS)
            .labelNames("namespace", "queue", "cluster_queue", "priority_class", "workload_kind")
            .classicUpperBounds(DURATION_BUCKETS)
            .classicOnly()
            .register(registry);
    queueEvictions =
        Counter.builder()
            .name("schedlens_queue_evictions_total")
            .help(
                "Workloads Kueue evicted, by cause (queue-preemption, queue-eviction), Kueue's"
                    + " reason (Preempted, PodsReadyTimeout, …) and, for a preemption, why"
                    + " (InClusterQueue, InCohortReclamation, …).")
            .labelNames("namespace", "queue", "cause", "reason", "preemption_reason")
            .register(registry);
    gangWaitGpuSeconds =
        Counter.builder()
            .name("schedlens_gang_wait_gpu_seconds_total")
            .help(
                "GPU-seconds a gang's running pods (JobSet, TrainJob, LeaderWorkerSet group,"
                    + " RayCluster, RayJob) held while another pod of the gang was pending:"
                    + " allocated and idle by construction, counted as the wait grows.")
            .labelNames(WORKLOAD_LABELS)
            .register(registry);
    workloadRecovery =
        Histogram.builder()
            .name("schedlens_workload_recovery_seconds")
            .help(
                "Time from a pod's disruption to its replacement's stage: scheduled, ready,"
                    + " first_ok (first successful request), by disruption cause.")
            .labelNames(
                "namespace", "priority_class", "workload_kind", "arm", "repeat", "cause", "stage")
            .classicUpperBounds(DURATION_BUCKETS)
            .classicOnly()
            .register(registry);
    recordsIn =
        Counter.builder()
            .name("schedlens_records_in_total")
            .help("Records read, by topic.")
            .labelNames("topic")
            .register(registry);
    recordsOut =
        Counter.builder()
            .name("schedlens_records_out_total")
            .help("Records written, by topic.")
            .labelNames("topic")
            .register(registry);
    deadLetters =
        Counter.builder()
            .name("schedlens_dead_letters_total")
            .help("Inputs that could not be used and went to the dead-letter topic, by reason.")
            .labelNames("reason")
            .register(registry);
    lateRecords =
        Counter.builder()
            .name("schedlens_late_records_total")
            .help(
                "Inputs not counted, by kind: gpu-sample and request (after the grace period),"
                    + " after-final, after-pod-removed, duplicate-request, duplicate-gpu-sample,"
                    + " gpu-no-utilisation.")
            .labelNames("kind")
            .register(registry);
    eventToMetricLag =
        Histogram.builder()
            .name("schedlens_event_to_metric_lag_seconds")
            .help("Wall-clock time from an input's event time to its processing, by topic.")
            .unit(Unit.SECONDS)
            .labelNames("topic")
            .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300)
            .classicOnly()
            .register(registry);
  }

  private Histogram duration(String name, String help) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .unit(Unit.SECONDS)
        .labelNames(POD_LABELS)
        .classicUpperBounds(DURATION_BUCKETS)
        .classicOnly()
        .register(registry);
  }

  private Counter podCounter(String name, String help) {
    return Counter.builder().name(name).help(help).labelNames(POD_LABELS).register(registry);
  }

  /** Registers the gauges read from the published timelines when scraped. */
  public void registerGauges(
      Consumer<GaugeWithCallback.Callback> pending,
      Consumer<GaugeWithCallback.Callback> oldestPending,
      Consumer<GaugeWithCallback.Callback> starving) {
    GaugeWithCallback.builder()
        .name("schedlens_pods_pending")
        .help("Pods pending now (created, not yet scheduled, not gone).")
        .labelNames(POD_LABELS)
        .callback(pending)
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_oldest_pending_age_seconds")
        .help("Age of the oldest pod pending now.")
        .unit(Unit.SECONDS)
        .labelNames(POD_LABELS)
        .callback(oldestPending)
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_pods_starving")
        .help(
            "Pods starving now: pending past the threshold, or of a workload preempted too often.")
        .labelNames(POD_LABELS)
        .callback(starving)
        .register(registry);
  }

  /** Registers the gauges of workloads interrupted or degraded now. */
  public void registerWorkloadGauges(
      Consumer<GaugeWithCallback.Callback> interrupted,
      Consumer<GaugeWithCallback.Callback> interruptionAge,
      Consumer<GaugeWithCallback.Callback> degraded) {
    GaugeWithCallback.builder()
        .name("schedlens_workloads_interrupted")
        .help("Workloads with no Ready replica now while they want one (since losing one).")
        .labelNames(WORKLOAD_LABELS)
        .callback(interrupted)
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_workload_interruption_age_seconds")
        .help("How long the longest service interruption going on now has lasted.")
        .unit(Unit.SECONDS)
        .labelNames(WORKLOAD_LABELS)
        .callback(interruptionAge)
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_workloads_degraded")
        .help("Workloads with some but fewer Ready replicas than wanted now (since losing one).")
        .labelNames(WORKLOAD_LABELS)
        .callback(degraded)
        .register(registry);
  }

  /** Registers the consumer lag per input topic, read from Kafka's client metrics when scraped. */
  public void registerConsumerLag(Consumer<GaugeWithCallback.Callback> lag) {
    GaugeWithCallback.builder()
        .name("schedlens_consumer_lag_records")
        .help("Records in this instance's input partitions not yet read, by topic.")
        .labelNames("topic")
        .callback(lag)
        .register(registry);
  }

  /** Counts a record read from {@code topic} ({@link #recordsIn}). */
  public void recordIn(String topic) {
    CounterDataPoint p = recordsInByTopic.get(topic);
    if (p == null) {
      p = recordsInByTopic.computeIfAbsent(topic, t -> recordsIn.labelValues(t));
    }
    p.inc();
  }

  /** Observes an input's event-to-metric lag, in seconds ({@link #eventToMetricLag}). */
  public void observeEventToMetricLag(String topic, double seconds) {
    DistributionDataPoint p = lagByTopic.get(topic);
    if (p == null) {
      p = lagByTopic.computeIfAbsent(topic, t -> eventToMetricLag.labelValues(t));
    }
    p.observe(seconds);
  }
}
