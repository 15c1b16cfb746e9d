package io.schedlens.streams;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.HttpEndpoint.Readiness;
import io.schedlens.common.http.HttpSettings;
import io.schedlens.common.http.ServerTls;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.serving.api.LocalStores;
import io.schedlens.serving.api.TimelineApi;
import io.schedlens.serving.api.TimelineQueries;
import io.schedlens.serving.gauges.PendingGauges;
import io.schedlens.serving.gauges.WorkloadGauges;
import io.schedlens.serving.pages.LivePageSource;
import io.schedlens.serving.pages.TimelinePages;
import io.schedlens.streams.metrics.ConsumerLag;
import io.schedlens.topology.DeadLetterHandlers;
import io.schedlens.topology.TimelineTopology;
import io.schedlens.topology.TopologySettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams app: serves /metrics, /healthz and /readyz at once, waits for Kafka and checks its
 * topics, builds the topology, runs Kafka Streams (exactly-once), then serves the timeline API and
 * pages too (ready while RUNNING). An exception no handler took shuts the client down, so that
 * Kubernetes restarts the pod.
 */
public final class StreamsApp implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StreamsApp.class);

  private final KafkaStreams streams;
  private final HttpEndpoint http;
  private final StreamsMetrics metrics;

  private final CountDownLatch terminated;

  private StreamsApp(
      KafkaStreams streams, HttpEndpoint http, StreamsMetrics metrics, CountDownLatch terminated) {
    this.streams = streams;
    this.http = http;
    this.metrics = metrics;
    this.terminated = terminated;
  }

  /** Blocks until Kafka Streams has stopped (closed, or failed). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Starts the app; returns once Kafka Streams has started (not necessarily RUNNING). The HTTP
   * endpoint and the probes come first: while Kafka cannot be reached the app waits, with back-off,
   * alive ({@code /healthz}) and not ready ({@code /readyz} says what it waits for), as the
   * collector does, instead of exiting into a crash loop. A configuration Kafka answers against
   * (topics missing, partitions that differ) still fails the start, with what to do.
   */
  public static StreamsApp start(StreamsAppConfig config) {
    Topics topics = Topics.withPrefix(config.getString(StreamsAppConfig.TOPIC_PREFIX));
    StreamsMetrics metrics =
        new StreamsMetrics(
            new PrometheusRegistry(),
            config.getInt(StreamsAppConfig.METRICS_ARMS),
            config.getInt(StreamsAppConfig.METRICS_REPEATS));
    StartingEndpoint front = new StartingEndpoint("starting: checking the topics on Kafka");
    ServerTls tls = config.httpTls();
    HttpEndpoint http =
        HttpEndpoint.start(
            config.getString(StreamsAppConfig.HTTP_HOST),
            config.getInt(StreamsAppConfig.HTTP_PORT),
            tls == null ? null : tls.context(),
            metrics.registry,
            front::readiness,
            HttpSettings.limits(config).withPeerThreads(config.getInt(HttpSettings.THREADS)),
            config.peerCalls(),
            front.route("/api/pods"),
            front.route("/api/workloads"),
            front.route("/"));
    HttpSettings.withProbes(
        http, config, config.getString(StreamsAppConfig.HTTP_HOST), front::readiness);
    HttpSettings.reloadingTls(http, config, tls);
    try {
      int partitions = awaitTopics(config, topics, front);
      return startStreams(config, topics, partitions, metrics, http, front, tls);
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
  }

  private static StreamsApp startStreams(
      StreamsAppConfig config,
      Topics topics,
      int partitions,
      StreamsMetrics metrics,
      HttpEndpoint http,
      StartingEndpoint front,
      ServerTls tls) {
    TopologySettings settings =
        new TopologySettings(
            config.timelineSettings(),
            config.getDuration(StreamsAppConfig.EMIT_INTERVAL),
            config.getDuration(StreamsAppConfig.ORPHAN_TIMEOUT),
            config.dedupWindow(),
            config.getDuration(StreamsAppConfig.API_RETENTION),
            partitions,
            20_000);
    Properties props = StreamsProperties.of(config, topics);
    Consumer<String> deadLetters = reason -> metrics.deadLetters.labelValues(reason).inc();
    props.put(DeadLetterHandlers.COUNTER_CONFIG, deadLetters);
    KafkaStreams streams =
        new KafkaStreams(TimelineTopology.build(topics, settings, metrics), props);
    streams.setUncaughtExceptionHandler(new ThreadFailures());
    CountDownLatch terminated = new CountDownLatch(1);
    streams.setStateListener(
        (now, before) -> {
          log.info("Kafka Streams {} -> {}", before, now);
          if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
            terminated.countDown();
          }
        });
    String self = props.getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG);
    LocalStores stores = new LocalStores(streams, self, partitions);
    TimelineQueries queries =
        new TimelineQueries(stores, config.peerCalls(), tls != null, config.httpTlsTrust());
    TimelineApi api = new TimelineApi(queries, config.apiToken(), config.peerCalls());
    PendingGauges gauges = new PendingGauges(stores::timelines);
    TimelinePages pages =
        new TimelinePages(new LivePageSource(queries, gauges::eventNow), config.pagesAccess());
    metrics.registerGauges(gauges::pending, gauges::oldestPending, gauges::starving);
    WorkloadGauges workloadGauges = new WorkloadGauges(stores::workloads);
    metrics.registerWorkloadGauges(
        workloadGauges::interrupted, workloadGauges::interruptionAge, workloadGauges::degraded);
    metrics.registerConsumerLag(new ConsumerLag(streams::metrics)::report);
    front.serve(
        () ->
            streams.state() == KafkaStreams.State.RUNNING
                ? Readiness.ready("ready: Kafka Streams RUNNING")
                : Readiness.notReady("not ready: Kafka Streams " + streams.state()),
        Map.of("/api/pods", api::handle, "/api/workloads", api::handle, "/", pages::handle));
    streams.start();
    log.info(
        "streams app {} started; /metrics, /api and the timeline pages (/) on {}",
        config.getString(StreamsAppConfig.APPLICATION_ID),
        http.baseUrl());
    return new StreamsApp(streams, http, metrics, terminated);
  }

  /** Kafka could not be reached (as opposed to answering that something is wrong). */
  static final class KafkaUnreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    KafkaUnreachable(String message) {
      super(message);
    }
  }

  /**
   * Checks the topics, asking again with back-off (1 s doubling to 30 s) while Kafka cannot be
   * reached, and saying so on {@code /readyz} and in the log meanwhile.
   */
  private static int awaitTopics(StreamsAppConfig config, Topics topics, StartingEndpoint front) {
    long backoffMs = 1_000;
    while (true) {
      try {
        return checkTopics(config, topics);
      } catch (KafkaUnreachable e) {
        String waiting =
            "waiting for Kafka at "
                + config.bootstrapServers()
                + " (KAFKA_BOOTSTRAP_SERVERS): "
                + e.getMessage();
        front.waiting(waiting);
        log.warn("{}; asking again in {} s", waiting, backoffMs / 1000);
        try {
          Thread.sleep(backoffMs); // the retry pace while Kafka is away, not a wait for a condition
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for Kafka", interrupted);
        }
        backoffMs = Math.min(30_000, backoffMs * 2);
      }
    }
  }

  /**
   * The input and internal topics must exist, and the ones whose stages share state must have the
   * same number of partitions (co-partitioning); say which when not.
   */
  static int checkTopics(StreamsAppConfig config, Topics topics) {
    List<Topic<String, ?>> needed = topics.all();
    Map<String, Object> admin = new HashMap<>(config.kafkaClientSettings());
    admin.put("default.api.timeout.ms", 60_000);
    Map<String, TopicDescription> found;
    try (Admin a = Admin.create(admin)) {
      Set<String> names;
      try {
        // Asked for 10 s at a time, so that /readyz soon says what the app waits for.
        names =
            a.listTopics(new ListTopicsOptions().timeoutMs(10_000))
                .names()
                .get(15, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        if (cause instanceof RetriableException || cause instanceof TimeoutException) {
          throw new KafkaUnreachable(cause.toString());
        }
        throw e;
      }
      List<String> missing =
          needed.stream().map(Topic::name).filter(n -> !names.contains(n)).toList();
      if (!missing.isEmpty() && config.getBoolean(StreamsAppConfig.TOPICS_CREATE)) {
        createMissing(a, config, topics, names, missing);
        missing = List.of();
      }
      if (!missing.isEmpty()) {
        throw new ConfigException(
            "topics missing on "
                + config.bootstrapServers()
                + ": "
                + missing
                + "; create them (deploy/ has KafkaTopic resources), run with --topics-create true, or fix --topic-prefix");
      }
      found = describeWhenKnown(a, needed.stream().map(Topic::name).toList());
    } catch (ConfigException | KafkaUnreachable e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigException("interrupted while checking the topics on Kafka");
    } catch (Exception e) {
      throw new ConfigException(
          "cannot reach Kafka at " + config.bootstrapServers() + " to check topics: " + e);
    }
    List<Topic<String, ?>> copartitioned = joinedTopics(topics);
    Map<String, Integer> partitions = new TreeMap<>();
    copartitioned.forEach(t -> partitions.put(t.name(), found.get(t.name()).partitions().size()));
    if (partitions.values().stream().collect(Collectors.toSet()).size() > 1) {
      throw new ConfigException(
          "these topics must have the same number of partitions (their records are joined by pod): "
              + partitions);
    }
    return partitions.values().iterator().next();
  }

  /**
   * Creates the missing topics with the catalogue's settings. Their partition count follows the
   * joined topics that already exist (so that all stay co-partitioned), else topics.partitions.
   */
  private static void createMissing(
      Admin admin,
      StreamsAppConfig config,
      Topics topics,
      Set<String> existing,
      List<String> missing)
      throws Exception {
    List<String> joinedExisting =
        joinedTopics(topics).stream().map(Topic::name).filter(existing::contains).toList();
    int partitions = config.getInt(StreamsAppConfig.TOPICS_PARTITIONS);
    if (!joinedExisting.isEmpty()) {
      partitions =
          describeWhenKnown(admin, List.of(joinedExisting.get(0)))
              .get(joinedExisting.get(0))
              .partitions()
              .size();
    }
    int rf = config.getInt(StreamsAppConfig.REPLICATION);
    List<NewTopic> create = new ArrayList<>();
    for (Topic<String, ?> t : topics.all()) {
      if (missing.contains(t.name())) {
        create.add(t.newTopic(partitions, (short) rf));
      }
    }
    try {
      admin.createTopics(create).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
      // Another instance created them at the same moment: fine.
    }
    log.info("created topics {} with {} partitions", missing, partitions);
  }

  /**
   * The topics' descriptions. A topic created a moment ago (by this app, another instance or an
   * operator) may not be in the answering broker's metadata yet, which answers "unknown topic":
   * asked again until it is, for up to 30 s, instead of failing the start.
   */
  private static Map<String, TopicDescription> describeWhenKnown(Admin admin, List<String> names)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return admin.describeTopics(names).allTopicNames().get(60, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static List<Topic<String, ?>> joinedTopics(Topics topics) {
    return List.of(
        topics.pods,
        topics.events,
        topics.gpuSamples,
        topics.requests,
        topics.workloads,
        topics.toPod,
        topics.byWorkload,
        topics.byNode);
  }

  public KafkaStreams streams() {
    return streams;
  }

  public StreamsMetrics metrics() {
    return metrics;
  }

  public String baseUrl() {
    return http.baseUrl();
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
    http.close();
  }
}
