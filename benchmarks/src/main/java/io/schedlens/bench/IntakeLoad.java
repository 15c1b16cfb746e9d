package io.schedlens.bench;

import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Load command: request-log lines per second through the collector's intake into Kafka, on the
 * embedded broker on this machine. Every line counted was acknowledged by Kafka ({@code acks=all})
 * before its HTTP 202; at the end the topic's record count is checked against it.
 *
 * <pre>
 * java -cp "benchmarks/target/schedlens-benchmarks.jar:benchmarks/target/lib/*" \
 *   io.schedlens.bench.IntakeLoad [seconds=20] [threads=4] [linesPerRequest=1000]
 * </pre>
 */
public final class IntakeLoad {

  private IntakeLoad() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    System.out.printf(
        "intake load: %d s, %d client threads, %d lines per request%n", seconds, threads, batch);

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      Topics topics = Topics.defaults();
      broker.createTopics(topics.newTopics(4, (short) 1));
      CollectorConfig config =
          CollectorConfig.from(
              CommandLineSettings.load(
                  CollectorConfig.DEF,
                  List.of(
                      "--kubernetes-enabled", "false", "--http-port", "0", "--intake-auth", "none"),
                  Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
      try (Collector collector = Collector.start(config, null, Clock.systemUTC())) {
        while (!collector.readiness().ready()) {
          Thread.sleep(100);
        }
        byte[] body = body(batch);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request =
            HttpRequest.newBuilder(URI.create(collector.baseUrl() + "/v1/request-logs"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        AtomicLong accepted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        long warmupEnd = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        AtomicLong measuredLines = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          Thread client =
              new Thread(
                  () -> {
                    while (System.nanoTime() < end) {
                      try {
                        HttpResponse<String> r =
                            http.send(request, HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 202) {
                          accepted.addAndGet(batch);
                          if (System.nanoTime() > warmupEnd) {
                            measuredLines.addAndGet(batch);
                          }
                        } else {
                          refused.incrementAndGet();
                        }
                      } catch (Exception e) {
                        refused.incrementAndGet();
                      }
                    }
                  });
          client.start();
          clients.add(client);
        }
        for (Thread c : clients) {
          c.join();
        }
        double measuredSeconds = seconds - 3;
        long inKafka = count(broker, topics.requests.name());
        System.out.printf(
            "accepted %,d lines (%,d requests refused); %,.0f lines/s after a 3 s warm-up; %,d records in %s%n",
            accepted.get(),
            refused.get(),
            measuredLines.get() / measuredSeconds,
            inKafka,
            topics.requests.name());
        if (inKafka != accepted.get()) {
          System.out.println(
              "MISMATCH: Kafka holds a different number of records than were acknowledged");
          System.exit(1);
        }
      }
    }
  }

  static byte[] body(int lines) {
    // A minute ago, within the intake's bounds on any day the benchmark runs.
    long base = (System.currentTimeMillis() / 60_000 - 1) * 60_000;
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      sb.append("{\"time\":\"")
          .append(Instant.ofEpochMilli(base + ((i / 1000) % 60) * 1000L + i % 1000))
          .append("\",\"namespace\":\"ai-lab\",\"pod\":\"interactive-inference-")
          .append(i % 8)
          .append("\",\"service\":\"chat\",\"route\":\"/v1/chat/completions\",\"status\":")
          .append(i % 50 == 0 ? 503 : 200)
          .append(",\"latency_ms\":")
          .append(200 + (i * 37) % 900)
          .append(",\"ttft_ms\":")
          .append(40 + (i * 13) % 200)
          .append(",\"request_id\":\"req-")
          .append(i)
          .append("\"}\n");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Request-log records in the topic, the collector's progress marks left out. */
  static long count(EmbeddedKafkaBroker broker, String topic) throws Exception {
    try (Admin admin = broker.admin();
        KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                Map.of("bootstrap.servers", broker.bootstrapServers(), "max.poll.records", 5000),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
      var partitions =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions();
      List<TopicPartition> tps = new ArrayList<>();
      partitions.forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      long n = 0;
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          if (!ProgressMarks.isMark(r.headers())) {
            n++;
          }
        }
      }
      return n;
    }
  }
}
