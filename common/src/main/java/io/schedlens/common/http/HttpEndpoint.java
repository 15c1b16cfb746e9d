package io.schedlens.common.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.schedlens.common.threads.WorkerThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of a schedlens process: {@code /metrics} (Prometheus text or OpenMetrics, by
 * client_java's handler), {@code /healthz} (the process is alive), {@code /readyz} (it can do its
 * job: informers synced and Kafka reachable, or the streams client RUNNING) and any routes the
 * process adds (the request-log intake, the timeline API).
 *
 * <p>Built on the JDK's HTTP server, as client_java's own exporter is; a thread pool bounds the
 * concurrent requests.
 */
public final class HttpEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /*
   * The JDK server reads a request's header and body on its handler threads, without a bound by
   * default: a client that sends half a header holds a thread for ever. These bound it (seconds),
   * for every server of the process; set before the server's configuration is first read.
   */
  static {
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "30");
    }
    if (System.getProperty("sun.net.httpserver.maxRspTime") == null) {
      System.setProperty("sun.net.httpserver.maxRspTime", "120");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;

  /** The probes' own server and threads, or null when they share the main port. */
  private HttpServer probeServer;

  private ExecutorService probeExecutor;

  /** What {@code /readyz} reports: ready or not, and why. */
  public record Readiness(boolean ready, String detail) {
    public static Readiness ready(String detail) {
      return new Readiness(true, detail);
    }

    public static Readiness notReady(String detail) {
      return new Readiness(false, detail);
    }
  }

  private HttpEndpoint(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds {@code host:port} (port 0 picks a free one) and serves metrics and probes.
   *
   * @param threads request-handling threads
   */
  public static HttpEndpoint start(
      String host,
      int port,
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      int threads,
      Route... routes) {
    return start(host, port, null, registry, readiness, threads, routes);
  }

  /**
   * As {@link #start(String, int, PrometheusRegistry, Supplier, int, Route...)}, over TLS when
   * {@code tls} is not null (see {@link HttpTls}).
   */
  public static HttpEndpoint start(
      String host,
      int port,
      SSLContext tls,
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      int threads,
      Route... routes) {
    HttpServer server;
    try {
      if (tls == null) {
        server = HttpServer.create(new InetSocketAddress(host, port), 128);
      } else {
        HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 128);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        server = https;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "); choose another port",
          e);
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(threads, WorkerThreads.factory("http-" + port));
    server.setExecutor(executor);
    server.createContext("/metrics", new MetricsHandler(registry));
    addProbes(server, readiness);
    for (Route route : routes) {
      server.createContext(route.path(), guarded(route.handler()));
    }
    server.start();
    return new HttpEndpoint(server, executor);
  }

  /** A path prefix and its handler. */
  public record Route(String path, HttpHandler handler) {}

  /** The port actually bound. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The base URL, e.g. {@code http://127.0.0.1:9400} ({@code https://} over TLS). */
  public String baseUrl() {
    InetSocketAddress a = server.getAddress();
    return (server instanceof HttpsServer ? "https://" : "http://")
        + a.getHostString()
        + ":"
        + a.getPort();
  }

  /**
   * Also serves {@code /healthz} and {@code /readyz} on {@code host:probePort}, with threads of
   * their own, so that clients of the main port (the intake, {@code /api}), however many or slow,
   * cannot keep the kubelet's probes from an answer. Returns this.
   */
  public HttpEndpoint withProbesOn(String host, int probePort, Supplier<Readiness> readiness) {
    try {
      probeServer = HttpServer.create(new InetSocketAddress(host, probePort), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen for probes on " + host + ":" + probePort + " (" + e.getMessage() + ")", e);
    }
    AtomicInteger n = new AtomicInteger();
    probeExecutor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "probes-" + probePort + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    probeServer.setExecutor(probeExecutor);
    addProbes(probeServer, readiness);
    probeServer.start();
    return this;
  }

  /** The probes' own port, or -1 when they share the main port only. */
  public int probePort() {
    return probeServer == null ? -1 : probeServer.getAddress().getPort();
  }

  private static void addProbes(HttpServer server, Supplier<Readiness> readiness) {
    server.createContext("/healthz", exchange -> respond(exchange, 200, "text/plain", "ok\n"));
    server.createContext(
        "/readyz",
        exchange -> {
          Readiness r = readiness.get();
          respond(exchange, r.ready() ? 200 : 503, "text/plain", r.detail() + "\n");
        });
  }

  @Override
  public void close() {
    if (probeServer != null) {
      probeServer.stop(0);
      probeExecutor.shutdownNow();
    }
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static HttpHandler guarded(HttpHandler handler) {
    return exchange -> {
      try {
        handler.handle(exchange);
      } catch (RuntimeException e) {
        log.warn("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
        try {
          respondJson(exchange, 500, Map.of("error", "internal error: " + e));
        } catch (IOException ignored) {
          // the response may already be committed
        }
      } finally {
        exchange.close();
      }
    };
  }

  /** Writes a complete response with the given body. */
  public static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType + "; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
    exchange.close();
  }

  /** Writes a JSON response. */
  public static void respondJson(HttpExchange exchange, int status, Object body)
      throws IOException {
    respond(exchange, status, "application/json", JSON.writeValueAsString(body) + "\n");
  }
}
