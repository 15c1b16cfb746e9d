package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.DeadLetter;
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
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector in its own JVM with the manifests' GC and exit on OutOfMemoryError and a heap well
 * under theirs ({@code -Xmx384m}, where they give 640m): bodies of garbage (2 MiB of {@code x\n}, a
 * million bad lines each) are answered 400 with the lines counted by reason, their bytes reach the
 * dead-letter topic in a few bounded dead letters, the process lives on and stays ready, and a good
 * batch afterwards is delivered (202, not merely buffered).
 */
class IntakeMemoryIT {

  static final ObjectMapper JSON = new ObjectMapper();
  static final int GARBAGE_BYTES = 2 << 20;
  static final int GARBAGE_BODIES = 3;

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

  @Test
  void shouldAnswerBodiesOfGarbageWithinTheManifestsHeapAndTakeTheNextGoodBatch() throws Exception {
    String prefix = "mem.";
    Topics topics = Topics.withPrefix(prefix);
    broker.createTopics(topics.newTopics(1, (short) 1));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process collector = collector(prefix, port);
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + port;
    try {
      await("the collector ready")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> get(http, base + "/readyz").statusCode() == 200);
      byte[] garbage = new byte[GARBAGE_BYTES];
      for (int i = 0; i < garbage.length; i += 2) {
        garbage[i] = 'x';
        garbage[i + 1] = '\n';
      }
      for (int n = 0; n < GARBAGE_BODIES; n++) {
        HttpResponse<String> r = post(http, base, garbage);
        assertThat(r.statusCode())
            .as("answer to %,d bytes of garbage", garbage.length)
            .isEqualTo(400);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("rejected").asInt()).isEqualTo(GARBAGE_BYTES / 2);
        assertThat(answer.get("rejectedByReason").get("malformed-json").asInt())
            .isEqualTo(GARBAGE_BYTES / 2);
        assertThat(answer.get("errors"))
            .as("examples, not every line")
            .hasSizeLessThanOrEqualTo(10);
        assertThat(collector.isAlive()).isTrue();
      }
      assertThat(get(http, base + "/readyz").statusCode())
          .as("ready after the garbage")
          .isEqualTo(200);

      String good =
          "{\"time\":\""
              + Instant.now()
              + "\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\",\"service\":\"chat\","
              + "\"status\":200,\"latency_ms\":40,\"request_id\":\"good-1\"}\n";
      HttpResponse<String> r = post(http, base, good.getBytes(StandardCharsets.UTF_8));
      assertThat(r.statusCode()).isEqualTo(202);
      assertThat(JSON.readTree(r.body()).has("delivered"))
          .as("delivered, not only buffered")
          .isFalse();
      assertThat(JSON.readTree(r.body()).get("accepted").asInt()).isEqualTo(1);

      try (TopicReader<DeadLetter> dlq =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.deadLetters.name(),
              topics.deadLetters.valueSerde().deserializer())) {
        List<ConsumerRecord<String, DeadLetter>> dead =
            dlq.readUntil(
                rs -> lines(rs) >= (long) GARBAGE_BODIES * GARBAGE_BYTES / 2,
                Duration.ofSeconds(60));
        long lines = lines(dead);
        System.out.printf(
            "IntakeMemoryIT: %d bodies of %,d bad lines in %d dead letters (%,d lines in all)%n",
            GARBAGE_BODIES, GARBAGE_BYTES / 2, dead.size(), lines);
        assertThat(lines).isEqualTo((long) GARBAGE_BODIES * GARBAGE_BYTES / 2);
        assertThat(dead.size())
            .as("dead letters of at most dlq.max.value.bytes each")
            .isLessThanOrEqualTo(GARBAGE_BODIES * (GARBAGE_BYTES / (64 << 10) + 1));
        assertThat(dead.get(0).value().getDetail()).startsWith("lines 1-");
      }
    } finally {
      collector.destroyForcibly().waitFor();
      System.out.println(
          "collector log tail:\n" + tail(Files.readAllLines(dir.resolve("collector.log")), 20));
    }
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

  static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(HttpClient http, String base, byte[] body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + "/v1/request-logs"))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/x-ndjson")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The collector as the manifests run it: its heap, its GC, its exit on OutOfMemoryError. */
  static Process collector(String prefix, int port) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            java,
            "-Xmx384m",
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
    pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    File log = dir.resolve("collector.log").toFile();
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    return pb.start();
  }
}
