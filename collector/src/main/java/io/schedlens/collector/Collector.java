package io.schedlens.collector;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.schedlens.avro.PodObservation;
import io.schedlens.collector.dcgm.DcgmScraper;
import io.schedlens.collector.dcgm.EndpointSliceTargets;
import io.schedlens.collector.dcgm.ScrapeTarget;
import io.schedlens.collector.intake.RequestLogIntake;
import io.schedlens.collector.intake.RequestMarkHold;
import io.schedlens.collector.k8s.EventSource;
import io.schedlens.collector.k8s.ExperimentSource;
import io.schedlens.collector.k8s.NodeSource;
import io.schedlens.collector.k8s.OwnerKind;
import io.schedlens.collector.k8s.OwnerSource;
import io.schedlens.collector.k8s.PodSource;
import io.schedlens.collector.k8s.QueueWorkloadSource;
import io.schedlens.collector.k8s.ReportedPods;
import io.schedlens.collector.k8s.WorkloadSource;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.collector.kafka.MarkLimit;
import io.schedlens.collector.kafka.ProgressMarker;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.HttpEndpoint.Readiness;
import io.schedlens.common.http.HttpSettings;
import io.schedlens.common.http.ServerTls;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.common.threads.WorkerThreads;
import io.schedlens.projections.k8s.OwnerChain;
import io.schedlens.projections.k8s.WorkloadProjection;
import io.schedlens.projections.records.Records;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.schemas.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collector: Kubernetes informers, the dcgm-exporter scraper and the request-log intake, all
 * feeding one {@link KafkaSink}; plus {@code /metrics}, {@code /healthz} and {@code /readyz}. Ready
 * once every informer has synced and Kafka is reachable.
 */
public final class Collector implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Collector.class);

  /** How long the pods' list waits for the owner kinds' lists at start. */
  static final Duration OWNERS_LIST_WAIT = Duration.ofSeconds(60);

  private final CollectorConfig config;
  private final Clock clock;
  private final CollectorMetrics metrics = new CollectorMetrics();

  /** Closed in reverse order; the Kubernetes sources may join from the start thread. */
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

  private KafkaSink sink;
  private volatile PodSource pods;
  private volatile EventSource events;
  private volatile WorkloadSource workloads;
  private volatile QueueWorkloadSource queues;

  /** Set while the Kubernetes sources wait for the read-back (Kafka away at start). */
  private volatile String starting;

  private volatile boolean closed;
  private Thread starter;
  private HttpEndpoint http;
  private KubernetesClient ownClient;

  private Collector(CollectorConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  /**
   * Starts the collector.
   *
   * @param client the Kubernetes client to use, or null to build one from the configuration
   * @param clock the clock of read times and scrape times (the simulator's in the demo)
   */
  public static Collector start(CollectorConfig config, KubernetesClient client, Clock clock) {
    Collector c = new Collector(config, clock);
    try {
      c.startParts(client);
      return c;
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Starts the parts in order: the Kafka sink, the Kubernetes sources, the DCGM scraper, the
   * progress marks, the HTTP endpoint with the intake; the read-back (when on) starts last, on a
   * thread of its own.
   */
  private void startParts(KubernetesClient givenClient) {
    Topics topics = Topics.withPrefix(config.getString(CollectorConfig.TOPIC_PREFIX));
    Records records = new Records(topics, config.getInt(CollectorConfig.DLQ_MAX_BYTES));
    sink =
        new KafkaSink(
            config.kafkaClientSettings(),
            config.getInt(CollectorConfig.BUFFER_RECORDS),
            config.getLong(CollectorConfig.BUFFER_BYTES),
            metrics);
    resources.add(sink);
    RequestMarkHold requestMarks =
        new RequestMarkHold(
            clock,
            config.getDuration(CollectorConfig.PROGRESS_ALLOWANCE),
            config.getDuration(CollectorConfig.INTAKE_RESEND_WINDOW));
    KubernetesClient client = null;
    if (config.getBoolean(CollectorConfig.KUBERNETES_ENABLED)) {
      client = givenClient != null ? givenClient : buildClient();
      startKubernetes(client, topics, records);
    }
    startScraper(client, records);
    resources.add(
        new ProgressMarker(
            sink,
            records,
            clock,
            config.getDuration(CollectorConfig.PROGRESS_INTERVAL),
            config.getDuration(CollectorConfig.PROGRESS_ALLOWANCE),
            marked(topics, requestMarks)));
    startHttp(records, requestMarks);
    if (starter != null) {
      starter.start();
    }
    log.info(
        "collector started: metrics and intake on {}, Kafka {}, Kubernetes {}",
        http.baseUrl(),
        config.bootstrapServers(),
        client == null ? "off" : client.getMasterUrl());
  }

  /**
   * When each topic may be marked. A Kubernetes topic is marked once its informers synced and while
   * none of its records wait for a relist; never when this collector does not watch it (another one
   * does, or nobody). The request topic's marks stay behind lines the intake refused or held up
   * ({@link RequestMarkHold}).
   */
  private Map<String, MarkLimit> marked(Topics topics, RequestMarkHold requestMarks) {
    Map<String, MarkLimit> marked = new HashMap<>();
    marked.put(
        topics.pods.name(),
        () ->
            pods != null && pods.hasSynced() && !sink.awaitingResend(Records.PODS)
                ? MarkLimit.UNLIMITED
                : MarkLimit.NONE);
    marked.put(
        topics.events.name(),
        () ->
            events != null && events.hasSynced() && !sink.awaitingResend(Records.EVENTS)
                ? MarkLimit.UNLIMITED
                : MarkLimit.NONE);
    marked.put(
        topics.workloads.name(),
        () ->
            (workloads != null || queues != null)
                    && (workloads == null || workloads.hasSynced())
                    && (queues == null || queues.hasSynced())
                ? MarkLimit.UNLIMITED
                : MarkLimit.NONE);
    marked.put(topics.requests.name(), requestMarks);
    return marked;
  }

  /** The Kubernetes sources, after the read-back when it is on. */
  private void startKubernetes(KubernetesClient k8s, Topics topics, Records records) {
    if (config.getBoolean(CollectorConfig.READBACK)) {
      // The read-back needs Kafka; the endpoint and probes must not wait for it (a start with
      // Kafka away is a process that is alive and not ready, never a crash loop).
      starting = "reading back the pods reported before";
      starter =
          WorkerThreads.daemon(
              "collector-start", () -> startKubernetesSources(k8s, topics, records));
    } else {
      startSources(k8s, topics, records, Map.of());
    }
  }

  /** The DCGM scraper over the fixed targets and, with a client, the discovered ones. */
  private void startScraper(KubernetesClient client, Records records) {
    List<Supplier<List<ScrapeTarget>>> targetSources = new ArrayList<>();
    List<ScrapeTarget> fixed =
        config.getList(CollectorConfig.DCGM_TARGETS).stream()
            .map(u -> new ScrapeTarget(u, null))
            .toList();
    if (!fixed.isEmpty()) {
      targetSources.add(() -> fixed);
    }
    if (client != null && config.getBoolean(CollectorConfig.DCGM_DISCOVERY)) {
      EndpointSliceTargets discovered =
          new EndpointSliceTargets(
              client,
              config.getList(CollectorConfig.DCGM_NAMESPACES),
              config.dcgmServiceSelectors(),
              config.getList(CollectorConfig.DCGM_PORT_NAME),
              config.getString(CollectorConfig.DCGM_PATH));
      resources.add(discovered);
      targetSources.add(discovered);
    }
    Supplier<List<ScrapeTarget>> targets =
        () -> targetSources.stream().flatMap(s -> s.get().stream()).distinct().toList();
    metrics.dcgmGauges(
        () -> targets.get().size(),
        () -> pods != null ? pods.gpuPodsRunning() : OptionalInt.empty());
    if (targetSources.isEmpty()) {
      return;
    }
    DcgmScraper scraper =
        new DcgmScraper(
            targets,
            sink,
            records,
            metrics,
            clock,
            config.getDuration(CollectorConfig.SCRAPE_INTERVAL),
            config.getDuration(CollectorConfig.SCRAPE_TIMEOUT),
            config.getDuration(CollectorConfig.SCRAPE_BACKOFF_MAX),
            config.getInt(CollectorConfig.SCRAPE_MAX_BYTES),
            config.inputBounds(),
            config.getDuration(CollectorConfig.SCRAPE_FORGET_AFTER));
    resources.add(scraper);
    scraper.start();
  }

  /** The HTTP endpoint: metrics, probes and the request-log intake's routes. */
  private void startHttp(Records records, RequestMarkHold requestMarks) {
    RequestLogIntake intake =
        new RequestLogIntake(
            new RequestLogParser(
                FieldMapping.parse(config.getList(CollectorConfig.INTAKE_FIELD_MAPPING)),
                config.inputBounds()),
            sink,
            records,
            metrics,
            clock,
            config.intakeToken(),
            new RequestLogIntake.Bounds(
                config.getInt(CollectorConfig.INTAKE_MAX_BODY),
                config.getInt(CollectorConfig.INTAKE_MAX_LINE),
                config.getInt(CollectorConfig.INTAKE_MAX_ITEMS),
                config.getInt(CollectorConfig.INTAKE_MAX_INFLIGHT)),
            config.getDuration(CollectorConfig.INTAKE_ACK_TIMEOUT),
            requestMarks);
    intake.resolvePodsBy(
        uid -> {
          PodSource p = pods;
          return p == null ? Optional.empty() : p.nameOf(uid);
        });
    ServerTls tls = config.httpTls();
    http =
        HttpEndpoint.start(
            config.getString(CollectorConfig.HTTP_HOST),
            config.getInt(CollectorConfig.HTTP_PORT),
            tls == null ? null : tls.context(),
            metrics.registry,
            this::readiness,
            HttpSettings.limits(config),
            intake.routes().toArray(HttpEndpoint.Route[]::new));
    HttpSettings.reloadingTls(http, config, tls);
    HttpSettings.withProbes(
        http, config, config.getString(CollectorConfig.HTTP_HOST), this::readiness);
    resources.add(http);
  }

  /** Reads back what was reported before (waiting for Kafka), then starts the sources. */
  private void startKubernetesSources(KubernetesClient client, Topics topics, Records records) {
    long backoff = 1_000;
    while (!closed) {
      try {
        // Asked first in a few seconds, so that /readyz soon says what it waits for.
        KafkaReachability.require(config.kafkaClientSettings(), Duration.ofSeconds(5));
        Map<String, PodObservation> reported =
            // Read to the end however long it takes; given up (and asked again) only when no
            // record comes for two minutes.
            ReportedPods.read(config.kafkaClientSettings(), topics.pods, Duration.ofMinutes(2));
        if (closed) {
          return;
        }
        startSources(client, topics, records, reported);
        starting = null;
        return;
      } catch (RuntimeException e) {
        starting =
            e instanceof ReportedPods.ReadBackStalled
                ? "reading back the pods reported before: " + e.getMessage()
                : "reading back the pods reported before: Kafka unreachable at "
                    + config.bootstrapServers()
                    + " (KAFKA_BOOTSTRAP_SERVERS)";
        log.warn("{}; retrying in {} s ({})", starting, backoff / 1000, e.toString());
        try {
          Thread.sleep(backoff); // the retry pace while Kafka is away, not a wait for a condition
        } catch (InterruptedException interrupted) {
          return;
        }
        backoff = Math.min(30_000, backoff * 2);
      }
    }
  }

  private void startSources(
      KubernetesClient client,
      Topics topics,
      Records records,
      Map<String, PodObservation> reported) {
    List<String> namespaces = config.getList(CollectorConfig.NAMESPACES);
    OwnerChain.Lookup owners = startOwners(client, namespaces);
    PodSource p =
        new PodSource(
            client,
            namespaces,
            config.getString(CollectorConfig.LABEL_SELECTOR),
            config.podProjection(),
            owners,
            startNodes(client),
            sink,
            records,
            clock,
            metrics,
            reported);
    resources.add(p);
    p.start();
    pods = p;
    EventSource e =
        new EventSource(
            client,
            namespaces,
            config.getList(CollectorConfig.EVENTS_APIS),
            sink,
            records,
            clock,
            metrics,
            config.inputBounds());
    resources.add(e);
    e.start();
    events = e;
    if (config.getBoolean(CollectorConfig.WORKLOADS_WATCH)) {
      WorkloadSource w =
          new WorkloadSource(
              client,
              namespaces,
              new WorkloadProjection(config.getList(CollectorConfig.POD_LABELS)),
              sink,
              records,
              clock,
              metrics);
      resources.add(w);
      w.start();
      workloads = w;
    }
    if (config.getBoolean(CollectorConfig.QUEUES_WATCH)) {
      QueueWorkloadSource q =
          new QueueWorkloadSource(
              client,
              namespaces,
              sink,
              records,
              clock,
              metrics,
              config.getDuration(CollectorConfig.QUEUES_DISCOVERY_INTERVAL));
      resources.add(q);
      q.start();
      queues = q;
    }
    if (config.getBoolean(CollectorConfig.EXPERIMENTS_WATCH)) {
      ExperimentSource experiments =
          new ExperimentSource(
              client,
              config.getList(CollectorConfig.EXPERIMENTS_NAMESPACES).isEmpty()
                  ? namespaces
                  : config.getList(CollectorConfig.EXPERIMENTS_NAMESPACES),
              sink,
              records,
              clock,
              metrics);
      resources.add(experiments);
      experiments.start();
    }
  }

  /** The nodes' NVIDIA labels (gpu.node-labels), listed before the pods. */
  private PodSource.NodeLookup startNodes(KubernetesClient client) {
    if (!config.getBoolean(CollectorConfig.GPU_NODE_LABELS)) {
      return PodSource.NodeLookup.NONE;
    }
    NodeSource nodes = new NodeSource(client, metrics);
    resources.add(nodes);
    nodes.startAndWait(OWNERS_LIST_WAIT);
    return nodes::of;
  }

  /**
   * The owner kinds' watches, listed before the pods are (waiting at most {@link
   * #OWNERS_LIST_WAIT}), so that the pods listed at start find their chains in the cache.
   */
  private OwnerChain.Lookup startOwners(KubernetesClient client, List<String> namespaces) {
    List<OwnerKind> kinds =
        config.getList(CollectorConfig.OWNERS_KINDS).stream().map(OwnerKind::parse).toList();
    if (kinds.isEmpty()) {
      log.info("owners.kinds is empty: a pod's workload is its own controller");
      return OwnerChain.NONE;
    }
    OwnerSource owners =
        new OwnerSource(
            client,
            namespaces,
            kinds,
            metrics,
            (namespace, ref) -> {
              PodSource p = pods;
              return p == null ? null : p.asOwner(namespace, ref);
            });
    resources.add(owners);
    try {
      owners.start().get(OWNERS_LIST_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      log.info("owners: watching {}", owners.watched());
    } catch (TimeoutException e) {
      log.warn(
          "owners: not all of {} listed within {} s; pods start now, and an owner a pod names"
              + " before its list completes is read alone",
          owners.watched(),
          OWNERS_LIST_WAIT.toSeconds());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.warn("owners: listing failed ({}); their informers retry", e.getCause().toString());
    }
    return owners;
  }

  private KubernetesClient buildClient() {
    String kubeconfig = config.getString(CollectorConfig.KUBECONFIG);
    Config base;
    if (!kubeconfig.isEmpty()) {
      try {
        base = Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)));
      } catch (IOException e) {
        throw new ConfigException(
            CollectorConfig.KUBECONFIG, kubeconfig, "cannot read it: " + e.getMessage());
      }
    } else {
      base = Config.autoConfigure(null);
    }
    ConfigBuilder b = new ConfigBuilder(base);
    String master = config.getString(CollectorConfig.KUBERNETES_MASTER);
    if (!master.isEmpty()) {
      b.withMasterUrl(master);
    }
    ownClient = new KubernetesClientBuilder().withConfig(b.build()).build();
    return ownClient;
  }

  /** What /readyz answers. */
  public Readiness readiness() {
    List<String> waiting = new ArrayList<>();
    String start = starting;
    if (start != null) {
      waiting.add(start);
    }
    if (pods != null && !pods.hasSynced()) {
      waiting.add("pod informer not synced");
    }
    if (events != null && !events.hasSynced()) {
      waiting.add("event informers not synced");
    }
    if (workloads != null && !workloads.hasSynced()) {
      // until then a workload changed now would be seen only as its state after the list
      waiting.add("workload informers not synced");
    }
    if (queues != null && !queues.hasSynced()) {
      waiting.add("Kueue Workload informers not synced");
    }
    if (!sink.kafkaReachable()) {
      waiting.add("Kafka unreachable");
    }
    if (!sink.pumping()) {
      waiting.add("the send pump has stopped (see the log); restart the collector");
    }
    return waiting.isEmpty()
        ? Readiness.ready("ready: informers synced, Kafka reachable")
        : Readiness.notReady("not ready: " + String.join(", ", waiting));
  }

  /** The base URL of /metrics and the intake. */
  public String baseUrl() {
    return http.baseUrl();
  }

  /** The collector's metrics. */
  public CollectorMetrics metrics() {
    return metrics;
  }

  /** Waits until everything buffered is in Kafka, or the timeout. */
  public boolean flush(Duration timeout) {
    return sink.drain(timeout);
  }

  /** Records waiting for Kafka. */
  public int buffered() {
    return sink.buffered();
  }

  /** Bytes waiting for Kafka (keys, values and the per-record overhead the bound counts). */
  public long bufferedBytes() {
    return sink.bufferedBytes();
  }

  @Override
  public void close() {
    closed = true;
    if (starter != null) {
      starter.interrupt();
      try {
        starter.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        log.warn(
            "closing {} failed: {}", resources.get(i).getClass().getSimpleName(), e.toString());
      }
    }
    if (ownClient != null) {
      ownClient.close();
    }
  }
}
