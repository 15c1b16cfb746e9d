package io.schedlens.common.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.EagerContentHandler;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of a schedlens process: {@code /metrics} (Prometheus text or OpenMetrics, by
 * client_java's handler), {@code /healthz} (the process is alive), {@code /readyz} (it can do its
 * job: informers synced and Kafka reachable, or the streams client RUNNING) and any routes the
 * process adds (the request-log intake, the timeline API).
 *
 * <p>Served by Jetty 12, whose connections are read by a selector and cost no thread while idle or
 * half-sent; the handlers are written against the JDK's {@code com.sun.net.httpserver} interface
 * ({@link JettyExchange}), matched by the JDK server's rule: the route with the longest path that
 * prefixes the request's. In front of the routes (not the probes nor {@code /metrics}):
 *
 * <ul>
 *   <li>a request body up to {@link Limits#eagerBodyBytes} (while all such bodies stay within
 *       {@link Limits#eagerBudgetBytes}) is read before a thread is given to the handler ({@code
 *       EagerContentHandler}, {@link BodyFirst}), so that a client sending its body slowly holds
 *       memory, not a thread;
 *   <li>at most {@link Limits#threads} handler calls run at once ({@code QoSHandler}); a request
 *       over that waits without a thread and is answered 503 after {@link Limits#queueWait};
 *   <li>the other instances' calls ({@code local=true}) have a bound and threads of their own
 *       ({@link Limits#peerThreads}), so that instances calling each other cannot each hold every
 *       thread waiting for the other's;
 * </ul>
 *
 * <p>The pool has threads beyond those, for the probes and {@code /metrics}, so that no number of
 * slow or busy route clients keeps the kubelet's probes from an answer. Connections are bounded
 * ({@link Limits#maxConnections}) and closed after {@link Limits#idleTimeout} without a byte; a
 * close finishes the requests already taken (up to {@link Limits#stopGrace}) before it returns.
 */
public final class HttpEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Paths served from the pool's reserve, outside the routes' bound. */
  private static final String[] RESERVED_PATHS = {"/healthz", "/readyz", "/metrics"};

  /** Renders of {@code /metrics} at once (a Prometheus scrapes a target one at a time). */
  static final int METRICS_AT_ONCE = 2;

  /** Threads the pool keeps beyond the routes' bound: probes, metrics, dispatch. */
  private static final int RESERVE_THREADS = 6;

  private final Server server;
  private final ServerConnector connector;
  private final boolean secure;

  /** The TLS of the main port, or null; what a renewed certificate is loaded into. */
  private final SslContextFactory.Server ssl;

  /** Checks the TLS files for a renewed certificate, or null. */
  private ScheduledExecutorService tlsWatch;

  /** The probes' own server, or null when they share the main port. */
  private Server probeServer;

  private ServerConnector probeConnector;

  /** What {@code /readyz} reports: ready or not, and why. */
  public record Readiness(boolean ready, String detail) {
    public static Readiness ready(String detail) {
      return new Readiness(true, detail);
    }

    public static Readiness notReady(String detail) {
      return new Readiness(false, detail);
    }
  }

  /**
   * How much a port takes on.
   *
   * @param threads handler calls of the routes at once
   * @param maxConnections open connections; more wait in the listen queue
   * @param idleTimeout a connection (or a read of a request) without a byte for this long is closed
   * @param queueWait how long a request waits for one of the {@code threads} before a 503
   * @param eagerBodyBytes a body up to this size is read before the handler gets a thread
   * @param eagerBudgetBytes bodies read so, all requests together; a request finding no room is
   *     read by its handler
   * @param stopGrace how long a close waits for the requests already taken
   * @param peerThreads calls from the other instances of the app ({@link PeerCalls}) handled at
   *     once, with threads of their own; 0: they count among {@code threads}
   * @param bodyDeadline a request body not whole this long after its request started fails (408
   *     when read early; see {@link BodyDeadline})
   */
  public record Limits(
      int threads,
      int maxConnections,
      Duration idleTimeout,
      Duration queueWait,
      int eagerBodyBytes,
      int eagerBudgetBytes,
      Duration stopGrace,
      int peerThreads,
      Duration bodyDeadline) {

    public Limits {
      if (threads < 1 || maxConnections < 1 || eagerBodyBytes < 0 || peerThreads < 0) {
        throw new IllegalArgumentException(
            "threads and maxConnections must be at least 1, eagerBodyBytes and peerThreads not"
                + " negative");
      }
    }

    /** These limits with {@code n} threads of their own for the other instances' calls. */
    public Limits withPeerThreads(int n) {
      return new Limits(
          threads,
          maxConnections,
          idleTimeout,
          queueWait,
          eagerBodyBytes,
          eagerBudgetBytes,
          stopGrace,
          n,
          bodyDeadline);
    }

    /** These limits with requests waiting at most {@code wait} for a thread before a 503. */
    public Limits withQueueWait(Duration wait) {
      return new Limits(
          threads,
          maxConnections,
          idleTimeout,
          wait,
          eagerBodyBytes,
          eagerBudgetBytes,
          stopGrace,
          peerThreads,
          bodyDeadline);
    }

    /** These limits with request bodies due whole within {@code deadline}. */
    public Limits withBodyDeadline(Duration deadline) {
      return new Limits(
          threads,
          maxConnections,
          idleTimeout,
          queueWait,
          eagerBodyBytes,
          eagerBudgetBytes,
          stopGrace,
          peerThreads,
          deadline);
    }

    /** The defaults with {@code threads} handler threads. */
    public static Limits of(int threads) {
      return new Limits(
          threads,
          HttpSettings.DEFAULT_MAX_CONNECTIONS,
          HttpSettings.DEFAULT_IDLE_TIMEOUT,
          Duration.ofSeconds(5),
          HttpSettings.DEFAULT_EAGER_BODY,
          HttpSettings.DEFAULT_EAGER_BUDGET,
          Duration.ofSeconds(10),
          0,
          HttpSettings.DEFAULT_BODY_DEADLINE);
    }
  }

  private HttpEndpoint(Server server, ServerConnector connector, boolean secure) {
    this.server = server;
    this.connector = connector;
    this.secure = secure;
    this.ssl =
        connector.getConnectionFactory(SslConnectionFactory.class) == null
            ? null
            : connector.getConnectionFactory(SslConnectionFactory.class).getSslContextFactory();
  }

  /**
   * Serves the certificate of {@code tls} again whenever its files change (checked every {@code
   * every}): new connections get the renewed certificate, those open keep theirs. Returns this.
   */
  public HttpEndpoint reloadingTls(ServerTls tls, Duration every) {
    if (ssl == null || tls == null) {
      return this;
    }
    tlsWatch =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tls-reload-" + port());
              t.setDaemon(true);
              return t;
            });
    tlsWatch.scheduleWithFixedDelay(
        () -> {
          try {
            SSLContext next = tls.reloaded();
            if (next != null) {
              ssl.reload(f -> f.setSslContext(next));
            }
          } catch (Exception e) {
            log.warn("TLS certificate not reloaded: {}", e.toString());
          }
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
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
    return start(host, port, null, registry, readiness, Limits.of(threads), routes);
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
    return start(host, port, tls, registry, readiness, Limits.of(threads), routes);
  }

  /** As above, with the port's {@link Limits}. */
  public static HttpEndpoint start(
      String host,
      int port,
      SSLContext tls,
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      Limits limits,
      Route... routes) {
    return start(host, port, tls, registry, readiness, limits, PeerCalls.UNAUTHENTICATED, routes);
  }

  /** As above, the other instances' calls known by {@code peers}. */
  public static HttpEndpoint start(
      String host,
      int port,
      SSLContext tls,
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      Limits limits,
      PeerCalls peers,
      Route... routes) {
    QueuedThreadPool pool =
        new QueuedThreadPool(
            limits.threads() + limits.peerThreads() + RESERVE_THREADS + 2, 2 + 2, 60_000);
    pool.setName("http-" + port);
    pool.setDaemon(true);
    pool.setReservedThreads(0);
    Server server = new Server(pool);
    ServerConnector connector = connector(server, host, port, tls, limits);
    server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    server.setStopTimeout(limits.stopGrace().toMillis());

    PathRoutes table = new PathRoutes();
    table.add("/metrics", new MetricsHandler(registry));
    addProbes(table, readiness);
    for (Route route : routes) {
      table.add(route.path(), guarded(route.handler()));
    }
    QoSHandler bound = bound(JettyExchange.handler(table), limits.threads(), limits.queueWait());
    Handler front = bound;
    if (limits.peerThreads() > 0) {
      // The other instances' calls never call further: served from their own threads, they cannot
      // wait on the threads of the client requests that are waiting for them.
      bound.exclude(peers::isPeer);
      QoSHandler own = bound(bound, limits.peerThreads(), limits.queueWait());
      own.include(peers::isPeer);
      front = own;
    }
    front = metricsBound(front);
    if (limits.eagerBodyBytes() > 0) {
      EagerContentHandler eager =
          new EagerContentHandler(
              front, new BodyFirst(limits.eagerBodyBytes(), limits.eagerBudgetBytes()));
      eager.excludePath(RESERVED_PATHS);
      front = eager;
    }
    server.setHandler(new GracefulHandler(new BodyDeadline(front, limits.bodyDeadline())));
    start(server, host, port);
    return new HttpEndpoint(server, connector, tls != null);
  }

  /**
   * At most {@code threads} of the requests it applies to handled at once; others wait, holding no
   * thread, up to {@code wait}, then 503; past 8 waiting per thread, 503 at once.
   */
  private static QoSHandler bound(Handler next, int threads, Duration wait) {
    QoSHandler bound = new QoSHandler(next);
    bound.setMaxRequestCount(threads);
    bound.setMaxSuspendedRequestCount(threads * 8);
    bound.setMaxSuspend(wait);
    bound.setRejectStatusCode(503);
    bound.excludePath(RESERVED_PATHS);
    return bound;
  }

  /**
   * {@code /metrics} rendered {@link #METRICS_AT_ONCE} at a time; the other scrapes wait, holding
   * no thread, up to a second and are then answered 503. Parked rather than refused at once: a
   * flood of scrapes refused at once comes straight back and keeps the pool's queue, where the
   * probes wait for a thread, full of refusals; parked, a scrape costs a few hundred bytes while it
   * waits, and there are at most as many as connections.
   */
  private static QoSHandler metricsBound(Handler next) {
    QoSHandler bound = new QoSHandler(next);
    bound.setMaxRequestCount(METRICS_AT_ONCE);
    bound.setMaxSuspendedRequestCount(Integer.MAX_VALUE);
    bound.setMaxSuspend(Duration.ofSeconds(1));
    bound.setRejectStatusCode(503);
    bound.includePath("/metrics");
    return bound;
  }

  private static ServerConnector connector(
      Server server, String host, int port, SSLContext tls, Limits limits) {
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setIdleTimeout(limits.idleTimeout().toMillis());
    HttpConnectionFactory http11 = new HttpConnectionFactory(http);
    ServerConnector connector;
    if (tls == null) {
      connector = new ServerConnector(server, 1, 1, http11);
    } else {
      http.addCustomizer(new SecureRequestCustomizer(false));
      SslContextFactory.Server ssl = new SslContextFactory.Server();
      ssl.setSslContext(tls);
      connector =
          new ServerConnector(
              server, 1, 1, new SslConnectionFactory(ssl, http11.getProtocol()), http11);
    }
    connector.setHost(host);
    connector.setPort(port);
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    connector.setAcceptQueueSize(128);
    server.addConnector(connector);
    return connector;
  }

  private static void start(Server server, String host, int port) {
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception ignored) {
        // nothing was served
      }
      throw new UncheckedIOException(
          "cannot listen on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "); choose another port",
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  /** A path prefix and its handler. */
  public record Route(String path, HttpHandler handler) {}

  /** The port actually bound. */
  public int port() {
    return connector.getLocalPort();
  }

  /** The base URL, e.g. {@code http://127.0.0.1:9400} ({@code https://} over TLS). */
  public String baseUrl() {
    String host = connector.getHost() == null ? "0.0.0.0" : connector.getHost();
    return (secure ? "https://" : "http://") + host + ":" + port();
  }

  /**
   * Also serves {@code /healthz} and {@code /readyz} on {@code host:probePort}, with threads of
   * their own: the port the manifests point the kubelet at. Returns this.
   */
  public HttpEndpoint withProbesOn(String host, int probePort, Supplier<Readiness> readiness) {
    QueuedThreadPool pool = new QueuedThreadPool(6, 3, 60_000);
    pool.setName("probes-" + probePort);
    pool.setDaemon(true);
    pool.setReservedThreads(0);
    probeServer = new Server(pool);
    Limits limits =
        new Limits(
            2,
            64,
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            0,
            0,
            Duration.ZERO,
            0,
            Duration.ofSeconds(10));
    probeConnector = connector(probeServer, host, probePort, null, limits);
    probeServer.addBean(new NetworkConnectionLimit(limits.maxConnections(), probeConnector));
    PathRoutes table = new PathRoutes();
    addProbes(table, readiness);
    probeServer.setHandler(JettyExchange.handler(table));
    try {
      start(probeServer, host, probePort);
    } catch (UncheckedIOException e) {
      throw new UncheckedIOException(
          "cannot listen for probes on " + host + ":" + probePort + " (" + e.getMessage() + ")",
          e.getCause());
    }
    return this;
  }

  /** The probes' own port, or -1 when they share the main port only. */
  public int probePort() {
    return probeConnector == null ? -1 : probeConnector.getLocalPort();
  }

  private static void addProbes(PathRoutes table, Supplier<Readiness> readiness) {
    table.add("/healthz", exchange -> respond(exchange, 200, "text/plain", "ok\n"));
    table.add(
        "/readyz",
        exchange -> {
          Readiness r = readiness.get();
          respond(exchange, r.ready() ? 200 : 503, "text/plain", r.detail() + "\n");
        });
  }

  /**
   * Stops taking connections, lets the requests already taken finish (up to the stop grace), then
   * closes.
   */
  @Override
  public void close() {
    if (tlsWatch != null) {
      tlsWatch.shutdownNow();
    }
    if (probeServer != null) {
      stop(probeServer);
    }
    stop(server);
  }

  private static void stop(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      log.warn("HTTP server did not stop cleanly: {}", e.toString());
    }
  }

  /**
   * A route's handler, its failures answered without their text: an {@link
   * IllegalArgumentException} (a malformed escape in an address or a form, met before a handler
   * said what was wrong) is a 400, anything else a 500, and neither says more than that to a client
   * who may not even have authenticated. The log gets a line per minute at most for the 400s
   * (anyone can send them), and each 500 with its stack trace (a bug to fix).
   */
  private static HttpHandler guarded(HttpHandler handler) {
    return exchange -> {
      try {
        handler.handle(exchange);
      } catch (IllegalArgumentException e) {
        BAD_REQUESTS.log(exchange.getRequestMethod() + " " + path(exchange) + ": " + e);
        answerQuietly(exchange, 400, "bad request: a malformed address, query or form");
      } catch (RuntimeException e) {
        log.warn("{} {} failed", exchange.getRequestMethod(), path(exchange), e);
        answerQuietly(exchange, 500, "internal error; the log says what failed");
      } finally {
        exchange.close();
      }
    };
  }

  static final RateLimitedLog BAD_REQUESTS = new RateLimitedLog(log, Duration.ofMinutes(1));

  /** A request's path for the log, without its query (which may hold anything). */
  private static String path(HttpExchange exchange) {
    String p = exchange.getRequestURI().getRawPath();
    return p == null || p.length() <= 200 ? p : p.substring(0, 200) + "...";
  }

  static void answerQuietly(HttpExchange exchange, int code, String error) {
    try {
      respondJson(exchange, code, Map.of("error", error));
    } catch (IOException | RuntimeException ignored) {
      // the response may already be committed
    }
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
