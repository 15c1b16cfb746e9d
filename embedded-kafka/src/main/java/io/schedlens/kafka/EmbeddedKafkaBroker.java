package io.schedlens.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker: one KRaft node in combined broker+controller mode, running in this JVM from
 * Kafka's own server classes, on free loopback ports, with its data in a temporary directory that
 * {@link #close()} removes. Used by the demo and by every integration test (one broker per test
 * class), because no Docker engine runs here.
 *
 * <p>It can be stopped and started again on the same ports and data ({@link #stop()}, {@link
 * #restart()}), so that tests can take Kafka away and bring it back.
 *
 * <p>Settings are those of a single node: every replication factor and min ISR is 1, the group
 * rebalance delay is 0, and the log cleaner's dedupe buffer is 8 MiB instead of the 128 MiB
 * default, which a small test JVM cannot afford.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

  /** A retention check a hundred days away: never, for a broker of tests and demos. */
  static final long NO_RETENTION_CHECK_MS = Duration.ofDays(100).toMillis();

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

  private final Path dataDir;
  private final int port;
  private final int controllerPort;
  private final String clusterId = Uuid.randomUuid().toString();
  private final Map<String, String> overrides;

  /** The port of the SASL_SSL listener, 0 when the broker has none. */
  private final int securePort;

  private KafkaRaftServer server;
  private Duration lastStartup = Duration.ZERO;

  private EmbeddedKafkaBroker(Map<String, String> overrides) {
    this(overrides, false);
  }

  private EmbeddedKafkaBroker(Map<String, String> overrides, boolean secure) {
    this.overrides = Map.copyOf(overrides);
    try {
      this.dataDir = Files.createTempDirectory("schedlens-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for the broker", e);
    }
    this.port = freePort();
    this.controllerPort = freePort();
    this.securePort = secure ? freePort() : 0;
  }

  /** Formats storage and starts a broker; returns once it answers requests. */
  public static EmbeddedKafkaBroker start() {
    return start(Map.of());
  }

  /** As {@link #start()}, with extra broker settings (e.g. {@code num.partitions}). */
  public static EmbeddedKafkaBroker start(Map<String, String> overrides) {
    return launch(new EmbeddedKafkaBroker(overrides));
  }

  /** Formats its storage and starts it; a broker that fails to start leaves nothing behind. */
  private static EmbeddedKafkaBroker launch(EmbeddedKafkaBroker broker) {
    try {
      broker.format();
      broker.startServer();
      return broker;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /**
   * A broker with a second client listener as production runs it: SASL_SSL with SCRAM-SHA-512 on
   * {@link #secureBootstrapServers()}, its certificate from the given PKCS12 keystore, and Kafka's
   * {@code StandardAuthorizer}, so that ACLs decide what each user may do. The plaintext listener
   * stays for the test's own setup (topics, SCRAM users, ACLs): its anonymous principal is the
   * super user.
   */
  public static EmbeddedKafkaBroker startSecure(Path keystore, String keystorePassword) {
    Map<String, String> o = new HashMap<>();
    o.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
    o.put(
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    o.put("listener.name.sasl_ssl.ssl.keystore.location", keystore.toString());
    o.put("listener.name.sasl_ssl.ssl.keystore.password", keystorePassword);
    o.put("listener.name.sasl_ssl.ssl.key.password", keystorePassword);
    o.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
    o.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    o.put("super.users", "User:ANONYMOUS");
    return launch(new EmbeddedKafkaBroker(o, true));
  }

  /** {@code 127.0.0.1:port} of the SASL_SSL listener of {@link #startSecure}. */
  public String secureBootstrapServers() {
    if (securePort == 0) {
      throw new IllegalStateException("this broker has no SASL_SSL listener (see startSecure)");
    }
    return "127.0.0.1:" + securePort;
  }

  /** {@code 127.0.0.1:port} of the client listener. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** How long the last start took, from construction of the server to the first answer. */
  public Duration lastStartup() {
    return lastStartup;
  }

  /** Creates topics with their settings; topics that already exist are left as they are. */
  public void createTopics(Collection<NewTopic> topics) {
    try (Admin admin = admin()) {
      createTopics(admin, topics);
    }
  }

  /**
   * Creates topics through {@code admin} and returns once clients list them (also for {@link
   * EmbeddedKafkaCluster}).
   */
  static void createTopics(Admin admin, Collection<NewTopic> topics) {
    try {
      for (NewTopic topic : topics) {
        try {
          admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("cannot create topic " + topic.name(), e.getCause());
          }
        }
      }
      // A created topic takes a moment to show in the metadata that clients list; callers (the
      // streams app's topic check among them) must find it when this returns.
      Set<String> names = new HashSet<>();
      topics.forEach(t -> names.add(t.name()));
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!admin.listTopics().names().get(30, TimeUnit.SECONDS).containsAll(names)) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException();
        }
        Thread.sleep(20);
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot list topics", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("broker did not create topics within 30s", e);
    }
  }

  /** An admin client for this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  /** Stops the broker, keeping its ports and data, as if Kafka went away. */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** Starts the broker again after {@link #stop()}, on the same ports with the same data. */
  public synchronized void restart() {
    if (server == null) {
      startServer();
    }
  }

  /** Whether the broker is running. */
  public synchronized boolean isRunning() {
    return server != null;
  }

  @Override
  public synchronized void close() {
    try {
      stop();
    } finally {
      deleteRecursively(dataDir);
    }
  }

  private Properties properties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    String secure = securePort == 0 ? "" : ",SASL_SSL://127.0.0.1:" + securePort;
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort + secure);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port + secure);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (securePort == 0 ? "" : ",SASL_SSL:SASL_SSL"));
    p.put("log.dirs", dataDir.resolve("log").toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "5");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
    // No deletion by time: the records here carry the event times of recordings and scenarios,
    // fixed days that the clock leaves behind, and a topic's retention.ms (a week for the inputs)
    // counts from a record's timestamp. The broker's check would delete them while a test or demo
    // still reads them, as soon as the clock is a week past their day.
    p.put("log.initial.task.delay.ms", Long.toString(NO_RETENTION_CHECK_MS));
    p.put("log.retention.check.interval.ms", Long.toString(NO_RETENTION_CHECK_MS));
    p.put("auto.create.topics.enable", "false");
    // Two cores here: a handful of threads serve one node's load.
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    p.putAll(overrides);
    return p;
  }

  private void format() {
    Path config = dataDir.resolve("server.properties");
    try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      properties().store(out, "schedlens embedded broker");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + config, e);
    }
    format(config, clusterId);
  }

  /** Formats the storage of the node configured in {@code config} (kafka-storage format). */
  static void format(Path config, String clusterId) {
    var captured = new ByteArrayOutputStream();
    int rc;
    try (PrintStream ps = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      rc =
          StorageTool.execute(
              new String[] {"format", "-t", clusterId, "-c", config.toString()}, ps);
    }
    if (rc != 0) {
      throw new IllegalStateException(
          "kafka-storage format failed (exit "
              + rc
              + "): "
              + captured.toString(StandardCharsets.UTF_8));
    }
  }

  private void startServer() {
    long t0 = System.nanoTime();
    KafkaConfig config = KafkaConfig.fromProps(properties(), false);
    KafkaRaftServer s = new KafkaRaftServer(config, Time.SYSTEM);
    s.startup();
    server = s;
    awaitReady();
    lastStartup = Duration.ofNanos(System.nanoTime() - t0);
    log.info("Kafka broker ready on {} in {} ms", bootstrapServers(), lastStartup.toMillis());
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = admin()) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "embedded Kafka broker did not become ready within 60s", e);
          }
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the broker", e);
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("could not remove broker data {}: {}", dir, e.getMessage());
    }
  }
}
