package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.RequestLog;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The request-log intake and the dcgm-exporter scraper over real HTTP into a real broker. */
class CollectorHttpIT {

  static final String TOKEN = "intake-token-0123456789abcdef0123456789";

  static EmbeddedKafkaBroker broker;
  static final HttpClient HTTP = HttpClient.newHttpClient();

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

  static Collector collector(String prefix, String... extra) {
    broker.createTopics(Topics.withPrefix(prefix).newTopics(1, (short) 1));
    return collectorWithoutTopics(prefix, extra);
  }

  /** A collector on the shared broker, its topics not created. */
  static Collector collectorWithoutTopics(String prefix, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--kubernetes-enabled",
                "false",
                "--topic-prefix",
                prefix,
                "--http-port",
                "0",
                // the lines are of a fixed day, which the collector's clock leaves behind: no age
                // bound here (RequestLogParserTest holds it)
                "--time-max-age",
                "36500d"));
    if (!List.of(extra).contains("--intake-token")) {
      args.addAll(List.of("--intake-auth", "none"));
    }
    args.addAll(List.of(extra));
    Collector c =
        Collector.start(
            CollectorConfig.from(
                CommandLineSettings.load(
                    CollectorConfig.DEF,
                    args,
                    Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()))),
            null,
            Clock.systemUTC());
    await().atMost(Duration.ofSeconds(20)).until(() -> c.readiness().ready());
    return c;
  }

  static HttpResponse<String> post(Collector c, byte[] body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(c.baseUrl() + "/v1/request-logs"))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String line(String pod, int status, double latency) {
    return "{\"time\":\"2026-11-29T10:00:00.500Z\",\"namespace\":\"ai-lab\",\"pod\":\""
        + pod
        + "\",\"service\":\"chat\",\"status\":"
        + status
        + ",\"latency_ms\":"
        + latency
        + "}";
  }

  @Test
  void shouldAcceptJsonLinesAndDeadLetterTheBadOnes() throws Exception {
    String prefix = "intake-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    Topics topics = Topics.withPrefix(prefix);
    try (Collector c = collector(prefix, "--intake-max-line-bytes", "300")) {
      HttpResponse<String> good =
          post(
              c,
              utf8(
                  line("chat-0", 200, 41.5)
                      + "\n"
                      + line("chat-1", 503, 12)
                      + "\n\n"
                      + line("chat-0", 200, 7)
                      + "\n"));
      assertThat(good.statusCode()).isEqualTo(202);
      assertThat(good.body()).contains("\"accepted\":3").contains("\"rejected\":0");

      String tooLong = "{\"pad\":\"" + "x".repeat(400) + "\"}";
      HttpResponse<String> mixed =
          post(
              c,
              utf8(
                  line("chat-2", 200, 1)
                      + "\n{\"time\": 1,\n"
                      + "{\"time\":1764411330250,\"namespace\":\"ai-lab\",\"pod\":\"p\",\"latency_ms\":3}\n"
                      + tooLong
                      + "\n"
                      + line("chat-2", 200, 2)));
      assertThat(mixed.statusCode()).isEqualTo(202);
      assertThat(mixed.body())
          .contains("\"accepted\":2")
          .contains("\"rejected\":3")
          .contains("malformed-json")
          .contains("missing field 'status'")
          .contains("line-too-long");

      HttpResponse<String> allBad = post(c, utf8("not json\n[1,2,3]\n"));
      assertThat(allBad.statusCode()).isEqualTo(400);
      assertThat(allBad.body()).contains("\"accepted\":0").contains("\"rejected\":2");

      HttpResponse<String> array =
          post(c, utf8("[" + line("chat-3", 200, 5) + "," + line("chat-3", 200, 6) + "]"));
      assertThat(array.statusCode()).isEqualTo(202);
      assertThat(array.body()).contains("\"accepted\":2");

      ByteArrayOutputStream zipped = new ByteArrayOutputStream();
      try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
        gz.write(utf8(line("chat-4", 200, 9) + "\n"));
      }
      assertThat(post(c, zipped.toByteArray(), "Content-Encoding", "gzip").statusCode())
          .isEqualTo(202);

      assertThat(
              HTTP.send(
                      HttpRequest.newBuilder(URI.create(c.baseUrl() + "/v1/request-logs"))
                          .GET()
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(405);

      try (TopicReader<RequestLog> requests =
              new TopicReader<>(
                  broker.bootstrapServers(),
                  topics.requests.name(),
                  topics.requests.valueSerde().deserializer());
          TopicReader<DeadLetter> dlq =
              new TopicReader<>(
                  broker.bootstrapServers(),
                  topics.deadLetters.name(),
                  topics.deadLetters.valueSerde().deserializer())) {
        List<ConsumerRecord<String, RequestLog>> logs =
            requests.readUntil(r -> r.size() >= 8, Duration.ofSeconds(20));
        assertThat(logs).hasSize(8);
        assertThat(logs.get(0).key()).isEqualTo("ai-lab/chat-0");
        assertThat(logs.get(0).timestamp())
            .isEqualTo(Instant.parse("2026-11-29T10:00:00.500Z").toEpochMilli());
        assertThat(logs.get(1).value().getStatus()).isEqualTo(503);
        List<ConsumerRecord<String, DeadLetter>> dead =
            dlq.readUntil(r -> r.size() >= 5, Duration.ofSeconds(20));
        assertThat(dead)
            .extracting(r -> r.value().getReason())
            .containsExactly(
                "malformed-json",
                "missing-field",
                "line-too-long",
                "malformed-json",
                "not-an-object");
        assertThat(dead).allSatisfy(r -> assertThat(r.key()).isEqualTo("request-logs"));
        assertThat(dead.get(1).value().getDetail()).isEqualTo("line 3: missing field 'status'");
        assertThat(StandardCharsets.UTF_8.decode(dead.get(0).value().getValue()).toString())
            .isEqualTo("{\"time\": 1,");
      }
      assertThat(c.metrics().intakeLines.labelValues("rejected").get()).isEqualTo(5.0);
      assertThat(c.metrics().intakeRequests.labelValues("400").get()).isEqualTo(1.0);
    }
  }

  @Test
  void shouldRequireTheTokenAndBoundTheBody() throws Exception {
    String prefix = "auth-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    try (Collector c =
        collector(prefix, "--intake-token", TOKEN, "--intake-max-body-bytes", "2048")) {
      byte[] body = utf8(line("chat-0", 200, 1));
      assertThat(post(c, body).statusCode()).isEqualTo(401);
      HttpResponse<String> wrong = post(c, body, "Authorization", "Bearer nope");
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.headers().firstValue("WWW-Authenticate")).isPresent();
      assertThat(post(c, body, "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(202);
      assertThat(
              post(
                      c,
                      utf8((line("chat-0", 200, 1) + "\n").repeat(40)),
                      "Authorization",
                      "Bearer " + TOKEN)
                  .statusCode())
          .isEqualTo(413);
    }
  }

  @Test
  void shouldRefuseAChunkedBodyOverTheLimitWithoutReadingItWhole() throws Exception {
    String prefix = "chunked-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    try (Collector c = collector(prefix, "--intake-max-body-bytes", "1048576")) {
      URI uri = URI.create(c.baseUrl());
      AtomicLong sent = new AtomicLong();
      try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
        socket.setSoTimeout(30_000);
        OutputStream out = socket.getOutputStream();
        out.write(
            ("POST /v1/request-logs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Type: application/x-ndjson\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        // A shipper that would send 100 MB: chunks of 64 KiB until the server stops reading.
        Thread writer =
            new Thread(
                () -> {
                  byte[] chunk = new byte[64 * 1024];
                  java.util.Arrays.fill(chunk, (byte) ' ');
                  byte[] head =
                      (Integer.toHexString(chunk.length) + "\r\n")
                          .getBytes(StandardCharsets.US_ASCII);
                  try {
                    while (sent.get() < 100L << 20) {
                      out.write(head);
                      out.write(chunk);
                      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                      sent.addAndGet(chunk.length);
                    }
                  } catch (java.io.IOException closedByTheServer) {
                    // what it should do
                  }
                });
        writer.setDaemon(true);
        writer.start();
        String status =
            new java.io.BufferedReader(
                    new java.io.InputStreamReader(
                        socket.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        assertThat(status).startsWith("HTTP/1.1 413");
        writer.join(30_000);
        assertThat(writer.isAlive()).as("the server stopped reading").isFalse();
        assertThat(sent.get()).as("bytes the server let in").isLessThan(32L << 20);
      }
    }
  }

  /**
   * What the intake holds at once is bounded, counted as the bytes arrive: a client that announces
   * 3.5 MiB and sends 1.1 MiB holds 1.1 MiB, and another batch is taken meanwhile; one that has
   * sent 3.5 MiB holds that, and another batch is answered 503 (and sent again later); once it is
   * gone, batches are taken again.
   */
  @Test
  void shouldCountTheBodiesHeldAsTheirBytesArriveAndAnswer503PastTheBudget() throws Exception {
    String prefix = "budget-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    int mib = 1 << 20;
    try (Collector c =
        collector(
            prefix,
            "--intake-max-body-bytes",
            Integer.toString(4 * mib),
            "--intake-max-inflight-bytes",
            Integer.toString(4 * mib))) {
      URI uri = URI.create(c.baseUrl());
      String batch =
          IntStream.range(0, 4000)
              .mapToObj(i -> line("chat-" + (i % 4), 200, 1))
              .collect(Collectors.joining("\n"));
      assertThat(batch.length()).isGreaterThan(mib / 3).isLessThan(mib / 2);
      int announced = 3 * mib + mib / 2;
      String head =
          "POST /v1/request-logs HTTP/1.1\r\nHost: x\r\nContent-Length: "
              + announced
              + "\r\nContent-Type: application/x-ndjson\r\n\r\n";
      try (Socket slow = new Socket(uri.getHost(), uri.getPort())) {
        slow.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        slow.getOutputStream().write(new byte[mib + mib / 10]);
        slow.getOutputStream().flush();
        assertThat(post(c, utf8(batch)).statusCode())
            .as("taken beside a body announced large and sent in part")
            .isEqualTo(202);
      }
      try (Socket slow = new Socket(uri.getHost(), uri.getPort())) {
        slow.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        slow.getOutputStream().write(new byte[announced - 4096]);
        slow.getOutputStream().flush();
        await("the slow request holding the budget")
            .atMost(Duration.ofSeconds(10))
            .until(() -> post(c, utf8(batch)).statusCode() == 503);
        HttpResponse<String> busy = post(c, utf8(batch));
        assertThat(busy.statusCode()).isEqualTo(503);
        assertThat(busy.body()).contains("intake.max.inflight.bytes");
        assertThat(busy.headers().firstValue("Retry-After")).isPresent();
      }
      await("taken once the slow client is gone")
          .atMost(Duration.ofSeconds(30))
          .until(() -> post(c, utf8(batch)).statusCode() == 202);
    }
  }

  /**
   * Two shippers trickling chunked uploads, five bytes every second, never idle long enough for the
   * idle timeout: another shipper's batches are taken meanwhile, and the tricklers are cut off
   * (408) once http.body.deadline has passed.
   */
  @Test
  void shouldTakeOtherBatchesWhileTwoUploadsTrickleAndCutTheTricklersOff() throws Exception {
    String prefix = "trickle-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    try (Collector c = collector(prefix, "--http-body-deadline", "4s")) {
      URI uri = URI.create(c.baseUrl());
      List<Socket> tricklers = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          Socket s = new Socket(uri.getHost(), uri.getPort());
          s.getOutputStream()
              .write(
                  ("POST /v1/request-logs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                          + "Content-Type: application/x-ndjson\r\n\r\n5\r\n{\"tim\r\n")
                      .getBytes(StandardCharsets.US_ASCII));
          tricklers.add(s);
        }
        long start = System.nanoTime();
        List<String> answers = new ArrayList<>(List.of("", ""));
        while (answers.contains("") && System.nanoTime() - start < 20_000_000_000L) {
          assertThat(post(c, utf8(line("chat-0", 200, 1))).statusCode())
              .as("another shipper's batch, meanwhile")
              .isEqualTo(202);
          for (int i = 0; i < tricklers.size(); i++) {
            Socket s = tricklers.get(i);
            if (answers.get(i).isEmpty()) {
              try {
                s.getOutputStream().write("5\r\ne\":1\r\n".getBytes(StandardCharsets.US_ASCII));
                if (s.getInputStream().available() > 0) {
                  answers.set(
                      i,
                      new java.io.BufferedReader(
                              new java.io.InputStreamReader(
                                  s.getInputStream(), StandardCharsets.US_ASCII))
                          .readLine());
                }
              } catch (java.io.IOException closed) {
                answers.set(i, "closed");
              }
            }
          }
          await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
        }
        assertThat(answers)
            .allSatisfy(a -> assertThat(a).isIn("HTTP/1.1 408 Request Timeout", "closed"));
        assertThat(answers).contains("HTTP/1.1 408 Request Timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      } finally {
        for (Socket s : tricklers) {
          s.close();
        }
      }
    }
  }

  @Test
  void shouldRefuseForGoodABatchLargerThanTheWholeSendBuffer() throws Exception {
    String prefix = "huge-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    try (Collector c = collector(prefix, "--buffer-records", "100")) {
      String batch =
          IntStream.range(0, 150)
              .mapToObj(i -> line("chat-" + i, 200, 1))
              .collect(Collectors.joining("\n"));
      HttpResponse<String> r = post(c, utf8(batch));
      // A 503 would have the shipper send it again and again: it can never fit.
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(r.body())
          .contains("larger than the whole send buffer, 100 records (buffer.records)")
          .contains("smaller batches");
      String small =
          IntStream.range(0, 50)
              .mapToObj(i -> line("chat-" + i, 200, 1))
              .collect(Collectors.joining("\n"));
      assertThat(post(c, utf8(small)).statusCode()).isEqualTo(202);
    }
  }

  @Test
  void shouldCountTheWaitsForATopicThatIsMissingWhileKafkaIsReachable() throws Exception {
    String prefix = "missing-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    // No topics created (and the broker creates none by itself): the pump waits for the
    // requests topic's partitions, keeps the line, and says so by topic.
    try (Collector c = collectorWithoutTopics(prefix, "--intake-ack-timeout", "1s")) {
      assertThat(post(c, utf8(line("chat-0", 200, 1))).statusCode()).isEqualTo(202);
      // The pump waits on the first record it holds (a progress mark of any input topic, or the
      // line): every record behind it waits too.
      Topics topics = Topics.withPrefix(prefix);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  topics.all().stream()
                          .mapToDouble(t -> c.metrics().sendWaits.labelValues(t.name()).get())
                          .sum()
                      >= 2);
      assertThat(c.metrics().recordsProduced.labelValues(prefix + "requests").get()).isZero();
      // Kept, not dropped: once the topics exist the line goes out.
      broker.createTopics(topics.newTopics(1, (short) 1));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> c.metrics().recordsProduced.labelValues(prefix + "requests").get() >= 1);
    }
  }

  @Test
  void shouldAnswer503WithRetryAfterWhileKafkaIsAway() throws Exception {
    String prefix = "away-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    try (Collector c = collector(prefix)) {
      broker.stop();
      try {
        await().atMost(Duration.ofSeconds(20)).until(() -> !c.readiness().ready());
        HttpResponse<String> r = post(c, utf8(line("chat-0", 200, 1)));
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("5");
        assertThat(r.body()).contains("Kafka unreachable");
      } finally {
        broker.restart();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> c.readiness().ready());
      assertThat(post(c, utf8(line("chat-0", 200, 1))).statusCode()).isEqualTo(202);
    }
  }

  @Test
  void shouldScrapeTheGoodTargetAndBackOffFromTheBadOnes() throws Exception {
    String prefix = "scrape-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    Topics topics = Topics.withPrefix(prefix);
    try (FakeDcgmExporter exporter = new FakeDcgmExporter();
        Collector c =
            collector(
                prefix,
                "--dcgm-targets",
                String.join(
                    ",",
                    exporter.url("/metrics"),
                    exporter.url("/slow"),
                    exporter.url("/error"),
                    exporter.url("/garbage")),
                "--scrape-interval",
                "200ms",
                "--scrape-timeout",
                "300ms",
                "--scrape-backoff-max",
                "3s");
        TopicReader<GpuSample> samples =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.gpuSamples.name(),
                topics.gpuSamples.valueSerde().deserializer());
        TopicReader<DeadLetter> dlq =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.deadLetters.name(),
                topics.deadLetters.valueSerde().deserializer())) {

      List<ConsumerRecord<String, GpuSample>> got =
          samples.readUntil(r -> r.size() >= 24, Duration.ofSeconds(20));
      assertThat(got).hasSizeGreaterThanOrEqualTo(24);
      assertThat(got)
          .allSatisfy(r -> assertThat(r.value().getTarget()).isEqualTo(exporter.url("/metrics")));
      assertThat(got)
          .filteredOn(r -> r.key().equals("dynamo-workload/vllm-agg-0-vllmdecodeworker-5fljt"))
          .isNotEmpty()
          .allSatisfy(r -> assertThat(r.value().getGpu()).isEqualTo("6"));
      assertThat(got)
          .filteredOn(r -> r.key().equals("ip-100-64-171-120.ec2.internal/0"))
          .isNotEmpty();

      List<ConsumerRecord<String, DeadLetter>> dead =
          dlq.readUntil(r -> !r.isEmpty(), Duration.ofSeconds(20));
      assertThat(dead.get(0).value().getReason()).isEqualTo("unparseable-scrape");
      assertThat(dead.get(0).key()).isEqualTo("dcgm:" + exporter.url("/garbage"));

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(c.metrics().scrapeUp.labelValues(exporter.url("/metrics")).get())
                    .isEqualTo(1.0);
                assertThat(c.metrics().scrapeUp.labelValues(exporter.url("/slow")).get())
                    .isEqualTo(0.0);
                assertThat(c.metrics().scrapeUp.labelValues(exporter.url("/error")).get())
                    .isEqualTo(0.0);
                assertThat(c.metrics().scrapeUp.labelValues(exporter.url("/garbage")).get())
                    .isEqualTo(0.0);
              });
      double ok = c.metrics().scrapes.labelValues(exporter.url("/metrics"), "ok").get();
      double errors = c.metrics().scrapes.labelValues(exporter.url("/error"), "http-error").get();
      double timeouts = c.metrics().scrapes.labelValues(exporter.url("/slow"), "timeout").get();
      assertThat(timeouts).isPositive();
      assertThat(errors)
          .as("backoff: the failing target is tried less often")
          .isPositive()
          .isLessThan(ok);
      assertThat(c.metrics().dcgmValuesNotUsed.labelValues("dcgm-sentinel").get()).isZero();
    }
  }
}
