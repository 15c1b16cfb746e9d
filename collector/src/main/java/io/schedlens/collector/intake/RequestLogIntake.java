package io.schedlens.collector.intake;

import com.sun.net.httpserver.HttpExchange;
import io.schedlens.avro.RequestLog;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.schemas.PodName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The request-log intake: three routes ({@link #routes}) and the steps every batch takes on any of
 * them ({@link #serve}): admitted (method, token), its body read under the bounds, parsed item by
 * item, offered to Kafka's send buffer, its acknowledgement awaited, answered.
 *
 * <ul>
 *   <li>{@code POST /v1/request-logs}: JSON lines (Fluent Bit's {@code http} output with {@code
 *       format json_lines}, Vector's HTTP sink with newline framing) or a JSON array ({@link
 *       JsonLinesRoute});
 *   <li>{@code POST /v1/traces} and {@code /v1/logs}: OpenTelemetry's OTLP/HTTP, protobuf or JSON
 *       ({@link OtlpRoute}).
 * </ul>
 *
 * <p>Bounds: a body over {@code intake.max.body.bytes} (sent or inflated) is 413; every line and
 * OTLP item over {@code intake.max.line.bytes} is rejected before it is parsed; more than {@code
 * intake.max.items} items is 413; what all requests hold at once (bodies as they arrive, then their
 * records) is {@code intake.max.inflight.bytes}, past which a request is answered 503 and sends
 * nothing on. 503 with {@code Retry-After} also when Kafka is unreachable or the send buffer full,
 * before taking any line, so that the shipper retries (and the request topic's progress marks wait
 * for the lines it will resend: {@link RequestMarkHold}). Once the lines are in the send buffer the
 * answer is a success even if Kafka is slower than {@code intake.ack.timeout} (with {@code
 * "delivered": false}): the collector delivers them, and a retry would count them twice.
 */
public final class RequestLogIntake {

  public static final String PATH = JsonLinesRoute.PATH;

  /** OTLP/HTTP: server spans become request logs (see {@link OtlpRequests}). */
  public static final String OTLP_TRACES = OtlpRequests.TRACES;

  /** OTLP/HTTP: log records carrying request-log lines. */
  public static final String OTLP_LOGS = OtlpRequests.LOGS;

  public static final String SOURCE = "request-logs";

  /** What the intake takes on: per request and across requests. */
  public record Bounds(int maxBody, int maxLine, int maxItems, int maxInFlightBytes) {}

  private final RequestLogParser parser;
  private final KafkaSink sink;
  private final Records records;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final byte[] token;
  private final Bounds bounds;
  private final Duration ackTimeout;
  private final RequestMarkHold markHold;
  private final IntakeBudget budget;

  /** OTLP resources that name their pod by UID alone: the pods the collector watches. */
  private volatile OtlpRequests.PodsByUid podsByUid = OtlpRequests.PodsByUid.NONE;

  public RequestLogIntake(
      RequestLogParser parser,
      KafkaSink sink,
      Records records,
      CollectorMetrics metrics,
      Clock clock,
      String token,
      Bounds bounds,
      Duration ackTimeout,
      RequestMarkHold markHold) {
    this.parser = parser;
    this.sink = sink;
    this.records = records;
    this.metrics = metrics;
    this.clock = clock;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    this.bounds = bounds;
    this.ackTimeout = ackTimeout;
    this.markHold = markHold;
    this.budget = new IntakeBudget(Math.max(bounds.maxInFlightBytes(), bounds.maxBody()));
  }

  /** Where OTLP resources that name their pod by {@code k8s.pod.uid} alone find its name. */
  public void resolvePodsBy(Function<String, Optional<PodName>> pods) {
    this.podsByUid = pods::apply;
  }

  /** The intake's three routes, each with its handler. */
  public List<HttpEndpoint.Route> routes() {
    return List.of(
        new HttpEndpoint.Route(PATH, new JsonLinesRoute(this)),
        new HttpEndpoint.Route(OTLP_TRACES, new OtlpRoute(this, OtlpBody.Signal.TRACES)),
        new HttpEndpoint.Route(OTLP_LOGS, new OtlpRoute(this, OtlpBody.Signal.LOGS)));
  }

  /** A route's way with its requests. */
  interface Format {

    /** The route's path: requests under it that are not exactly it are 404. */
    String path();

    /**
     * How this request's body is to be read and answered.
     *
     * @throws Refused a request the route cannot read (an OTLP content type it does not take)
     */
    Decoding open(HttpExchange exchange) throws Refused;
  }

  /** How one request's body is read and answered. */
  interface Decoding {

    /** Walks the body, giving each item to {@code items}. */
    void walk(Body body, Items items) throws OtlpRequests.Undecodable;

    /** Answers for a batch that was taken; returns the status code. */
    int answer(HttpExchange exchange, Taken taken) throws IOException;
  }

  /** A batch the send buffer took, and whether Kafka acknowledged it in time. */
  record Taken(IntakeBatch batch, boolean delivered) {}

  /** What the walks of a route's bodies need to read their items. */
  RequestLogParser parser() {
    return parser;
  }

  OtlpBody.Reading otlpReading() {
    return new OtlpBody.Reading(parser, podsByUid, clock.millis(), bounds.maxLine());
  }

  int maxLine() {
    return bounds.maxLine();
  }

  long now() {
    return clock.millis();
  }

  /** What became of a request, for the marks and the metrics. */
  private static final class Served {
    int code = 500;
    long oldestLine = Long.MAX_VALUE;
  }

  /** Serves one request of a route: the steps every batch takes. */
  void serve(HttpExchange exchange, Format format) throws IOException {
    long started = System.nanoTime();
    long begun = markHold.begin();
    Served served = new Served();
    try (IntakeBudget.Hold hold = budget.hold()) {
      served.code = steps(exchange, format, hold, served);
    } catch (Refused r) {
      served.code = r.send(exchange);
    } finally {
      markHold.end(begun, served.code == 503, served.oldestLine);
      metrics.intakeRequests.labelValues(Integer.toString(served.code)).inc();
      metrics.intakeRequestDuration.observe((System.nanoTime() - started) / 1e9);
    }
  }

  private int steps(HttpExchange exchange, Format format, IntakeBudget.Hold hold, Served served)
      throws IOException, Refused {
    admit(exchange, format.path());
    Decoding decoding = format.open(exchange);
    Body body = read(exchange, hold);
    if (!sink.kafkaReachable() || sink.saturated()) {
      served.oldestLine = oldestLine(decoding, body);
      throw Refused.unavailable(sink.kafkaReachable() ? "send buffer full" : "Kafka unreachable");
    }
    IntakeBatch batch = parse(decoding, body, hold);
    served.oldestLine = batch.oldest();
    offer(batch, hold);
    boolean delivered = await(batch);
    count(batch, delivered);
    return decoding.answer(exchange, new Taken(batch, delivered));
  }

  /**
   * The route's own path, POST, and the bearer token when one is required; a body announced over
   * the limit is refused unread.
   */
  private void admit(HttpExchange exchange, String path) throws Refused {
    if (!exchange.getRequestURI().getPath().equals(path)) {
      throw new Refused(
          404,
          "no such endpoint; request logs go to POST "
              + PATH
              + ", OpenTelemetry to POST "
              + OTLP_TRACES
              + " or "
              + OTLP_LOGS);
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      throw new Refused(405, "use POST").header("Allow", "POST");
    }
    if (token != null
        && !BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token)) {
      throw new Refused(401, "a valid 'Authorization: Bearer <token>' header is required")
          .header("WWW-Authenticate", "Bearer realm=\"schedlens\"");
    }
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    if (length != null && parseLong(length) > bounds.maxBody()) {
      throw Refused.tooLarge(
          "body of " + length.strip() + " bytes is over the limit of " + bounds.maxBody());
    }
  }

  /** The body, under the body limit, the budget and the port's body deadline. */
  private Body read(HttpExchange exchange, IntakeBudget.Hold hold) throws Refused {
    try {
      return RequestBody.read(exchange, bounds.maxBody(), hold);
    } catch (RequestBody.TooLarge e) {
      throw Refused.tooLarge(e.getMessage());
    } catch (IntakeBudget.Exhausted e) {
      throw e.never ? Refused.tooLarge(e.getMessage()) : Refused.unavailable(e.getMessage(), true);
    } catch (IOException e) {
      if (causedByTimeout(e)) {
        throw new Refused(408, "the body did not come in time: " + e.getMessage())
            .header("Connection", "close");
      }
      throw new Refused(400, "cannot read the body: " + e.getMessage())
          .header("Connection", "close");
    }
  }

  /** The time of the oldest usable line of a body, or {@link Long#MAX_VALUE}. */
  private long oldestLine(Decoding decoding, Body body) throws Refused {
    long[] oldest = {Long.MAX_VALUE};
    int[] items = {0};
    try {
      decoding.walk(
          body,
          new Items() {
            @Override
            public void accepted(RequestLog log) {
              count();
              oldest[0] = Math.min(oldest[0], log.getTime());
            }

            @Override
            public void rejected(
                int item, String reason, String detail, Body raw, int from, int to) {
              count();
            }

            @Override
            public void passedOver() {
              count();
            }

            private void count() {
              if (++items[0] > bounds.maxItems()) {
                throw new IntakeBatch.TooManyItems(bounds.maxItems());
              }
            }
          });
    } catch (IntakeBatch.TooManyItems e) {
      throw Refused.tooLarge(e.getMessage());
    } catch (OtlpRequests.Undecodable e) {
      // nothing usable in it: nothing to wait for
    }
    return oldest[0];
  }

  /** Each item parsed and made a record. */
  private IntakeBatch parse(Decoding decoding, Body body, IntakeBudget.Hold hold) throws Refused {
    IntakeBatch batch = new IntakeBatch(records, hold, bounds.maxItems());
    try {
      decoding.walk(body, batch);
    } catch (OtlpRequests.Undecodable e) {
      throw new Refused(400, e.getMessage());
    } catch (IntakeBatch.TooManyItems e) {
      throw Refused.tooLarge(e.getMessage());
    } catch (IntakeBudget.Exhausted e) {
      throw e.never ? Refused.tooLarge(e.getMessage()) : Refused.unavailable(e.getMessage(), true);
    }
    return batch;
  }

  /** Into the send buffer, whole or not at all; its bytes are then the buffer's to bound. */
  private void offer(IntakeBatch batch, IntakeBudget.Hold hold) throws Refused {
    List<Outgoing> out = batch.seal(SOURCE, clock.millis());
    switch (sink.offerBatch(Records.REQUESTS, out)) {
      case NEVER ->
          throw Refused.tooLarge(
              "a batch of "
                  + (batch.accepted() + batch.rejected().count())
                  + " lines is larger than the whole send buffer, "
                  + sink.capacity()
                  + ": send it in smaller batches");
      case FULL -> throw Refused.unavailable("send buffer full");
      case TAKEN -> hold.close();
    }
  }

  /**
   * Kafka's acknowledgement, up to {@code intake.ack.timeout}. From here on the lines are the
   * collector's to deliver: the producer retries until Kafka takes them, and asking the shipper to
   * send them again (a 503) would count them twice.
   */
  private boolean await(IntakeBatch batch) {
    try {
      batch.ack().future().get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void count(IntakeBatch batch, boolean delivered) {
    metrics.intakeLines.labelValues("accepted").inc(batch.accepted());
    metrics.intakeLines.labelValues("rejected").inc(batch.rejected().count());
    if (!delivered) {
      metrics.intakeLines.labelValues("buffered").inc(batch.accepted());
    }
    batch
        .rejected()
        .byReason()
        .forEach((reason, n) -> metrics.deadLetters.labelValues(SOURCE, reason).inc(n));
  }

  private static boolean causedByTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A request answered with an error before anything of it was sent on. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    final int code;
    private final Map<String, String> headers = new LinkedHashMap<>();

    Refused(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }

    Refused header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /** 413; the rest of the body is not read, so the connection closes after the answer. */
    static Refused tooLarge(String why) {
      return new Refused(413, why).header("Connection", "close");
    }

    /** A 503: the shipper sends the batch again (and the request topic's marks wait for it). */
    static Refused unavailable(String why) {
      return unavailable(why, false);
    }

    /**
     * @param unread whether the body was left unread (then the connection closes after the answer)
     */
    static Refused unavailable(String why, boolean unread) {
      Refused r = new Refused(503, why + "; retry later").header("Retry-After", "5");
      return unread ? r.header("Connection", "close") : r;
    }

    int send(HttpExchange exchange) throws IOException {
      headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
      HttpEndpoint.respondJson(exchange, code, Map.of("error", getMessage()));
      return code;
    }
  }
}
