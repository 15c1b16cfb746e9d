package io.schedlens.cli.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.PodTimeline;
import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.runs.demo.TimelineCollector;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.pollinterval.IterativePollInterval;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact counts when a log shipper retries, through a broker outage: collector intake, real broker,
 * streams app. The shipper behaves as Fluent Bit's and Vector's HTTP outputs do: it resends a batch
 * until it gets a 2xx, and sometimes resends one that was taken (its 202 lost on the way back).
 * Every batch carries one line the intake must refuse (a time Kafka would refuse, an ancient one,
 * an absurd or negative latency) beside good ones. While it ships, the broker is stopped for some
 * seconds (long enough for the collector to see Kafka gone and answer 503) and started again. The
 * final timelines must count each distinct good line once: requests, errors and SLO breaches.
 */
class ShipperRetriesIT {

  static final String NAMESPACE = "ai-lab";
  static final double SLO_MS = 100;
  static final int PODS = 3;

  /** Batches the intake takes before the broker is stopped, and again after it is back. */
  static final int BATCHES_AROUND_THE_OUTAGE = 40;

  static EmbeddedKafkaBroker broker;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir Path stateDir;

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

  /** What a pod's distinct good lines add up to. */
  static final class Expected {
    int requests;
    int errors;
    int breaches;
  }

  @Test
  void shouldCountEveryDistinctLineOnceThroughRetriesDuplicatesAndABrokerOutage() throws Exception {
    String prefix = "ship-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    Topics topics = Topics.withPrefix(prefix);
    int partitions = 3;
    broker.createTopics(topics.newTopics(partitions, (short) 1));
    Map<String, String> kafka = Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());

    Collector collector =
        Collector.start(
            CollectorConfig.from(
                CommandLineSettings.load(
                    CollectorConfig.DEF,
                    List.of(
                        "--kubernetes-enabled", "false",
                        "--topic-prefix", prefix,
                        "--http-port", "0",
                        "--progress-interval", "100ms",
                        "--progress-allowance", "2s",
                        "--intake-resend-window", "10s",
                        "--intake-auth", "none"),
                    kafka)),
            null,
            Clock.systemUTC());
    StreamsApp app =
        StreamsApp.start(
            StreamsAppConfig.from(
                CommandLineSettings.load(
                    StreamsAppConfig.DEF,
                    List.of(
                        "--topic-prefix", prefix,
                        "--application-id", "ship-app",
                        "--state-dir", stateDir.toString(),
                        "--http-port", "0",
                        "--emit-interval", "200ms",
                        "--grace-period", "20s",
                        "--slo", "chat=" + (long) SLO_MS,
                        "--api-auth", "none"),
                    kafka)));
    // The pods, as the collector would project them from the API; their topics marked by this
    // test (the collector marks the request-log and GPU topics it writes).
    InputProducer pods = new InputProducer(broker.bootstrapServers(), topics, partitions);
    pods.hold(topics.requests.name()).hold(topics.gpuSamples.name());
    AtomicBoolean outageDone = new AtomicBoolean();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> collector.readiness().ready());
      long start = System.currentTimeMillis();
      Map<String, Pod> live = new LinkedHashMap<>();
      PodProjection projection = new PodProjection(List.of(), List.of());
      for (int i = 0; i < PODS; i++) {
        Pod p = servingPod("chat-" + i, start - 5_000);
        live.put(p.getMetadata().getName(), p);
        pods.produce(List.of(projection.project(p, ChangeType.ADDED, start - 4_000)));
      }

      // The broker goes away once the shipper is under way, and comes back once the collector
      // has noticed and answered the shipper with a 503 (or could not be reached) a few times.
      AtomicInteger taken = new AtomicInteger();
      AtomicInteger unavailable = new AtomicInteger();
      AtomicLong outageMs = new AtomicLong();
      Thread outage =
          new Thread(
              () -> {
                await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> taken.get() >= BATCHES_AROUND_THE_OUTAGE);
                long down = System.nanoTime();
                broker.stop();
                try {
                  await().atMost(Duration.ofSeconds(60)).until(() -> unavailable.get() >= 3);
                } finally {
                  broker.restart();
                  outageMs.set((System.nanoTime() - down) / 1_000_000);
                  outageDone.set(true);
                }
              },
              "broker-outage");
      outage.start();
      // The pod topics' marks, written on their own clock as the collector writes them, whatever
      // the shipper does: a producer on a stopped broker may block its caller for a minute (its
      // metadata wait), which would stop the shipper for the whole outage and hide its 503s.
      ScheduledExecutorService podMarks =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "pod-marks");
                t.setDaemon(true); // a failed test does not keep the JVM
                return t;
              });
      podMarks.scheduleWithFixedDelay(
          () -> pods.mark(System.currentTimeMillis() - 1_000), 0, 100, TimeUnit.MILLISECONDS);

      SplittableRandom random = new SplittableRandom(42);
      Map<String, Expected> expected = new TreeMap<>();
      AtomicInteger resent = new AtomicInteger();
      java.util.Set<String> refusedIds = new java.util.TreeSet<>();
      List<String> answers = new ArrayList<>();
      long seq = 0;
      int batchNo = 0;
      int takenAfterOutage = 0;
      while (takenAfterOutage < BATCHES_AROUND_THE_OUTAGE) {
        long now = System.currentTimeMillis();
        assertThat(now - start).as("shipping time, outage included").isLessThan(300_000);
        List<String> batch = new ArrayList<>();
        for (String name : live.keySet()) {
          for (int k = 0; k < 4; k++) {
            seq++;
            int status = seq % 7 == 0 ? 500 : 200;
            double latency = seq % 5 == 0 ? 250 : 40;
            batch.add(line(now - k * 10, name, status, latency, "req-" + seq));
            Expected e = expected.computeIfAbsent(name, n -> new Expected());
            e.requests++;
            e.errors += status >= 500 ? 1 : 0;
            e.breaches += latency > SLO_MS ? 1 : 0;
          }
        }
        batch.add(badLine(batchNo++, now, "chat-0", "bad-" + seq));
        refusedIds.add("bad-" + seq);
        String body = String.join("\n", batch) + "\n";
        String answer = sendUntilTaken(collector, body, unavailable);
        answers.add(answer);
        taken.incrementAndGet();
        if (outageDone.get()) {
          takenAfterOutage++;
        }
        if (random.nextInt(4) == 0) {
          // the 202 was lost on its way back: the shipper sends the batch again
          sendUntilTaken(collector, body, unavailable);
          resent.incrementAndGet();
        }
      }
      podMarks.shutdown();
      assertThat(podMarks.awaitTermination(90, TimeUnit.SECONDS)).as("pod marks stopped").isTrue();
      outage.join();

      long end = System.currentTimeMillis();
      for (Pod p : live.values()) {
        pods.produce(List.of(projection.project(gone(p, end), ChangeType.DELETED, end)));
      }
      pods.end();

      System.out.printf(
          "shipper: %d distinct good lines, %d refused lines, %d batches sent twice, %d answers"
              + " not 2xx or no answer (broker down %d ms)%n",
          expected.values().stream().mapToInt(e -> e.requests).sum(),
          refusedIds.size(),
          resent.get(),
          unavailable.get(),
          outageMs.get());
      assertThat(unavailable.get())
          .as("503s or refused connections during the outage")
          .isPositive();
      assertThat(resent.get()).as("batches sent twice").isPositive();
      assertThat(answers)
          .anyMatch(a -> a.contains("time-out-of-range"))
          .anyMatch(a -> a.contains("latency-out-of-range"))
          .anyMatch(a -> a.contains("invalid-field"));

      Map<String, PodTimeline> finals;
      try (TimelineCollector timelines =
          new TimelineCollector(Map.of("bootstrap.servers", broker.bootstrapServers()), topics)) {
        java.util.Set<String> uids = new java.util.TreeSet<>();
        live.values().forEach(p -> uids.add(p.getMetadata().getUid()));
        finals = timelines.awaitFinals(uids, Duration.ofSeconds(120), System.out::println);
      }
      assertThat(finals).as("final timelines").hasSize(PODS);
      assertThat(BrokerFaultsIT.lateByKind(app).getOrDefault("request", 0.0))
          .as("request lines late")
          .isZero();
      for (Map.Entry<String, Expected> e : expected.entrySet()) {
        PodTimeline t =
            finals.values().stream()
                .filter(f -> f.getName().equals(e.getKey()))
                .findFirst()
                .orElseThrow();
        assertThat(t.getRequests())
            .as("requests of %s", e.getKey())
            .isEqualTo(e.getValue().requests);
        assertThat(t.getErrors()).as("errors of %s", e.getKey()).isEqualTo(e.getValue().errors);
        assertThat(t.getSloBreaches())
            .as("SLO breaches of %s", e.getKey())
            .isEqualTo(e.getValue().breaches);
      }
      try (TopicReader<DeadLetter> dlq =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.deadLetters.name(),
              topics.deadLetters.valueSerde().deserializer())) {
        List<ConsumerRecord<String, DeadLetter>> dead = dlq.readFor(Duration.ofSeconds(3));
        assertThat(dead)
            .as("dead letters other than the lines the intake refused")
            .filteredOn(d -> !"request-logs".equals(d.key()))
            .extracting(d -> d.value().getReason() + ": " + d.value().getDetail())
            .isEmpty();
        // A batch whose answer timed out was sent again: its refused line may be there twice.
        java.util.Set<String> deadIds = new java.util.TreeSet<>();
        for (ConsumerRecord<String, DeadLetter> d : dead) {
          String v = StandardCharsets.UTF_8.decode(d.value().getValue()).toString();
          deadIds.add(v.replaceAll(".*\"request_id\":\"([^\"]+)\".*", "$1"));
        }
        assertThat(deadIds).as("each refused line, in the dead letters").isEqualTo(refusedIds);
      }
    } finally {
      pods.close();
      app.close();
      collector.close();
      if (!outageDone.get()) {
        broker.restart();
      }
    }
  }

  /**
   * Posts a batch until the intake takes it (any 2xx), as a shipper does: a 503, another non-2xx or
   * a refused connection is retried after a short back-off. The shipper waits for an answer longer
   * than the intake waits for Kafka's acknowledgement ({@code intake.ack.timeout}, 10 s), as Fluent
   * Bit and Vector do by default. Returns the answer's body.
   */
  static String sendUntilTaken(Collector c, String body, AtomicInteger unavailable) {
    return sendUntilTaken(c, body, unavailable, Duration.ofMinutes(2));
  }

  /** {@link #sendUntilTaken(Collector, String, AtomicInteger)}, trying for up to {@code atMost}. */
  static String sendUntilTaken(
      Collector c, String body, AtomicInteger unavailable, Duration atMost) {
    AtomicReference<String> answer = new AtomicReference<>();
    // The shipper's back-off between attempts: 100 ms, doubling up to 1 s, as Fluent Bit's.
    await("the intake takes the batch")
        .atMost(atMost)
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .pollInterval(
            IterativePollInterval.iterative(
                d -> min(d.multipliedBy(2), Duration.ofSeconds(1)), Duration.ofMillis(100)))
        .until(
            () -> {
              try {
                HttpResponse<String> r =
                    HTTP.send(
                        HttpRequest.newBuilder(URI.create(c.baseUrl() + "/v1/request-logs"))
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/x-ndjson")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() / 100 == 2) {
                  answer.set(r.body());
                  return true;
                }
              } catch (java.io.IOException e) {
                // refused or reset while Kafka or the collector is away: retried
              }
              unavailable.incrementAndGet();
              return false;
            });
    return answer.get();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  static String line(long time, String pod, int status, double latency, String id) {
    return "{\"time\":\""
        + Instant.ofEpochMilli(time)
        + "\",\"namespace\":\""
        + NAMESPACE
        + "\",\"pod\":\""
        + pod
        + "\",\"service\":\"chat\",\"status\":"
        + status
        + ",\"latency_ms\":"
        + latency
        + ",\"request_id\":\""
        + id
        + "\"}";
  }

  /** A line the intake must refuse on its own: four kinds in turn. */
  static String badLine(int n, long now, String pod, String id) {
    return switch (n % 4) {
      case 0 -> line(now + Duration.ofHours(2).toMillis(), pod, 200, 40, id); // Kafka would refuse
      case 1 -> line(Instant.parse("2020-01-01T00:00:00Z").toEpochMilli(), pod, 200, 40, id);
      case 2 -> line(now, pod, 200, 1e308, id); // would poison the latency sketch
      default -> line(now, pod, 200, -3, id);
    };
  }

  static Pod servingPod(String name, long created) {
    String t = Instant.ofEpochMilli(created).toString();
    String ready = Instant.ofEpochMilli(created + 1_000).toString();
    Map<String, Quantity> gpu = new HashMap<>(Map.of("nvidia.com/gpu", new Quantity("1")));
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .withResourceVersion("100")
        .withCreationTimestamp(t)
        .endMetadata()
        .withNewSpec()
        .withPriorityClassName("interactive")
        .withPriority(100000)
        .withNodeName("gpu-node-1")
        .addNewContainer()
        .withName("server")
        .withNewResources()
        .withLimits(gpu)
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addToConditions(
            new PodConditionBuilder()
                .withType("PodScheduled")
                .withStatus("True")
                .withLastTransitionTime(t)
                .build(),
            new PodConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withLastTransitionTime(ready)
                .build())
        .addToContainerStatuses(
            new ContainerStatusBuilder()
                .withName("server")
                .withReady(true)
                .withNewState()
                .withNewRunning()
                .withStartedAt(t)
                .endRunning()
                .endState()
                .build())
        .endStatus()
        .build();
  }

  /** The pod as its DELETED watch event shows it: its container ended at {@code end}. */
  static Pod gone(Pod p, long end) {
    String t = Instant.ofEpochMilli(end).toString();
    return new PodBuilder(p)
        .editMetadata()
        .withResourceVersion("200")
        .withDeletionTimestamp(t)
        .withDeletionGracePeriodSeconds(0L)
        .endMetadata()
        .editStatus()
        .withPhase("Succeeded")
        .withContainerStatuses(
            new ContainerStatusBuilder()
                .withName("server")
                .withReady(false)
                .withNewState()
                .withNewTerminated()
                .withStartedAt(p.getMetadata().getCreationTimestamp())
                .withFinishedAt(t)
                .withExitCode(0)
                .withReason("Completed")
                .endTerminated()
                .endState()
                .build())
        .endStatus()
        .build();
  }
}
