package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector killed ({@code kill -9}) while a shipper sends request logs and it scrapes a
 * dcgm-exporter, then started again: every line it acknowledged (202, delivered) is in Kafka; the
 * pods that changed while it was away are reported by the relist (a deletion as DELETED, a new pod
 * as RELIST); the GPU samples have a hole where it was away, and the first sample after the restart
 * claims no span ({@code intervalMs} null: one scrape interval at the streams app), so the gap is
 * missing data, not busy or idle samples.
 */
class CollectorKillIT {

  static final ObjectMapper JSON = new ObjectMapper();
  static EmbeddedKafkaBroker broker;
  static MockKubernetes kube;
  static FakeDcgmExporter dcgm;

  @TempDir static Path dir;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.start();
    kube = new MockKubernetes();
    dcgm = new FakeDcgmExporter();
  }

  @AfterAll
  static void stop() {
    if (dcgm != null) {
      dcgm.close();
    }
    if (kube != null) {
      kube.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void shouldKeepEveryAcknowledgedLineAndRecoverByTheRelistWhenKilled() throws Exception {
    String ns = "kill-" + UUID.randomUUID().toString().substring(0, 8);
    String prefix = ns + ".";
    Topics topics = Topics.withPrefix(prefix);
    broker.createTopics(topics.newTopics(3, (short) 1));
    Map<String, String> uids = new HashMap<>();
    for (String name : List.of("keep", "gone-while-away")) {
      uids.put(name, create(ns, name));
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String intake = "http://127.0.0.1:" + port + "/v1/request-logs";
    Process first = collector(prefix, ns, port, "first");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    AtomicBoolean stop = new AtomicBoolean();
    Set<String> acknowledged = new TreeSet<>();
    Set<String> sent = new TreeSet<>();
    AtomicInteger failed = new AtomicInteger();
    Thread shipper =
        new Thread(
            () -> {
              long seq = 0;
              List<String> pending = null;
              while (!stop.get()) {
                if (pending == null) {
                  pending = new ArrayList<>();
                  for (int k = 0; k < 20; k++) {
                    pending.add("r-" + (++seq));
                  }
                }
                StringBuilder body = new StringBuilder();
                for (String id : pending) {
                  body.append(line(id)).append('\n');
                }
                synchronized (sent) {
                  sent.addAll(pending);
                }
                try {
                  HttpResponse<String> r =
                      http.send(
                          HttpRequest.newBuilder(URI.create(intake))
                              .timeout(Duration.ofSeconds(10))
                              .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                              .build(),
                          HttpResponse.BodyHandlers.ofString());
                  JsonNode answer = r.statusCode() == 202 ? JSON.readTree(r.body()) : null;
                  if (answer != null && answer.path("delivered").asBoolean(true)) {
                    synchronized (acknowledged) {
                      acknowledged.addAll(pending);
                    }
                    pending = null;
                  } else if (answer != null) {
                    pending = null; // taken, delivery under way: a shipper does not resend it
                  } else {
                    failed.incrementAndGet();
                  }
                } catch (IOException e) {
                  failed.incrementAndGet(); // refused or reset while it is away: sent again
                  try {
                    Thread.sleep(50); // a shipper's back-off, not a wait for a condition
                  } catch (InterruptedException stopped) {
                    return;
                  }
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "shipper");
    Process second = null;
    try {
      await("the first collector ready")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> status(http, "http://127.0.0.1:" + port + "/readyz") == 200);
      shipper.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> size(acknowledged) >= 400);
      first.destroyForcibly().waitFor();
      Instant killedAt = Instant.now();
      int acknowledgedBeforeKill = size(acknowledged);

      // While no collector runs: one pod goes away, one is created. fabric8's mock API server
      // answers a watch whose connection broke by waiting on its event loop, up to a minute, for
      // that watch's sender to stop (WatchEventsListener.onFailure: awaitTermination(1, MINUTES));
      // meanwhile it answers nothing (a CI run's POST timed out after 10 s). So each change is
      // made until it shows, as a client of a real API server retries.
      await("the pod deleted while no collector runs")
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(
              () -> {
                kube.client.pods().inNamespace(ns).withName("gone-while-away").delete();
                return kube.client.pods().inNamespace(ns).withName("gone-while-away").get() == null;
              });
      await("the pod created while no collector runs")
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(
              () -> {
                if (kube.client.pods().inNamespace(ns).withName("new-while-away").get() == null) {
                  create(ns, "new-while-away");
                }
                return kube.client.pods().inNamespace(ns).withName("new-while-away").get() != null;
              });
      uids.put(
          "new-while-away",
          kube.client
              .pods()
              .inNamespace(ns)
              .withName("new-while-away")
              .get()
              .getMetadata()
              .getUid());
      await().pollDelay(Duration.ofSeconds(3)).until(() -> true); // away for a few scrapes
      second = collector(prefix, ns, port, "second");
      Instant restartedAt = Instant.now();
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> size(acknowledged) >= acknowledgedBeforeKill + 400);
      stop.set(true);
      shipper.join(30_000);

      Set<String> inKafka = new TreeSet<>();
      try (TopicReader<RequestLog> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.requests.name(),
              topics.requests.valueSerde().deserializer())) {
        r.readUntil(
            rs -> {
              rs.forEach(x -> inKafka.add(x.value().getRequestId()));
              return inKafka.containsAll(acknowledged);
            },
            Duration.ofSeconds(60));
        r.values().forEach(v -> inKafka.add(v.getRequestId()));
      }
      Set<String> lost = new TreeSet<>(acknowledged);
      lost.removeAll(inKafka);
      Map<String, List<ChangeType>> changes = new TreeMap<>();
      try (TopicReader<PodObservation> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.pods.name(),
              topics.pods.valueSerde().deserializer())) {
        List<ConsumerRecord<String, PodObservation>> all =
            r.readUntil(
                rs ->
                    rs.stream()
                            .anyMatch(
                                x ->
                                    x.key().equals(uids.get("gone-while-away"))
                                        && x.value().getChangeType() == ChangeType.DELETED)
                        && rs.stream().anyMatch(x -> x.key().equals(uids.get("new-while-away"))),
                Duration.ofSeconds(60));
        for (ConsumerRecord<String, PodObservation> x : all) {
          changes.computeIfAbsent(x.key(), k -> new ArrayList<>()).add(x.value().getChangeType());
        }
      }
      List<GpuSample> samples = new ArrayList<>();
      try (TopicReader<GpuSample> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.gpuSamples.name(),
              topics.gpuSamples.valueSerde().deserializer())) {
        samples.addAll(
            r
                .readUntil(
                    rs ->
                        rs.stream().anyMatch(x -> x.value().getTime() > restartedAt.toEpochMilli()),
                    Duration.ofSeconds(60))
                .stream()
                .map(ConsumerRecord::value)
                .toList());
      }
      System.out.printf(
          "CollectorKillIT: %d lines acknowledged (%d before the kill -9), %d sent, %d attempts"
              + " refused or unanswered; %d acknowledged lines not in Kafka%n",
          size(acknowledged), acknowledgedBeforeKill, size(sent), failed.get(), lost.size());
      assertThat(lost).as("acknowledged lines not in Kafka").isEmpty();
      assertThat(failed.get()).as("attempts while it was away").isPositive();
      assertThat(changes.get(uids.get("gone-while-away"))).contains(ChangeType.DELETED);
      assertThat(changes.get(uids.get("new-while-away"))).containsExactly(ChangeType.RELIST);
      assertThat(changes.get(uids.get("keep")))
          .as("listed by the first collector, not reported again after the restart")
          .containsExactly(ChangeType.RELIST);
      // The GPU samples: nothing stands for the time it was away.
      Map<String, List<GpuSample>> byGpu = new TreeMap<>();
      samples.forEach(s -> byGpu.computeIfAbsent(s.getUuid(), k -> new ArrayList<>()).add(s));
      assertThat(byGpu).isNotEmpty();
      for (List<GpuSample> gpu : byGpu.values()) {
        gpu.sort((a, b) -> Long.compare(a.getTime(), b.getTime()));
        GpuSample firstAfter =
            gpu.stream()
                .filter(s -> s.getTime() >= killedAt.toEpochMilli())
                .findFirst()
                .orElseThrow();
        assertThat(firstAfter.getIntervalMs())
            .as("the first sample after the restart claims no span across the gap")
            .isNull();
      }
    } finally {
      stop.set(true);
      first.destroyForcibly();
      if (second != null) {
        second.destroy();
        second.waitFor();
      }
    }
  }

  static int size(Set<String> s) {
    synchronized (s) {
      return s.size();
    }
  }

  static String create(String ns, String name) {
    Pod p = CollectorIT.gpuPod(ns, name, 1);
    return kube.client.pods().inNamespace(ns).resource(p).create().getMetadata().getUid();
  }

  static String line(String id) {
    return "{\"time\":\""
        + Instant.now()
        + "\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\",\"service\":\"chat\",\"status\":200,"
        + "\"latency_ms\":40,\"request_id\":\""
        + id
        + "\"}";
  }

  static int status(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /**
   * The collector in its own JVM, as deployed, so that it can be killed without a chance to close.
   */
  static Process collector(String prefix, String ns, int port, String name) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        List.of(
            java,
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            CollectorMain.class.getName(),
            "--kubernetes-master",
            kube.url(),
            "--namespaces",
            ns,
            "--topic-prefix",
            prefix,
            "--http-port",
            Integer.toString(port),
            "--dcgm-discovery",
            "false",
            "--dcgm-targets",
            dcgm.url("/metrics"),
            "--scrape-interval",
            "1s",
            "--intake-auth",
            "none");
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    File log = dir.resolve("collector-" + name + ".log").toFile();
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    return pb.start();
  }
}
