package io.schedlens.bench;

import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 *   io.schedlens.bench.IntakeLoad [seconds=20] [threads=4] [linesPerRequest=1000] [hostile]
 * </pre>
 *
 * <p>With {@code hostile}, the run is done five times in one process: a warm-up (not counted),
 * unloaded, while 1,000 idle connections and 64 slow-loris clients (32 sending a header a line a
 * second, 32 a body 16 bytes a second) hold the collector's port (with {@code /healthz} timed every
 * 100 ms), unloaded, held; it prints the held rate as a share of the unloaded one.
 */
public final class IntakeLoad {

  private IntakeLoad() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    boolean hostile = args.length > 3 && args[3].equals("hostile");
    System.out.printf(
        "intake load: %d s, %d client threads, %d lines per request%s%n",
        seconds,
        threads,
        batch,
        hostile
            ? "; a warm-up, then unloaded, while 1,000 idle connections and 64 slow-loris"
                + " clients hold the port, unloaded again and held again"
            : "");

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
        List<String> phases =
            hostile
                ? List.of("warm-up", "unloaded", "held", "unloaded", "held")
                : List.of("unloaded");
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        List<Long> probeNanos = new ArrayList<>();
        for (String phase : phases) {
          double rate =
              phase(
                  phase,
                  collector,
                  http,
                  request,
                  threads,
                  batch,
                  seconds,
                  accepted,
                  refused,
                  probeNanos);
          rates.computeIfAbsent(phase, k -> new ArrayList<>()).add(rate);
        }
        long inKafka = count(broker, topics.requests.name());
        System.out.printf(
            "accepted %,d lines (%,d requests refused); %,d records in %s%n",
            accepted.get(), refused.get(), inKafka, topics.requests.name());
        if (hostile) {
          double unloaded = mean(rates.get("unloaded"));
          double loaded = mean(rates.get("held"));
          long slowest = probeNanos.stream().mapToLong(Long::longValue).max().orElse(0);
          System.out.printf(
              "held / unloaded: %.2f (goal >= 0.90); slowest /healthz while held: %.1f ms (goal <"
                  + " 100 ms)%n",
              loaded / unloaded, slowest / 1e6);
        }
        if (inKafka != accepted.get()) {
          System.out.println(
              "MISMATCH: Kafka holds a different number of records than were acknowledged");
          System.exit(1);
        }
      }
    }
  }

  /** One phase: the load for {@code seconds}, held by hostile clients when it is "held". */
  private static double phase(
      String phase,
      Collector collector,
      HttpClient http,
      HttpRequest request,
      int threads,
      int batch,
      int seconds,
      AtomicLong accepted,
      AtomicLong refused,
      List<Long> probeNanos)
      throws Exception {
    try (HostileClients held =
        phase.equals("held")
            ? HostileClients.open(URI.create(collector.baseUrl()).getPort(), 1000, 64)
            : null) {
      ProbeTimer probes =
          held == null ? null : ProbeTimer.start(http, collector.baseUrl() + "/healthz");
      double rate = run(http, request, threads, batch, seconds, accepted, refused);
      String probeSummary = "";
      if (probes != null) {
        List<Long> p = probes.stop();
        probeNanos.addAll(p);
        probeSummary =
            String.format(
                "; /healthz %d probes, slowest %.1f ms; %d of 1,000 idle and %d of 64"
                    + " slow-loris connections still open at the end",
                p.size(),
                p.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6,
                held.idleOpen(),
                held.slowOpen());
      }
      System.out.printf("%-8s %,10.0f lines/s after a 3 s warm-up%s%n", phase, rate, probeSummary);
      return rate;
    }
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  /** Lines per second accepted by {@code threads} shippers for {@code seconds}, after 3 s. */
  private static double run(
      HttpClient http,
      HttpRequest request,
      int threads,
      int batch,
      int seconds,
      AtomicLong accepted,
      AtomicLong refused)
      throws InterruptedException {
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
    return measuredLines.get() / (seconds - 3.0);
  }

  /**
   * Connections that hold a port: some open and silent, some sending a request header a few bytes a
   * second and never finishing it (slow-loris).
   */
  private static final class HostileClients implements AutoCloseable {
    private final List<Socket> idle = new ArrayList<>();
    private final List<Socket> slow = new ArrayList<>();
    private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();

    /**
     * {@code idleCount} silent connections and {@code slowCount} slow ones: half send a request
     * header a line a second and never finish it, half send a header announcing a 1 MB body and
     * then 16 bytes of it a second.
     */
    static HostileClients open(int port, int idleCount, int slowCount) throws Exception {
      HostileClients h = new HostileClients();
      for (int i = 0; i < idleCount; i++) {
        h.idle.add(new Socket("127.0.0.1", port));
      }
      for (int i = 0; i < slowCount; i++) {
        Socket s = new Socket("127.0.0.1", port);
        String start =
            i % 2 == 0
                ? "POST /v1/request-logs HTTP/1.1\r\nHost: x\r\n"
                : "POST /v1/request-logs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n";
        s.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        h.slow.add(s);
      }
      h.trickle.scheduleAtFixedRate(h::sendMore, 1, 1, TimeUnit.SECONDS);
      return h;
    }

    private void sendMore() {
      for (int i = 0; i < slow.size(); i++) {
        String more = i % 2 == 0 ? "X-a: b\r\n" : "{\"time\":\"2026-";
        try {
          slow.get(i).getOutputStream().write(more.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException closed) {
          // counted as closed below
        }
      }
    }

    long idleOpen() {
      return idle.stream().filter(IntakeLoad::open).count();
    }

    long slowOpen() {
      return slow.stream().filter(IntakeLoad::open).count();
    }

    @Override
    public void close() throws IOException {
      trickle.shutdownNow();
      for (Socket s : idle) {
        s.close();
      }
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  /** Whether the server still holds {@code s} open (a read would wait, not see the end). */
  private static boolean open(Socket s) {
    try {
      s.setSoTimeout(1);
      return s.getInputStream().read() >= 0;
    } catch (SocketTimeoutException waiting) {
      return true;
    } catch (IOException closed) {
      return false;
    }
  }

  /** /healthz asked every 100 ms, each answer's time kept. */
  private static final class ProbeTimer {
    private final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
    private final ScheduledExecutorService every = Executors.newSingleThreadScheduledExecutor();

    static ProbeTimer start(HttpClient http, String url) {
      ProbeTimer t = new ProbeTimer();
      HttpRequest probe =
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build();
      t.every.scheduleWithFixedDelay(
          () -> {
            long start = System.nanoTime();
            try {
              http.send(probe, HttpResponse.BodyHandlers.discarding());
            } catch (Exception e) {
              // a probe without an answer counts its whole wait
            }
            t.nanos.add(System.nanoTime() - start);
          },
          500,
          100,
          TimeUnit.MILLISECONDS);
      return t;
    }

    List<Long> stop() throws InterruptedException {
      every.shutdown();
      every.awaitTermination(15, TimeUnit.SECONDS);
      return List.copyOf(nanos);
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
