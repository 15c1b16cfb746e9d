package io.schedlens.collector;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.schedlens.common.metrics.ProcessMetrics;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The collector's own metrics, served on its {@code /metrics}. Labels are bounded: topic, source,
 * reason, HTTP status code, resource kind, and the scrape target (one per GPU node).
 */
public final class CollectorMetrics {

  public final PrometheusRegistry registry;

  public final Counter recordsProduced;
  public final Counter recordsFailed;
  public final Counter recordsRetried;
  public final Counter sendWaits;
  public final Counter deadLetters;
  public final Counter bufferOverflows;
  public final Counter kubernetesChanges;
  public final Counter kubernetesUnchanged;
  public final Counter relists;
  public final Counter eventsIgnored;
  public final Gauge informerSynced;
  public final Gauge ownerKindsWatched;
  public final Gauge queueWorkloadsWatched;
  public final Counter ownerReads;
  public final Gauge kafkaUp;
  public final Gauge scrapeUp;
  public final Gauge scrapeDuration;
  public final Counter scrapes;
  public final Counter gpuSamples;
  public final Counter dcgmValuesNotUsed;
  public final Counter intakeRequests;
  public final Counter intakeLines;
  public final Histogram intakeRequestDuration;

  public CollectorMetrics() {
    this(new PrometheusRegistry());
  }

  public CollectorMetrics(PrometheusRegistry registry) {
    this.registry = registry;
    ProcessMetrics.register(registry);
    recordsProduced =
        Counter.builder()
            .name("schedlens_collector_records_produced_total")
            .help("Records acknowledged by Kafka, by topic.")
            .labelNames("topic")
            .register(registry);
    recordsFailed =
        Counter.builder()
            .name("schedlens_collector_records_failed_total")
            .help("Records Kafka refused for good (not retriable), by topic and error.")
            .labelNames("topic", "reason")
            .register(registry);
    recordsRetried =
        Counter.builder()
            .name("schedlens_collector_records_retried_total")
            .help(
                "Records Kafka did not take yet (retriable error) and that were queued again, by topic.")
            .labelNames("topic")
            .register(registry);
    sendWaits =
        Counter.builder()
            .name("schedlens_collector_send_waits_total")
            .help(
                "Times the send pump waited in vain for a topic's partitions (the topic missing, not"
                    + " visible to this user, or Kafka away) and kept the record to try again, by topic.")
            .labelNames("topic")
            .register(registry);
    deadLetters =
        Counter.builder()
            .name("schedlens_collector_dead_letters_total")
            .help(
                "Inputs that could not be used and went to the dead-letter topic, by source and reason.")
            .labelNames("source", "reason")
            .register(registry);
    bufferOverflows =
        Counter.builder()
            .name("schedlens_collector_buffer_overflows_total")
            .help(
                "Records that found the send buffer full, by source. Kubernetes sources relist once Kafka is back; the intake answers 503.")
            .labelNames("source")
            .register(registry);
    kubernetesChanges =
        Counter.builder()
            .name("schedlens_collector_kubernetes_records_total")
            .help("Kubernetes object changes sent, by resource and change type.")
            .labelNames("resource", "change")
            .register(registry);
    kubernetesUnchanged =
        Counter.builder()
            .name("schedlens_collector_kubernetes_unchanged_total")
            .help(
                "Kubernetes updates not sent because nothing schedlens records changed, by resource.")
            .labelNames("resource")
            .register(registry);
    relists =
        Counter.builder()
            .name("schedlens_collector_relists_total")
            .help("Times current state was re-sent, by resource and reason (start, overflow).")
            .labelNames("resource", "reason")
            .register(registry);
    eventsIgnored =
        Counter.builder()
            .name("schedlens_collector_events_ignored_total")
            .help("Kubernetes Events not about a Pod, which no pod timeline uses.")
            .register(registry);
    informerSynced =
        Gauge.builder()
            .name("schedlens_collector_informer_synced")
            .help("1 when the informer has listed its resource and is watching.")
            .labelNames("resource")
            .register(registry);
    ownerKindsWatched =
        Gauge.builder()
            .name("schedlens_collector_owner_kinds_watched")
            .help(
                "Owner kinds (owners.kinds) the cluster serves and the collector may list: the kinds pods' controller chains are followed through.")
            .register(registry);
    queueWorkloadsWatched =
        Gauge.builder()
            .name("schedlens_collector_kueue_workloads_watched")
            .help(
                "1 while Kueue's Workloads are watched (the cluster serves workloads.kueue.x-k8s.io and the collector may list them), else 0.")
            .register(registry);
    ownerReads =
        Counter.builder()
            .name("schedlens_collector_owner_reads_total")
            .help(
                "Owners read one by one because a pod named them before their kind's watch told of them, by outcome (found, gone, failed). Rises at start and in bursts; a steady rise means a watch is not keeping up.")
            .labelNames("outcome")
            .register(registry);
    kafkaUp =
        Gauge.builder()
            .name("schedlens_collector_kafka_up")
            .help("1 when the last probe reached the Kafka cluster.")
            .register(registry);
    scrapeUp =
        Gauge.builder()
            .name("schedlens_collector_scrape_up")
            .help("1 when the last scrape of the dcgm-exporter target succeeded.")
            .labelNames("target")
            .register(registry);
    scrapeDuration =
        Gauge.builder()
            .name("schedlens_collector_scrape_duration_seconds")
            .help("Duration of the last scrape of the target.")
            .unit(Unit.SECONDS)
            .labelNames("target")
            .register(registry);
    scrapes =
        Counter.builder()
            .name("schedlens_collector_scrapes_total")
            .help(
                "Scrapes by target and result (ok, timeout, http-error, parse-error, io-error, skipped-backpressure).")
            .labelNames("target", "result")
            .register(registry);
    gpuSamples =
        Counter.builder()
            .name("schedlens_collector_gpu_samples_total")
            .help("GPU samples (one per GPU or MIG instance per scrape) sent.")
            .register(registry);
    dcgmValuesNotUsed =
        Counter.builder()
            .name("schedlens_collector_dcgm_values_not_used_total")
            .help("DCGM values not used, by reason (dcgm-sentinel, nan, not-dcgm).")
            .labelNames("reason")
            .register(registry);
    intakeRequests =
        Counter.builder()
            .name("schedlens_collector_intake_requests_total")
            .help("Request-log intake HTTP requests by status code.")
            .labelNames("code")
            .register(registry);
    intakeLines =
        Counter.builder()
            .name("schedlens_collector_intake_lines_total")
            .help("Request-log lines by result (accepted, rejected).")
            .labelNames("result")
            .register(registry);
    intakeRequestDuration =
        Histogram.builder()
            .name("schedlens_collector_intake_request_duration_seconds")
            .help("Time to take one intake request, including Kafka's acknowledgement.")
            .unit(Unit.SECONDS)
            .register(registry);
  }

  /** The results a scrape is counted under. */
  public static final List<String> SCRAPE_RESULTS =
      List.of(
          "ok",
          "timeout",
          "http-error",
          "too-large",
          "parse-error",
          "io-error",
          "skipped-backpressure");

  /** Drops a scrape target's series: discovery no longer names it. */
  public void forgetScrapeTarget(String target) {
    scrapeUp.remove(target);
    scrapeDuration.remove(target);
    for (String result : SCRAPE_RESULTS) {
      scrapes.remove(target, result);
    }
  }

  /** Registers the send buffer's fill and capacity, read when scraped. */
  public void bufferByteGauges(LongSupplier bytes, long capacity) {
    GaugeWithCallback.builder()
        .name("schedlens_collector_buffer_bytes")
        .help("Bytes waiting in the send buffer (keys, values and a per-record overhead).")
        .callback(cb -> cb.call(bytes.getAsLong()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_collector_buffer_capacity_bytes")
        .help("Capacity of the send buffer in bytes.")
        .callback(cb -> cb.call(capacity == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : capacity))
        .register(registry);
  }

  public void bufferGauges(DoubleSupplier records, double capacity) {
    GaugeWithCallback.builder()
        .name("schedlens_collector_buffer_records")
        .help("Records waiting in the send buffer.")
        .callback(cb -> cb.call(records.getAsDouble()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_collector_buffer_capacity_records")
        .help("Capacity of the send buffer.")
        .callback(cb -> cb.call(capacity))
        .register(registry);
  }

  /**
   * The dcgm-exporter targets the collector scrapes now (static and discovered), and the pods it
   * sees running with a GPU request: zero targets while GPU pods run means every GPU figure will be
   * "unsampled" (the alert SchedlensDcgmNoTargets).
   */
  public void dcgmGauges(IntSupplier targets, Supplier<OptionalInt> gpuPodsRunning) {
    GaugeWithCallback.builder()
        .name("schedlens_collector_dcgm_targets")
        .help("dcgm-exporter targets scraped now, static and discovered.")
        .callback(cb -> cb.call(targets.getAsInt()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("schedlens_collector_gpu_pods_running")
        .help(
            "Pods in phase Running with an nvidia.com/gpu request, as the pod informers see them"
                + " (absent until they have synced).")
        .callback(
            cb -> {
              OptionalInt n = gpuPodsRunning.get();
              if (n.isPresent()) {
                cb.call(n.getAsInt());
              }
            })
        .register(registry);
  }
}
