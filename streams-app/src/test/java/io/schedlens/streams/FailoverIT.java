package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.TopicReader;
import java.io.File;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances of the app, each in its own JVM, on six partitions with a standby replica of
 * every store: one is killed ({@code kill -9}) mid-stream and a replacement started. The final
 * timelines and preemptions equal a single instance's run of the same inputs, and {@code /api}
 * answers every list throughout either whole (as many pods as any earlier answer, or more) or with
 * a 503 and {@code Retry-After}; the fail-over time is the time from the kill to the first whole
 * answer again.
 */
class FailoverIT {

  static final int PARTITIONS = 6;
  static final int ROUNDS = 4;
  static final int LIVES = 600;
  static final int PODS = ROUNDS * 3 + LIVES;
  static final String TOKEN = "failover-token-0123456789abcdef0123456789";
  static final ObjectMapper JSON = new ObjectMapper();

  static EmbeddedKafkaBroker broker;

  @TempDir static Path dir;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  static List<Object> inputs() {
    List<Object> all = new ArrayList<>(ScenarioInputs.cluster(ROUNDS));
    all.addAll(ScenarioInputs.lives(LIVES, 30, 0));
    all.sort(Comparator.comparingLong(ScenarioInputs::timestampOf));
    return all;
  }

  static Topics topics(String prefix) {
    Topics t = Topics.withPrefix(prefix);
    broker.createTopics(t.newTopics(PARTITIONS, (short) 1));
    return t;
  }

  static void produce(Topics t, List<Object> inputs, boolean end) {
    try (InputProducer producer = new InputProducer(broker.bootstrapServers(), t, PARTITIONS)) {
      producer.produce(inputs);
      if (end) {
        producer.end();
      }
    }
  }

  @Test
  void shouldGiveOneInstancesOutputsWhenOneOfThreeIsKilledAndReplaced() throws Exception {
    List<Object> inputs = inputs();

    Topics one = topics("one.");
    produce(one, inputs, true);
    Map<String, PodTimeline> expected;
    Map<String, Preemption> expectedPreemptions;
    StreamsAppConfig config =
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                List.of(
                    "--topic-prefix", "one.",
                    "--application-id", "one-app",
                    "--state-dir", dir.resolve("one").toString(),
                    "--http-port", "0",
                    "--slo", "chat=1000",
                    "--api-auth", "none"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    try (StreamsApp app = StreamsApp.start(config)) {
      expected = StreamsAppIT.finals(broker.bootstrapServers(), one, PODS);
      expectedPreemptions = preemptions(one);
    }
    assertThat(expected).hasSize(PODS);

    Topics three = topics("three.");
    int half = inputs.size() / 2;
    produce(three, inputs.subList(0, half), false);
    List<Instance> instances = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      instances.add(Instance.start(i));
    }
    Poller poller = new Poller(instances);
    Thread polling = new Thread(poller, "api-poller");
    polling.start();
    try {
      try (TopicReader<PodTimeline> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              three.podTimelines.name(),
              three.podTimelines.valueSerde().deserializer())) {
        r.readUntil(
            rs -> rs.stream().filter(x -> x.value().getFinal$()).count() >= 100,
            Duration.ofSeconds(180));
      }
      Instance killed = instances.get(0);
      poller.killed(killed);
      killed.process.destroyForcibly().waitFor();
      long killedAt = System.nanoTime();
      poller.markKill(killedAt);
      produce(three, inputs.subList(half, inputs.size()), true);
      instances.add(Instance.start(3));

      Map<String, PodTimeline> after = StreamsAppIT.finals(broker.bootstrapServers(), three, PODS);
      Map<String, Preemption> afterPreemptions = preemptions(three);
      poller.stop.set(true);
      polling.join(30_000);

      System.out.printf(
          "FailoverIT: %d whole answers, %d answered 503 with Retry-After, %d refused by a stopped"
              + " instance; /api whole again %d ms after the kill -9 (largest list %d pods)%n",
          poller.whole.get(),
          poller.unavailable.get(),
          poller.refused.get(),
          poller.failoverMs(),
          poller.largest.get());
      assertThat(poller.problems).as("every answer whole or a 503 with Retry-After").isEmpty();
      assertThat(poller.whole.get()).isPositive();
      assertThat(poller.failoverMs()).as("whole again after the kill").isPositive();
      assertThat(after).hasSize(PODS);
      assertThat(after).isEqualTo(expected);
      assertThat(afterPreemptions).isEqualTo(expectedPreemptions);
    } finally {
      poller.stop.set(true);
      for (Instance i : instances) {
        i.process.destroy();
      }
      for (Instance i : instances) {
        i.process.waitFor();
      }
    }
  }

  /** The preemptions, one per victim (a second record for a victim would fail the check). */
  static Map<String, Preemption> preemptions(Topics t) {
    try (TopicReader<Preemption> r =
        new TopicReader<>(
            broker.bootstrapServers(),
            t.preemptions.name(),
            t.preemptions.valueSerde().deserializer())) {
      r.readUntil(rs -> rs.size() >= ROUNDS * 2, Duration.ofSeconds(60));
      List<ConsumerRecord<String, Preemption>> all = r.readFor(Duration.ofSeconds(2));
      Map<String, Preemption> byVictim = new TreeMap<>();
      for (ConsumerRecord<String, Preemption> p : all) {
        assertThat(byVictim.put(p.key(), p.value())).as("one preemption of " + p.key()).isNull();
      }
      return byVictim;
    }
  }

  /** One app instance in its own JVM, with a standby replica of every store. */
  record Instance(int index, int port, Process process) {
    static Instance start(int index) throws Exception {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path state = dir.resolve("three-" + index);
      Files.createDirectories(state);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> cmd =
          List.of(
              java,
              "-Xmx256m",
              "-XX:+UseSerialGC",
              "-cp",
              System.getProperty("java.class.path"),
              StreamsMain.class.getName(),
              "--topic-prefix",
              "three.",
              "--application-id",
              "three-app",
              "--state-dir",
              state.toString(),
              "--http-port",
              Integer.toString(port),
              "--num-standby-replicas",
              "1",
              // the inputs are days old and the end mark is now: keep every final queryable
              "--api-final-retention",
              "36500d",
              "--slo",
              "chat=1000",
              "--api-token",
              TOKEN);
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
      // A killed member leaves the group only when its session times out; keep that short here.
      pb.environment().put("KAFKA_SESSION_TIMEOUT_MS", "6000");
      pb.environment().put("KAFKA_HEARTBEAT_INTERVAL_MS", "1500");
      File log = state.resolve("app.log").toFile();
      pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
      return new Instance(index, port, pb.start());
    }

    String base() {
      return "http://127.0.0.1:" + port;
    }
  }

  /**
   * Asks every instance for the whole list of pods, again and again: each answer must be whole (as
   * many pods as the largest whole answer before it, or more: nothing is forgotten here) or a 503
   * with {@code Retry-After}; a stopped or starting instance may refuse the connection.
   */
  static final class Poller implements Runnable {
    final List<Instance> instances;
    final AtomicBoolean stop = new AtomicBoolean();
    final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    final AtomicLong whole = new AtomicLong();
    final AtomicLong unavailable = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong largest = new AtomicLong();
    final Set<Integer> stopped = ConcurrentHashMap.newKeySet();
    volatile long killedAt;
    volatile long wholeAgainAt;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    Poller(List<Instance> instances) {
      this.instances = instances;
    }

    void killed(Instance i) {
      stopped.add(i.index());
    }

    void markKill(long at) {
      killedAt = at;
    }

    long failoverMs() {
      return wholeAgainAt == 0 ? -1 : (wholeAgainAt - killedAt) / 1_000_000;
    }

    @Override
    public void run() {
      while (!stop.get()) {
        try {
          Thread.sleep(50); // the pace of the rounds (a starting instance refuses at once)
        } catch (InterruptedException e) {
          return;
        }
        for (Instance i : List.copyOf(instances)) {
          if (stop.get()) {
            return;
          }
          if (stopped.contains(i.index())) {
            continue; // killed: nothing listens there any more
          }
          long started = System.nanoTime();
          try {
            Integer n = fullList(i);
            if (n == null) {
              unavailable.incrementAndGet();
            } else {
              whole.incrementAndGet();
              long before = largest.getAndAccumulate(n, Math::max);
              if (n < before) {
                problems.add(
                    "instance "
                        + i.index()
                        + " answered "
                        + n
                        + " pods after an answer of "
                        + before);
              }
              if (killedAt != 0 && started > killedAt && wholeAgainAt == 0) {
                wholeAgainAt = System.nanoTime();
              }
            }
          } catch (ConnectException e) {
            refused.incrementAndGet();
          } catch (Exception e) {
            if (!stopped.contains(i.index())) {
              problems.add("instance " + i.index() + ": " + e);
            } else {
              refused.incrementAndGet();
            }
          }
        }
      }
    }

    /** Every pod of the list, page after page; null when a page answered 503. */
    Integer fullList(Instance i) throws Exception {
      Set<String> uids = new HashSet<>();
      String after = null;
      do {
        String url =
            i.base()
                + "/api/pods?state=all&limit=1000"
                + (after == null
                    ? ""
                    : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8));
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url))
                    .header("Authorization", "Bearer " + TOKEN)
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 503) {
          if (r.headers().firstValue("Retry-After").isEmpty()) {
            problems.add("a 503 without Retry-After from instance " + i.index());
          }
          return null;
        }
        if (r.statusCode() != 200) {
          problems.add("instance " + i.index() + " answered " + r.statusCode() + ": " + r.body());
          return null;
        }
        JsonNode page = JSON.readTree(r.body());
        for (JsonNode pod : page.path("pods")) {
          uids.add(pod.path("uid").asText());
        }
        after = page.hasNonNull("next") ? page.get("next").asText() : null;
      } while (after != null);
      return uids.size();
    }
  }
}
