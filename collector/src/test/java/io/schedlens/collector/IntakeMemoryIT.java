package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.RequestLog;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector in its own JVM as the chart runs it (its heap, {@code -Xmx640m}, its GC, exit on
 * OutOfMemoryError), sent the bodies that killed it when the intake built whole trees: a JSON array
 * whose one element is 16 MiB of nested empty objects, OTLP JSON and OTLP protobuf of millions of
 * empty resource entries, and a body of a million bad lines; each alone, then four at once. Each is
 * answered 4xx (of four at once, one may find the intake's 48 MiB in flight taken by three 16 MiB
 * bodies, and is answered 503, to be sent again), the process lives on and stays ready, and the
 * good batches sent before and after are delivered, each line once. With Kafka away the same bodies
 * are answered and the process lives.
 */
class IntakeMemoryIT {

  static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_BODY = 16 << 20;

  static EmbeddedKafkaBroker broker;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  /** A hostile body: where it goes, its content type, and the answer it must get. */
  record Hostile(String name, String path, String contentType, byte[] body, int answer) {}

  static List<Hostile> hostile() {
    List<Hostile> bodies = new ArrayList<>();
    // [{"a":[{},{},…]}]: one element of 16 MiB, over the line limit: rejected unparsed (400).
    StringBuilder nested = new StringBuilder(MAX_BODY).append("[{\"a\":[{}");
    while (nested.length() < MAX_BODY - 16) {
      nested.append(",{}");
    }
    bodies.add(
        new Hostile(
            "a JSON array of one 16 MiB element",
            "/v1/request-logs",
            "application/json",
            nested.append("]}]").toString().getBytes(StandardCharsets.UTF_8),
            400));
    // {"resourceSpans":[{},…]}: millions of items, past intake.max.items (413).
    StringBuilder otlpJson = new StringBuilder(MAX_BODY).append("{\"resourceSpans\":[{}");
    while (otlpJson.length() < MAX_BODY - 16) {
      otlpJson.append(",{}");
    }
    bodies.add(
        new Hostile(
            "OTLP JSON of 5.6 million empty resource entries",
            "/v1/traces",
            "application/json",
            otlpJson.append("]}").toString().getBytes(StandardCharsets.UTF_8),
            413));
    // 8.4 million empty ResourceSpans (field 1, length 0: two bytes each) (413).
    byte[] protobuf = new byte[MAX_BODY - (MAX_BODY % 2)];
    for (int i = 0; i < protobuf.length; i += 2) {
      protobuf[i] = 0x0A;
    }
    bodies.add(
        new Hostile(
            "OTLP protobuf of 8.4 million empty resource entries",
            "/v1/traces",
            "application/x-protobuf",
            protobuf,
            413));
    // A million lines of garbage, past intake.max.items (413).
    byte[] million = new byte[2 << 20];
    for (int i = 0; i < million.length; i += 2) {
      million[i] = 'x';
      million[i + 1] = '\n';
    }
    bodies.add(
        new Hostile(
            "a million bad lines", "/v1/request-logs", "application/x-ndjson", million, 413));
    return bodies;
  }

  @Test
  void shouldAnswerEveryHostileBodyAndDeliverTheGoodBatchesAroundThem() throws Exception {
    String prefix = "mem.";
    Topics topics = Topics.withPrefix(prefix);
    broker.createTopics(topics.newTopics(1, (short) 1));
    int port = freePort();
    Process collector = collector(prefix, port, broker.bootstrapServers(), "kafka-up");
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + port;
    try {
      awaitReady(http, base);
      HttpResponse<String> before = post(http, base, "/v1/request-logs", null, good("before", 500));
      assertThat(before.statusCode()).isEqualTo(202);

      List<Hostile> bodies = hostile();
      Map<String, Integer> answered = new LinkedHashMap<>();
      for (Hostile h : bodies) {
        answered.put(h.name() + ", alone", post(http, base, h).statusCode());
        assertThat(collector.isAlive()).as("alive after " + h.name()).isTrue();
      }
      for (Hostile h : bodies) {
        List<CompletableFuture<HttpResponse<String>>> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          four.add(CompletableFuture.supplyAsync(() -> postQuietly(http, base, h)));
        }
        int refusedForRoom = 0;
        for (int i = 0; i < four.size(); i++) {
          HttpResponse<String> r = four.get(i).get();
          answered.put(h.name() + ", four at once #" + (i + 1), r.statusCode());
          if (r.statusCode() == 503) {
            assertThat(r.body()).contains("intake.max.inflight.bytes");
            refusedForRoom++;
          } else {
            assertThat(r.statusCode()).as(h.name() + ", four at once").isEqualTo(h.answer());
          }
        }
        assertThat(refusedForRoom)
            .as("refused for room, of four " + h.name())
            .isLessThanOrEqualTo(1);
        assertThat(collector.isAlive()).as("alive after four of " + h.name()).isTrue();
      }
      System.out.println("IntakeMemoryIT: answers " + answered);
      for (Hostile h : bodies) {
        assertThat(answered.get(h.name() + ", alone")).as(h.name()).isEqualTo(h.answer());
      }
      assertThat(get(http, base + "/readyz").statusCode()).as("ready after it all").isEqualTo(200);

      // Bad lines within the bounds are dead-lettered, a few letters for all of them.
      byte[] bad =
          IntStream.range(0, 80_000)
              .mapToObj(i -> "not a request-log line")
              .collect(Collectors.joining("\n"))
              .getBytes(StandardCharsets.UTF_8);
      HttpResponse<String> r = post(http, base, "/v1/request-logs", null, bad);
      assertThat(r.statusCode()).isEqualTo(400);
      JsonNode answer = JSON.readTree(r.body());
      assertThat(answer.get("rejectedByReason").get("malformed-json").asInt()).isEqualTo(80_000);
      assertThat(answer.get("errors")).as("examples, not every line").hasSizeLessThanOrEqualTo(10);

      HttpResponse<String> after = post(http, base, "/v1/request-logs", null, good("after", 500));
      assertThat(after.statusCode()).isEqualTo(202);
      assertThat(JSON.readTree(after.body()).has("delivered"))
          .as("delivered, not only buffered")
          .isFalse();

      try (TopicReader<RequestLog> requests =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.requests.name(),
              topics.requests.valueSerde().deserializer())) {
        List<ConsumerRecord<String, RequestLog>> read =
            requests.readUntil(rs -> rs.size() >= 1000, Duration.ofSeconds(60));
        List<String> ids =
            read.stream().map(c -> String.valueOf(c.value().getRequestId())).toList();
        assertThat(ids).hasSize(1000).doesNotHaveDuplicates();
        assertThat(ids.stream().filter(id -> id.startsWith("before-"))).hasSize(500);
        assertThat(ids.stream().filter(id -> id.startsWith("after-"))).hasSize(500);
      }
      try (TopicReader<DeadLetter> dlq =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.deadLetters.name(),
              topics.deadLetters.valueSerde().deserializer())) {
        // the 80,000 bad lines, and the 16 MiB element's head each time it was answered 400
        long elements =
            answered.entrySet().stream()
                .filter(e -> e.getKey().startsWith(bodies.get(0).name()) && e.getValue() == 400)
                .count();
        List<ConsumerRecord<String, DeadLetter>> dead =
            dlq.readUntil(rs -> lines(rs) >= 80_000 + elements, Duration.ofSeconds(60));
        assertThat(lines(dead)).isEqualTo(80_000 + elements);
      }
    } finally {
      collector.destroyForcibly().waitFor();
      System.out.println(
          "collector log tail:\n" + tail(Files.readAllLines(dir.resolve("kafka-up.log")), 20));
    }
  }

  @Test
  void shouldAnswerTheHostileBodiesAndLiveWhileKafkaIsAway() throws Exception {
    int port = freePort();
    int nowhere = freePort();
    Process collector = collector("away.", port, "127.0.0.1:" + nowhere, "kafka-away");
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + port;
    try {
      await("the collector answering")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> get(http, base + "/healthz").statusCode() == 200);
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (Hostile h : hostile()) {
        for (int i = 0; i < 4; i++) {
          answers.add(CompletableFuture.supplyAsync(() -> postQuietly(http, base, h)));
        }
      }
      for (CompletableFuture<HttpResponse<String>> a : answers) {
        // 503 (sent again once Kafka is back: nothing taken) or 413 (never to be taken)
        assertThat(a.get().statusCode()).isIn(413, 503);
      }
      assertThat(collector.isAlive()).isTrue();
      assertThat(get(http, base + "/healthz").statusCode()).isEqualTo(200);
    } finally {
      collector.destroyForcibly().waitFor();
      System.out.println(
          "collector log tail:\n" + tail(Files.readAllLines(dir.resolve("kafka-away.log")), 10));
    }
  }

  static byte[] good(String id, int lines) {
    return IntStream.range(0, lines)
        .mapToObj(
            i ->
                "{\"time\":\""
                    + Instant.now()
                    + "\",\"namespace\":\"ai-lab\",\"pod\":\"chat-"
                    + (i % 3)
                    + "\",\"service\":\"chat\",\"status\":200,\"latency_ms\":40,"
                    + "\"request_id\":\""
                    + id
                    + "-"
                    + i
                    + "\"}")
        .collect(Collectors.joining("\n"))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** How many raw lines the dead letters hold. */
  static long lines(List<ConsumerRecord<String, DeadLetter>> dead) {
    long n = 0;
    for (ConsumerRecord<String, DeadLetter> d : dead) {
      ByteBuffer raw = d.value().getValue().duplicate();
      n++; // lines are separated by newlines: one more line than newlines
      while (raw.hasRemaining()) {
        if (raw.get() == '\n') {
          n++;
        }
      }
    }
    return n;
  }

  static String tail(List<String> lines, int n) {
    return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static void awaitReady(HttpClient http, String base) {
    await("the collector ready")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> get(http, base + "/readyz").statusCode() == 200);
  }

  static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(HttpClient http, String base, Hostile h) throws Exception {
    return post(http, base, h.path(), h.contentType(), h.body());
  }

  static HttpResponse<String> postQuietly(HttpClient http, String base, Hostile h) {
    try {
      return post(http, base, h);
    } catch (Exception e) {
      throw new IllegalStateException(h.name() + ": " + e, e);
    }
  }

  static HttpResponse<String> post(
      HttpClient http, String base, String path, String contentType, byte[] body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", contentType == null ? "application/x-ndjson" : contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The collector as the chart runs it: its heap, its GC, its exit on OutOfMemoryError. */
  static Process collector(String prefix, int port, String bootstrap, String name)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            java,
            "-Xmx640m",
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            "-cp",
            System.getProperty("java.class.path"),
            CollectorMain.class.getName(),
            "--kubernetes-enabled",
            "false",
            "--topic-prefix",
            prefix,
            "--http-port",
            Integer.toString(port),
            "--intake-auth",
            "none");
    pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    File log = dir.resolve(name + ".log").toFile();
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    return pb.start();
  }
}
