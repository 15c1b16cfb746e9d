package io.schedlens.kafka;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka cluster of {@code n} KRaft nodes (each broker and controller, the controllers a
 * quorum), each in a JVM of its own ({@link KafkaNodeMain}) on loopback ports, so that a test can
 * kill one as a broker dies ({@code kill -9}), stop them all and start them again on the same data.
 * Replicated as production is: replication factor 3 for every topic and internal topic, min ISR 2.
 */
public final class EmbeddedKafkaCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaCluster.class);

  private final Path dataDir;
  private final String clusterId = Uuid.randomUuid().toString();
  private final int[] ports;
  private final int[] controllerPorts;
  private final Process[] nodes;

  private EmbeddedKafkaCluster(int n) {
    try {
      this.dataDir = Files.createTempDirectory("schedlens-kafka-cluster-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for the cluster", e);
    }
    ports = new int[n];
    controllerPorts = new int[n];
    nodes = new Process[n];
    for (int i = 0; i < n; i++) {
      ports[i] = EmbeddedKafkaBroker.freePort();
      controllerPorts[i] = EmbeddedKafkaBroker.freePort();
    }
  }

  /** Formats every node's storage, starts them all, returns once every broker is in the cluster. */
  public static EmbeddedKafkaCluster start(int n) {
    EmbeddedKafkaCluster c = new EmbeddedKafkaCluster(n);
    try {
      for (int i = 0; i < n; i++) {
        Path config = c.config(i);
        EmbeddedKafkaBroker.format(config, c.clusterId);
      }
      c.startAll();
      return c;
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** Node ids are 1 to n; node {@code id}'s properties file, written. */
  private Path config(int i) {
    int id = i + 1;
    String voters =
        IntStream.range(0, ports.length)
            .mapToObj(k -> (k + 1) + "@127.0.0.1:" + controllerPorts[k])
            .collect(Collectors.joining(","));
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(id));
    p.put("controller.quorum.voters", voters);
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + ports[i] + ",CONTROLLER://127.0.0.1:" + controllerPorts[i]);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + ports[i]);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dataDir.resolve("node-" + id).toString());
    int rf = Math.min(3, ports.length);
    String minIsr = Integer.toString(Math.max(1, rf - 1));
    p.put("num.partitions", "1");
    p.put("default.replication.factor", Integer.toString(rf));
    p.put("min.insync.replicas", minIsr);
    p.put("offsets.topic.replication.factor", Integer.toString(rf));
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.replication.factor", Integer.toString(rf));
    p.put("transaction.state.log.min.isr", minIsr);
    p.put("transaction.state.log.num.partitions", "5");
    p.put("share.coordinator.state.topic.replication.factor", Integer.toString(rf));
    p.put("share.coordinator.state.topic.min.isr", minIsr);
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
    // No deletion by time: the records here carry the event times of recordings and scenarios,
    // fixed days that the clock leaves behind, and a topic's retention.ms (a week for the inputs)
    // counts from a record's timestamp. The broker's check would delete them while a test or demo
    // still reads them, as soon as the clock is a week past their day.
    p.put("log.initial.task.delay.ms", Long.toString(EmbeddedKafkaBroker.NO_RETENTION_CHECK_MS));
    p.put(
        "log.retention.check.interval.ms",
        Long.toString(EmbeddedKafkaBroker.NO_RETENTION_CHECK_MS));
    p.put("auto.create.topics.enable", "false");
    // A dead replica leaves the ISR after this; the test's faults last seconds.
    p.put("replica.lag.time.max.ms", "5000");
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    Path file = dataDir.resolve("node-" + id + ".properties");
    try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(out, "schedlens embedded cluster node " + id);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  /** Every broker's {@code 127.0.0.1:port}. */
  public String bootstrapServers() {
    return Arrays.stream(ports).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
  }

  /** Number of nodes. */
  public int size() {
    return ports.length;
  }

  /** Starts node {@code id} (1 to n) on its ports and data; returns at once. */
  public synchronized void startNode(int id) {
    int i = id - 1;
    if (nodes[i] != null && nodes[i].isAlive()) {
      return;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            java,
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            KafkaNodeMain.class.getName(),
            dataDir.resolve("node-" + id + ".properties").toString());
    File out = dataDir.resolve("node-" + id + ".log").toFile();
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(out));
    try {
      nodes[i] = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Kafka node " + id, e);
    }
  }

  /** Starts every node (a quorum needs a majority at once) and waits until all brokers serve. */
  public void startAll() {
    for (int id = 1; id <= ports.length; id++) {
      startNode(id);
    }
    awaitBrokers(ports.length, Duration.ofSeconds(90));
  }

  /** Kills node {@code id} as a dying broker goes: no shutdown, no leadership hand-over. */
  public synchronized void kill(int id) {
    Process p = nodes[id - 1];
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      nodes[id - 1] = null;
    }
  }

  /** Kills every node. */
  public void killAll() {
    for (int id = 1; id <= ports.length; id++) {
      kill(id);
    }
  }

  /** Whether node {@code id} runs. */
  public synchronized boolean isRunning(int id) {
    return nodes[id - 1] != null && nodes[id - 1].isAlive();
  }

  /** Waits until {@code n} brokers are in the cluster's metadata. */
  public void awaitBrokers(int n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = admin()) {
      while (true) {
        try {
          if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= n) {
            log.info("Kafka cluster of {} nodes ready on {}", n, bootstrapServers());
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          // not yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the Kafka cluster did not have " + n + " brokers within " + timeout);
        }
        Thread.sleep(200); // the pace of asking, not a wait for a condition that is told
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cluster", e);
    }
  }

  /** The node id leading a topic's partition, or -1 when it has no leader now. */
  public int leaderOf(String topic, int partition) {
    try (Admin admin = admin()) {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      TopicPartitionInfo info = d.partitions().get(partition);
      return info.leader() == null ? -1 : info.leader().id();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot describe " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Creates topics (replication factor and min ISR of the cluster unless they say otherwise). */
  public void createTopics(Collection<NewTopic> topics) {
    try (Admin admin = admin()) {
      EmbeddedKafkaBroker.createTopics(admin, topics);
    }
  }

  /** An admin client for the cluster; the caller closes it. */
  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  /** The last lines each node logged, to show why when a test fails. */
  public String logTails(int lines) {
    List<String> out = new ArrayList<>();
    for (int id = 1; id <= ports.length; id++) {
      Path f = dataDir.resolve("node-" + id + ".log");
      try {
        List<String> all = Files.exists(f) ? Files.readAllLines(f) : List.of();
        out.add("--- node " + id);
        out.addAll(all.subList(Math.max(0, all.size() - lines), all.size()));
      } catch (IOException e) {
        out.add("--- node " + id + ": " + e.getMessage());
      }
    }
    return String.join("\n", out);
  }

  @Override
  public void close() {
    killAll();
    EmbeddedKafkaBroker.deleteRecursively(dataDir);
  }
}
