package io.schedlens.streams;

import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.HttpEndpoint.Readiness;
import io.schedlens.common.http.HttpSettings;
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
import io.schedlens.streams.metrics.StreamsMetrics;
import io.schedlens.streams.topology.DeadLetterHandlers;
import io.schedlens.streams.topology.TimelineTopology;
import io.schedlens.streams.topology.TopologySettings;
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
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams app: checks its topics, builds the topology, runs Kafka Streams (exactly-once),
 * serves /metrics, /healthz, /readyz (ready while RUNNING) and the timeline API. An exception no
 * handler took shuts the client down, so that Kubernetes restarts the pod.
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

  /** Starts the app; returns once Kafka Streams has started (not necessarily RUNNING). */
  public static StreamsApp start(StreamsAppConfig config) {
    Topics topics = Topics.withPrefix(config.getString(StreamsAppConfig.TOPIC_PREFIX));
    int partitions = checkTopics(config, topics);
    StreamsMetrics metrics = new StreamsMetrics();
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
    streams.setUncaughtExceptionHandler(
        e -> {
          log.error("stream thread failed; shutting down so that the pod restarts", e);
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    CountDownLatch terminated = new CountDownLatch(1);
    streams.setStateListener(
        (now, before) -> {
          log.info("Kafka Streams {} -> {}", before, now);
          if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
            terminated.countDown();
          }
        });
    String self = props.getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG);
    SSLContext tls = config.httpTls();
    LocalStores stores = new LocalStores(streams, self, partitions);
    TimelineQueries queries =
        new TimelineQueries(stores, config.apiToken(), tls != null, config.httpTlsTrust());
    TimelineApi api = new TimelineApi(queries, config.apiToken());
    PendingGauges gauges = new PendingGauges(stores::timelines);
    TimelinePages pages =
        new TimelinePages(new LivePageSource(queries, gauges::eventNow), config.apiToken());
    metrics.registerGauges(gauges::pending, gauges::oldestPending, gauges::starving);
    WorkloadGauges workloadGauges = new WorkloadGauges(stores::workloads);
    metrics.registerWorkloadGauges(
        workloadGauges::interrupted, workloadGauges::interruptionAge, workloadGauges::degraded);
    metrics.registerConsumerLag(new ConsumerLag(streams::metrics)::report);
    Supplier<Readiness> readiness =
        () ->
            streams.state() == KafkaStreams.State.RUNNING
                ? Readiness.ready("ready: Kafka Streams RUNNING")
                : Readiness.notReady("not ready: Kafka Streams " + streams.state());
    HttpEndpoint http =
        HttpEndpoint.start(
            config.getString(StreamsAppConfig.HTTP_HOST),
            config.getInt(StreamsAppConfig.HTTP_PORT),
            tls,
            metrics.registry,
            readiness,
            4,
            new HttpEndpoint.Route("/api/pods", api::handle),
            new HttpEndpoint.Route("/api/workloads", api::handle),
            new HttpEndpoint.Route("/", pages::handle));
    HttpSettings.withProbes(http, config, config.getString(StreamsAppConfig.HTTP_HOST), readiness);
    streams.start();
    log.info(
        "streams app {} started; /metrics, /api and the timeline pages (/) on {}",
        config.getString(StreamsAppConfig.APPLICATION_ID),
        http.baseUrl());
    return new StreamsApp(streams, http, metrics, terminated);
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
      Set<String> names = a.listTopics().names().get(60, TimeUnit.SECONDS);
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
    } catch (ConfigException e) {
      throw e;
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
