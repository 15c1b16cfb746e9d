package io.schedlens.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.ProducerRecords;
import io.schedlens.schemas.Topics;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Heavy clients of the timeline API: one streams app in its own JVM with a small heap holds {@code
 * pods} finished timelines ({@link LoadShape}'s lives: requests, GPU samples, their series), then
 * {@code clients} clients page through the whole list at once, again and again, while another asks
 * the probes' {@code /healthz} every 100 ms.
 *
 * <pre>
 * java -cp "benchmarks/target/schedlens-benchmarks.jar:benchmarks/target/lib/*" io.schedlens.bench.ApiLoad [pods=30000] [clients=8] [seconds=60] [heap=512m]
 * </pre>
 *
 * <p>Prints the time of a one-item page and of one full list alone, then under load: full lists
 * done, page latency p50/p99, errors, the worst {@code /healthz} answer, and the app's heap after a
 * full collection.
 */
public final class ApiLoad {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ApiLoad() {}

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
    String heap = args.length > 3 ? args[3] : "512m";
    int partitions = 6;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      long records = backlog(broker, pods, partitions);
      int port = freePort();
      int probes = freePort();
      String base = "http://127.0.0.1:" + port;
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      try (AppInstances app =
          new AppInstances(
              broker.bootstrapServers(),
              "api-load-" + UUID.randomUUID(),
              1,
              heap,
              List.of(
                  "--http-port",
                  Integer.toString(port),
                  "--http-probe-port",
                  Integer.toString(probes),
                  "--api-final-retention",
                  "30d"))) {
        System.out.printf(
            "%,d records produced; the app (-Xmx%s) reads them; waiting for %,d timelines%n",
            records, heap, pods);
        awaitHeld(http, base, pods);
        alone(http, base);
        System.out.printf(
            "app heap after a full collection, before the load: %s MiB of %s%n",
            app.liveHeapMb(), heap);
        underLoad(http, base, probes, pods, clients, seconds);
        System.out.printf(
            "app heap after a full collection, after the load: %s MiB of %s; app %s%n",
            app.liveHeapMb(), heap, app.allAlive() ? "still running" : "DIED");
      }
    }
  }

  /** The pods' lives produced; returns how many records. */
  private static long backlog(EmbeddedKafkaBroker broker, int pods, int partitions)
      throws Exception {
    Topics topics = Topics.defaults();
    broker.createTopics(topics.newTopics(partitions, (short) 1));
    LoadShape shape = new LoadShape(topics);
    long t0 = ((System.currentTimeMillis() - Duration.ofDays(2).toMillis()) / 1000) * 1000;
    System.out.printf(
        "producing %,d pod lives (10 min, 3 s apart, 100 requests and 40 DCGM samples each)%n",
        pods);
    long records = 0;
    try (KafkaProducer<byte[], byte[]> producer = StreamsLoad.producer(broker.bootstrapServers())) {
      for (Outgoing o : shape.backlog(pods, t0, 3_000)) {
        for (ProducerRecord<byte[], byte[]> r : ProducerRecords.of(o, partitions)) {
          producer.send(r);
          records++;
        }
      }
      producer.flush();
    }
    return records;
  }

  /** Waits until the app holds every pod's timeline, saying how far it is every 10 s. */
  private static void awaitHeld(HttpClient http, String base, int pods) throws Exception {
    long start = System.nanoTime();
    long held = 0;
    long lastSaid = 0;
    while (held < pods) {
      Thread.sleep(1_000);
      try {
        held = JSON.readTree(get(http, base + "/api/pods?limit=1").body()).path("count").asLong();
      } catch (Exception notYet) {
        held = 0;
      }
      long s = (System.nanoTime() - start) / 1_000_000_000;
      if (s - lastSaid >= 10) {
        System.out.printf("  %d s: %,d of %,d timelines held%n", s, held, pods);
        lastSaid = s;
      }
    }
  }

  /** A page of one item and a full list, with no other client. */
  private static void alone(HttpClient http, String base) throws Exception {
    List<Long> one = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long t = System.nanoTime();
      get(http, base + "/api/pods?limit=1");
      one.add((System.nanoTime() - t) / 1_000_000);
    }
    Collections.sort(one);
    long t = System.nanoTime();
    int alone = fullList(http, base, new ArrayList<>());
    System.out.printf(
        "alone: a page of one item %d ms (median of 10); a full list of %,d (pages of 1,000)"
            + " %.1f s%n",
        one.get(5), alone, (System.nanoTime() - t) / 1e9);
  }

  /** {@code clients} paging through every timeline for {@code seconds}, /healthz probed. */
  private static void underLoad(
      HttpClient http, String base, int probes, int pods, int clients, int seconds)
      throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> pageMs = new ConcurrentLinkedQueue<>();
    AtomicLong fullLists = new AtomicLong();
    AtomicLong worstProbe = new AtomicLong();
    AtomicLong probeFailures = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(clients + 1);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      running.add(
          pool.submit(
              () -> {
                while (System.nanoTime() < until) {
                  try {
                    List<Long> ms = new ArrayList<>();
                    int n = fullList(http, base, ms);
                    pageMs.addAll(ms);
                    if (n != pods) {
                      errors.add("a full list of " + n + " pods");
                    }
                    fullLists.incrementAndGet();
                  } catch (Exception e) {
                    errors.add(e.toString());
                  }
                }
              }));
    }
    running.add(pool.submit(() -> probe(probes, until, worstProbe, probeFailures)));
    for (Future<?> f : running) {
      f.get();
    }
    pool.shutdown();
    List<Long> sorted = new ArrayList<>(pageMs);
    Collections.sort(sorted);
    System.out.printf(
        "under load: %d clients for %d s: %d full lists of %,d (%,d pages; page p50 %d ms, p99"
            + " %d ms); errors %d%s; /healthz on the probes port worst %d ms, %d failed%n",
        clients,
        seconds,
        fullLists.get(),
        pods,
        sorted.size(),
        sorted.isEmpty() ? -1 : StreamsLoad.pct(sorted, 0.50),
        sorted.isEmpty() ? -1 : StreamsLoad.pct(sorted, 0.99),
        errors.size(),
        errors.isEmpty() ? "" : " (first: " + errors.peek() + ")",
        worstProbe.get(),
        probeFailures.get());
  }

  /**
   * /healthz on the probes' port every 100 ms until {@code until}: the worst time, the failures.
   */
  private static void probe(int probes, long until, AtomicLong worst, AtomicLong failures) {
    HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    while (System.nanoTime() < until) {
      long p = System.nanoTime();
      try {
        HttpResponse<String> r =
            probe.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probes + "/healthz"))
                    .timeout(Duration.ofSeconds(1))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          failures.incrementAndGet();
        }
      } catch (Exception e) {
        failures.incrementAndGet();
      }
      worst.accumulateAndGet((System.nanoTime() - p) / 1_000_000, Math::max);
      try {
        Thread.sleep(100); // the probe's pace
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Pages through every timeline; returns how many, and each page's milliseconds. */
  static int fullList(HttpClient http, String base, List<Long> pageMs) throws Exception {
    String after = null;
    HashSet<String> uids = new HashSet<>();
    do {
      long t = System.nanoTime();
      HttpResponse<String> r =
          get(
              http,
              base
                  + "/api/pods?limit=1000"
                  + (after == null
                      ? ""
                      : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8)));
      pageMs.add((System.nanoTime() - t) / 1_000_000);
      if (r.statusCode() != 200) {
        throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
      }
      JsonNode page = JSON.readTree(r.body());
      for (JsonNode pod : page.path("pods")) {
        uids.add(pod.path("uid").asText());
      }
      after = page.hasNonNull("next") ? page.get("next").asText() : null;
    } while (after != null);
    return uids.size();
  }

  static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
