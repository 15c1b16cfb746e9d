package io.schedlens.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a port takes on ({@link HttpEndpoint.Limits}), with real sockets on loopback: idle and
 * half-sent connections, bodies sent slowly, handlers that all block, a bound on connections and a
 * close while a request is being answered.
 */
class HttpEndpointLimitsTest {

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<Socket> held = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void closeHeld() throws IOException {
    release.countDown();
    for (Socket s : held) {
      s.close();
    }
  }

  /** A route whose calls block until the test releases them: every handler thread busy. */
  private HttpEndpoint.Route blocking(CountDownLatch entered) {
    return new HttpEndpoint.Route(
        "/v1/busy",
        exchange -> {
          entered.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.getRequestBody().readAllBytes();
          HttpEndpoint.respond(exchange, 200, "text/plain", "done\n");
        });
  }

  private static HttpEndpoint.Route echo() {
    return new HttpEndpoint.Route(
        "/v1/echo",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          HttpEndpoint.respondJson(exchange, 200, Map.of("bytes", body.length));
        });
  }

  @Test
  void shouldAnswerTheProbesWithinAHundredMillisecondsWhileIdleSlowAndBusyClientsHoldThePort()
      throws Exception {
    CountDownLatch entered = new CountDownLatch(4);
    HttpEndpoint.Limits limits =
        new HttpEndpoint.Limits(
            4,
            4096,
            Duration.ofSeconds(30),
            Duration.ofMillis(500),
            1 << 20,
            32 << 20,
            Duration.ZERO,
            0,
            Duration.ofSeconds(60));
    try (HttpEndpoint endpoint = start(limits, blocking(entered), echo())) {
      int port = endpoint.port();
      // 1,000 connections that send nothing, 64 that send half a header ...
      for (int i = 0; i < 1000; i++) {
        held.add(new Socket("127.0.0.1", port));
      }
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket("127.0.0.1", port);
        send(s, "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Le");
        held.add(s);
      }
      // ... 64 that send a header and a few bytes of a 100,000-byte body ...
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket("127.0.0.1", port);
        send(s, "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"a\":");
        held.add(s);
      }
      // ... and every handler thread blocked in a call.
      List<CompletableFuture<HttpResponse<String>>> busy = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        busy.add(
            client.sendAsync(
                HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/v1/busy"))
                    .POST(HttpRequest.BodyPublishers.ofString("x"))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

      // The probes and /metrics answer at once, from threads the routes cannot take.
      HttpClient prober = HttpClient.newHttpClient();
      get(prober, endpoint, "/healthz");
      long worst = 0;
      for (int i = 0; i < 10; i++) {
        for (String path : List.of("/healthz", "/readyz", "/metrics")) {
          long start = System.nanoTime();
          HttpResponse<String> r = get(prober, endpoint, path);
          worst = Math.max(worst, System.nanoTime() - start);
          assertThat(r.statusCode()).as(path).isEqualTo(200);
        }
      }
      assertThat(worst / 1_000_000).as("slowest probe, ms").isLessThan(100);

      // A route request over the bound waits without a thread and gets a 503, not a hang.
      long start = System.nanoTime();
      HttpResponse<String> over =
          client.send(
              HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/v1/echo"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(over.statusCode()).isEqualTo(503);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));

      // Released, the blocked calls finish, and the slow bodies never held a thread: a request
      // is answered at once.
      release.countDown();
      for (CompletableFuture<HttpResponse<String>> f : busy) {
        assertThat(f.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
      HttpResponse<String> after =
          client.send(
              HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/v1/echo"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"b\":1}"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(after.statusCode()).isEqualTo(200);
      assertThat(after.body()).contains("\"bytes\":7");
    }
  }

  /**
   * 2,000 connections each sending one request again as soon as it is answered: scrapes, a cheap
   * route, a path that is not there. The probes' own port (where the chart points the kubelet)
   * answers 95 % of probes within 100 ms, and every one well within the kubelet's 1 s timeout,
   * whatever the flood; the main port's probes do too under a flood of scrapes, which are rendered
   * two at a time and otherwise parked without a thread.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
        "GET /nothing/here HTTP/1.1\r\nHost: x\r\n\r\n"
      })
  void shouldAnswerTheProbesWithinAHundredMillisecondsWhileTwoThousandConnectionsFloodAPath(
      String request) throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    // A registry worth rendering: 400 series, as a busy app's.
    Counter c =
        Counter.builder()
            .name("flood_test_total")
            .help("series to render")
            .labelNames("a", "b")
            .register(registry);
    for (int i = 0; i < 40; i++) {
      for (int j = 0; j < 10; j++) {
        c.labelValues("value-" + i, "other-" + j).inc(i * j);
      }
    }
    try (HttpEndpoint endpoint =
            HttpEndpoint.start(
                    "127.0.0.1",
                    0,
                    null,
                    registry,
                    () -> HttpEndpoint.Readiness.ready("running"),
                    HttpEndpoint.Limits.of(4),
                    echo())
                .withProbesOn("127.0.0.1", 0, () -> HttpEndpoint.Readiness.ready("running"));
        Flood flood = Flood.start(endpoint.port(), 2000, request)) {
      await("the flood under way")
          .atMost(Duration.ofSeconds(20))
          .until(() -> flood.answers() > 4000);
      String main = "http://127.0.0.1:" + endpoint.port();
      String own = "http://127.0.0.1:" + endpoint.probePort();
      List<Long> onMain = new ArrayList<>();
      List<Long> onOwn = new ArrayList<>();
      HttpClient prober = HttpClient.newHttpClient();
      probe(prober, main + "/healthz");
      probe(prober, own + "/healthz");
      for (int i = 0; i < 20; i++) {
        for (String path : List.of("/healthz", "/readyz")) {
          onMain.add(probe(prober, main + path));
          onOwn.add(probe(prober, own + path));
        }
        await().pollDelay(Duration.ofMillis(50)).until(() -> true);
      }
      String sent = request.lines().findFirst().orElse("");
      System.out.printf(
          "HttpEndpointLimitsTest: probes p95 %d ms, slowest %d ms on the probes' port; p95 %d ms,"
              + " slowest %d ms on the main port, while 2,000 connections send %s (%,d answers)%n",
          p95(onOwn), worst(onOwn), p95(onMain), worst(onMain), sent, flood.answers());
      // 95 % of the probes within 100 ms, and none near the kubelet's default probe timeout (1 s):
      // a probe queued behind the flood takes seconds; one caught by a GC pause or the scheduler
      // on these 2 shared cores, a few ms over 100 (108 ms seen once in CI).
      assertThat(p95(onOwn)).as("probes' p95 on the probes' own port, ms").isLessThan(100);
      assertThat(worst(onOwn)).as("slowest probe on the probes' own port, ms").isLessThan(1000);
      if (sent.contains("/metrics")) {
        assertThat(p95(onMain)).as("probes' p95 on the main port, ms").isLessThan(100);
        assertThat(worst(onMain)).as("slowest probe on the main port, ms").isLessThan(1000);
      }
    }
  }

  /** The nearest-rank 95th percentile. */
  private static long p95(List<Long> ms) {
    List<Long> sorted = ms.stream().sorted().toList();
    return sorted.get((int) Math.ceil(0.95 * sorted.size()) - 1);
  }

  private static long worst(List<Long> ms) {
    return ms.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  private static long probe(HttpClient prober, String url) throws Exception {
    long start = System.nanoTime();
    HttpResponse<String> r =
        prober.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return (System.nanoTime() - start) / 1_000_000;
  }

  @Test
  void shouldReadBodiesEarlyOnlyWithinTheBudgetAndTheRestOnTheBoundedThreads() throws Exception {
    HttpEndpoint.Limits limits =
        new HttpEndpoint.Limits(
            1,
            64,
            Duration.ofSeconds(30),
            Duration.ofMillis(500),
            1000,
            1000,
            Duration.ZERO,
            0,
            Duration.ofSeconds(60));
    try (HttpEndpoint endpoint = start(limits, echo())) {
      String partial =
          "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n"
              + "{\"a\":\""
              + "x".repeat(600);
      // A body announced whole but sent in part holds the bytes it sent, not those it announced,
      // and no thread: requests are taken meanwhile ...
      Socket announced = new Socket("127.0.0.1", endpoint.port());
      send(announced, "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n{");
      held.add(announced);
      Socket first = new Socket("127.0.0.1", endpoint.port());
      send(first, partial);
      held.add(first);
      assertThat(post(endpoint, "{}").statusCode()).isEqualTo(200);
      // ... until one finds no room for what it sent: its handler reads it, on the port's one
      // thread ...
      Socket second = new Socket("127.0.0.1", endpoint.port());
      send(second, partial);
      held.add(second);
      // ... so a further request waits for that thread and is answered 503.
      await().atMost(Duration.ofSeconds(10)).until(() -> post(endpoint, "{}").statusCode() == 503);
      assertThat(get(client, endpoint, "/healthz").statusCode()).isEqualTo(200);
      second.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> post(endpoint, "{}").statusCode() == 200);
    }
  }

  /**
   * Two clients trickling a chunked body, five bytes every second, never idle long enough for the
   * idle timeout: another client's body is taken meanwhile, and the tricklers are cut off with a
   * 408 once the body deadline has passed.
   */
  @Test
  void shouldCutOffBodiesThatTrickleAndTakeOthersMeanwhile() throws Exception {
    HttpEndpoint.Limits limits = HttpEndpoint.Limits.of(2).withBodyDeadline(Duration.ofSeconds(3));
    try (HttpEndpoint endpoint = start(limits, echo())) {
      List<Socket> tricklers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Socket s = new Socket("127.0.0.1", endpoint.port());
        send(
            s,
            "POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\n{\"a\":\r\n");
        tricklers.add(s);
        held.add(s);
      }
      long start = System.nanoTime();
      List<Boolean> cut = new ArrayList<>(List.of(false, false));
      while (cut.contains(false) && System.nanoTime() - start < 15_000_000_000L) {
        assertThat(post(endpoint, "{\"b\":1}").statusCode())
            .as("another client's body, meanwhile")
            .isEqualTo(200);
        for (int i = 0; i < tricklers.size(); i++) {
          if (!cut.get(i)) {
            try {
              send(tricklers.get(i), "5\r\n11111\r\n");
            } catch (IOException closed) {
              cut.set(i, true);
            }
          }
        }
        await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
        for (int i = 0; i < tricklers.size(); i++) {
          Socket s = tricklers.get(i);
          if (!cut.get(i) && s.getInputStream().available() > 0) {
            assertThat(statusLine(s)).contains("408");
            cut.set(i, true);
          }
        }
      }
      assertThat(cut).as("both tricklers cut off").containsOnly(true);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("within the deadline and a second or two")
          .isLessThan(Duration.ofSeconds(8));
    }
  }

  private HttpResponse<String> post(HttpEndpoint endpoint, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/v1/echo"))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldCloseAConnectionThatStallsInsideARequestAfterTheIdleTimeout() throws Exception {
    HttpEndpoint.Limits limits =
        new HttpEndpoint.Limits(
            2,
            64,
            Duration.ofSeconds(1),
            Duration.ofMillis(500),
            1 << 20,
            32 << 20,
            Duration.ZERO,
            0,
            Duration.ofSeconds(60));
    try (HttpEndpoint endpoint = start(limits, echo())) {
      Socket header = new Socket("127.0.0.1", endpoint.port());
      send(header, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
      Socket body = new Socket("127.0.0.1", endpoint.port());
      send(body, "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{\"a\"");
      held.add(header);
      held.add(body);
      long start = System.nanoTime();
      assertThat(readsToTheEnd(header)).isTrue();
      assertThat(readsToTheEnd(body)).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void shouldKeepConnectionsBeyondTheBoundWaitingUntilOneCloses() throws Exception {
    HttpEndpoint.Limits limits =
        new HttpEndpoint.Limits(
            2,
            16,
            Duration.ofSeconds(30),
            Duration.ofMillis(500),
            1 << 20,
            32 << 20,
            Duration.ZERO,
            0,
            Duration.ofSeconds(60));
    try (HttpEndpoint endpoint = start(limits)) {
      for (int i = 0; i < 16; i++) {
        Socket s = new Socket("127.0.0.1", endpoint.port());
        send(s, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(statusLine(s)).contains("200");
        held.add(s);
      }
      // The 17th is connected by the kernel's listen queue, not taken: no answer ...
      Socket waiting = new Socket("127.0.0.1", endpoint.port());
      held.add(waiting);
      send(waiting, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      waiting.setSoTimeout(700);
      InputStream in = waiting.getInputStream();
      boolean answered;
      try {
        answered = in.read() >= 0;
      } catch (SocketTimeoutException e) {
        answered = false;
      }
      assertThat(answered).isFalse();
      // ... until one of the 16 closes.
      held.get(0).close();
      waiting.setSoTimeout(5000);
      assertThat(statusLine(waiting)).contains("200");
    }
  }

  @Test
  void shouldFinishARequestAlreadyTakenWhenClosed() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    HttpEndpoint.Limits limits =
        new HttpEndpoint.Limits(
            2,
            64,
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            1 << 20,
            32 << 20,
            Duration.ofSeconds(10),
            0,
            Duration.ofSeconds(60));
    HttpEndpoint endpoint = start(limits, blocking(entered));
    CompletableFuture<HttpResponse<String>> call =
        client.sendAsync(
            HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/v1/busy"))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closed = CompletableFuture.runAsync(endpoint::close);
    // The close waits for the call ...
    assertThat(closed).isNotDone();
    assertThat(call).isNotDone();
    release.countDown();
    // ... which is answered whole.
    HttpResponse<String> r = call.get(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("done\n");
    closed.get(15, TimeUnit.SECONDS);
  }

  private static HttpEndpoint start(HttpEndpoint.Limits limits, HttpEndpoint.Route... routes) {
    return HttpEndpoint.start(
        "127.0.0.1",
        0,
        null,
        new PrometheusRegistry(),
        () -> HttpEndpoint.Readiness.ready("running"),
        limits,
        routes);
  }

  private static HttpResponse<String> get(HttpClient c, HttpEndpoint endpoint, String path)
      throws Exception {
    return c.send(
        HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + path))
            .timeout(Duration.ofSeconds(2))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void send(Socket s, String text) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** The first line of the answer on {@code s}. */
  private static String statusLine(Socket s) throws IOException {
    s.setSoTimeout(s.getSoTimeout() == 0 ? 5000 : s.getSoTimeout());
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      line.append((char) c);
    }
    return line.toString();
  }

  /** Whether the server closes {@code s} (after whatever it answers) within 5 s. */
  private static boolean readsToTheEnd(Socket s) throws IOException {
    s.setSoTimeout(5000);
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // an error answer may come before the close
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
