package io.schedlens.collector.intake;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.schedlens.avro.RequestLog;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.BatchAck;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.collector.kafka.Outgoing;
import io.schedlens.collector.kafka.Records;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.schemas.PodName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

/**
 * {@code POST /v1/request-logs}: request logs as JSON lines (Fluent Bit's {@code http} output with
 * {@code format json_lines}, Vector's HTTP sink with newline framing) or a JSON array, optionally
 * gzip-encoded. {@code POST /v1/traces} and {@code /v1/logs}: OpenTelemetry's OTLP/HTTP, in
 * protobuf or JSON, optionally gzip-encoded ({@link OtlpRequests}), with the same token, limits,
 * 503 before taking anything, and dead letters; its answer is OTLP's (200, with a partial success
 * naming the rejected spans or log records).
 *
 * <p>Answers: 202 with the counts of accepted and rejected lines once Kafka has acknowledged them
 * (rejected lines go to the dead-letter topic with a reason, and each is listed with its line
 * number and why: a line whose time or latency is out of range is rejected on its own, its
 * neighbours accepted); 400 when no line was usable; 401 without the configured bearer token; 413
 * for a body over the limit, or a batch larger than the whole send buffer (which a 503 would have
 * the shipper send again forever); 503 with {@code Retry-After} when Kafka is unreachable or the
 * send buffer is full, before taking any line, so that the shipper retries (and the request topic's
 * progress marks wait for the lines it will resend: {@link RequestMarkHold}). Once the lines are in
 * the send buffer the answer is 202 even if Kafka is slower than {@code intake.ack.timeout} (with
 * {@code "delivered": false}): the collector delivers them, and a retry would count them twice.
 */
public final class RequestLogIntake implements HttpHandler {

  public static final String PATH = "/v1/request-logs";

  /** OTLP/HTTP: server spans become request logs (see {@link OtlpRequests}). */
  public static final String OTLP_TRACES = OtlpRequests.TRACES;

  /** OTLP/HTTP: log records carrying request-log lines. */
  public static final String OTLP_LOGS = OtlpRequests.LOGS;

  public static final String SOURCE = "request-logs";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final RequestLogParser parser;
  private final KafkaSink sink;
  private final Records records;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final byte[] token;
  private final int maxBody;
  private final int maxLine;
  private final Duration ackTimeout;
  private final RequestMarkHold markHold;

  /** OTLP resources that name their pod by UID alone: the pods the collector watches. */
  private volatile OtlpRequests.PodsByUid podsByUid = OtlpRequests.PodsByUid.NONE;

  /**
   * Bytes of request bodies the intake may hold at once (each request takes its length, or the body
   * limit when the length is not known before reading: chunked or gzip): what the intake holds is
   * bounded whatever the number of shippers.
   */
  private final Semaphore bodyBudget;

  private final int bodyBudgetBytes;

  public RequestLogIntake(
      RequestLogParser parser,
      KafkaSink sink,
      Records records,
      CollectorMetrics metrics,
      Clock clock,
      String token,
      int maxBody,
      int maxLine,
      Duration ackTimeout,
      RequestMarkHold markHold,
      int maxInFlightBytes) {
    this.parser = parser;
    this.sink = sink;
    this.records = records;
    this.metrics = metrics;
    this.clock = clock;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    this.maxBody = maxBody;
    this.maxLine = maxLine;
    this.ackTimeout = ackTimeout;
    this.markHold = markHold;
    this.bodyBudgetBytes = Math.max(maxInFlightBytes, maxBody);
    this.bodyBudget = new Semaphore(bodyBudgetBytes);
  }

  /** Where OTLP resources that name their pod by {@code k8s.pod.uid} alone find its name. */
  public void resolvePodsBy(Function<String, Optional<PodName>> pods) {
    this.podsByUid = pods::apply;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    long start = System.nanoTime();
    long begun = markHold.begin();
    Handled handled = new Handled();
    try {
      handled.code = answer(exchange, handled);
    } finally {
      bodyBudget.release(handled.budget);
      markHold.end(begun, handled.code == 503, handled.oldestLine);
    }
    int code = handled.code;
    metrics.intakeRequests.labelValues(Integer.toString(code)).inc();
    metrics.intakeRequestDuration.observe((System.nanoTime() - start) / 1e9);
  }

  /** What became of a request: its answer's code, and the time of its oldest usable line. */
  private static final class Handled {
    int code = 500;
    long oldestLine = Long.MAX_VALUE;

    /** Bytes of the body budget this request holds. */
    int budget;
  }

  /** What an OTLP request carries (traces or logs) and how it is encoded; null: JSON lines. */
  private record Otlp(boolean traces, OtlpRequests.Encoding encoding) {}

  private int answer(HttpExchange exchange, Handled handled) throws IOException {
    String path = exchange.getRequestURI().getPath();
    Otlp otlp = null;
    if (path.equals(OtlpRequests.TRACES) || path.equals(OtlpRequests.LOGS)) {
      OtlpRequests.Encoding encoding =
          OtlpRequests.Encoding.of(exchange.getRequestHeaders().getFirst("Content-Type"));
      if (encoding == null) {
        return error(
            exchange,
            415,
            "OTLP/HTTP takes Content-Type application/x-protobuf or application/json");
      }
      otlp = new Otlp(path.equals(OtlpRequests.TRACES), encoding);
    } else if (!path.equals(PATH)) {
      return error(
          exchange,
          404,
          "no such endpoint; request logs go to POST "
              + PATH
              + ", OpenTelemetry to POST "
              + OtlpRequests.TRACES
              + " or "
              + OtlpRequests.LOGS);
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("Allow", "POST");
      return error(exchange, 405, "use POST");
    }
    if (token != null
        && !BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token)) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"schedlens\"");
      return error(exchange, 401, "a valid 'Authorization: Bearer <token>' header is required");
    }
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    long declared = length == null ? -1 : parseLong(length);
    if (declared > maxBody) {
      // Not read at all: the connection closes after the answer.
      exchange.getResponseHeaders().set("Connection", "close");
      return error(exchange, 413, "body of " + length + " bytes is over the limit of " + maxBody);
    }
    String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
    int need = declared >= 0 && encoding == null ? (int) declared : maxBody;
    if (!bodyBudget.tryAcquire(need)) {
      // Not read: the connection closes after the answer, and the shipper sends it again.
      exchange.getResponseHeaders().set("Connection", "close");
      return unavailable(
          exchange,
          "the intake holds "
              + bodyBudgetBytes
              + " bytes of request bodies already (intake.max.inflight.bytes)");
    }
    handled.budget = need;
    if (!sink.kafkaReachable() || sink.saturated()) {
      // Read (within the body limit) for the time of its oldest line: the request topic's marks
      // must wait for it until the shipper has sent it again.
      try {
        handled.oldestLine = oldestLine(otlp, readBody(exchange));
      } catch (BodyTooLarge e) {
        exchange.getResponseHeaders().set("Connection", "close");
        return error(exchange, 413, "body is over the limit of " + maxBody + " bytes");
      } catch (IOException e) {
        // the client went away: nothing to resend that it sent
      }
      return unavailable(
          exchange, sink.kafkaReachable() ? "send buffer full" : "Kafka unreachable");
    }
    byte[] body;
    try {
      body = readBody(exchange);
    } catch (BodyTooLarge e) {
      // The rest is not read (a chunked body has no length to refuse up front): the connection
      // closes after the answer.
      exchange.getResponseHeaders().set("Connection", "close");
      return error(exchange, 413, "body is over the limit of " + maxBody + " bytes");
    } catch (IOException e) {
      return error(exchange, 400, "cannot read the body: " + e.getMessage());
    }

    long now = clock.millis();
    // Each accepted line is serialized as it is parsed, and the rejected ones are gathered into a
    // few dead letters: what a request holds is bounded by its body, whatever the body holds.
    List<Outgoing> out = new ArrayList<>();
    BatchAck ack = BatchAck.unsealed();
    RejectedLines rejected = new RejectedLines(records.maxDeadLetterBytes());
    long[] oldest = {Long.MAX_VALUE};
    String undecodable =
        walk(
            otlp,
            body,
            now,
            new Lines() {
              @Override
              public void accepted(RequestLog log) {
                out.add(records.requestLog(log, ack));
                oldest[0] = Math.min(oldest[0], log.getTime());
              }

              @Override
              public void rejected(
                  int line, String reason, String detail, byte[] raw, int from, int to) {
                rejected.add(line, reason, detail, raw, from, to);
              }
            });
    if (undecodable != null) {
      return error(exchange, 400, undecodable);
    }
    int acceptedLines = out.size();
    handled.oldestLine = oldest[0];
    for (RejectedLines.Chunk c : rejected.chunks()) {
      out.add(records.deadLetter(SOURCE, c.reason(), c.where(), c.raw(), null, now, ack));
    }
    ack.seal(out.size());
    switch (sink.offerBatch(Records.REQUESTS, out)) {
      case NEVER -> {
        return error(
            exchange,
            413,
            "a batch of "
                + (acceptedLines + rejected.count())
                + " lines is larger than the whole send buffer, "
                + sink.capacity()
                + ": send it in smaller batches");
      }
      case FULL -> {
        return unavailable(exchange, "send buffer full");
      }
      case TAKEN -> {}
    }
    // From here on the lines are the collector's to deliver: the producer retries until Kafka
    // takes them. Asking the shipper to send them again (a 503) would count them twice.
    boolean delivered;
    try {
      ack.future().get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
      delivered = true;
    } catch (TimeoutException | ExecutionException e) {
      delivered = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      delivered = false;
    }
    metrics.intakeLines.labelValues("accepted").inc(acceptedLines);
    metrics.intakeLines.labelValues("rejected").inc(rejected.count());
    if (!delivered) {
      metrics.intakeLines.labelValues("buffered").inc(acceptedLines);
    }
    rejected
        .byReason()
        .forEach((reason, n) -> metrics.deadLetters.labelValues(SOURCE, reason).inc(n));

    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("accepted", acceptedLines);
    answer.put("rejected", rejected.count());
    if (!delivered) {
      // Kafka is slower than intake.ack.timeout: the lines wait in the send buffer.
      answer.put("delivered", false);
    }
    if (ack.refused() > 0) {
      answer.put(
          "refused",
          Map.of(
              "lines",
              ack.refused(),
              "reason",
              String.valueOf(ack.firstError()),
              "what",
              "Kafka refused these lines for good; sending them again will not help"));
    }
    if (!rejected.isEmpty()) {
      answer.put("rejectedByReason", rejected.byReason());
      answer.put(
          "errors",
          rejected.examples().stream()
              .map(r -> Map.of("line", r.line(), "reason", r.reason(), "detail", r.detail()))
              .toList());
    }
    if (otlp != null) {
      // OTLP/HTTP: 200, and what was rejected as a partial success, which the exporter does not
      // retry; the rejected items are in the dead-letter topic.
      String message =
          rejected.isEmpty()
              ? ""
              : rejected.count()
                  + " rejected (dead-lettered): "
                  + rejected.examples().stream()
                      .map(r -> "item " + r.line() + ": " + r.reason() + ": " + r.detail())
                      .limit(3)
                      .collect(Collectors.joining("; "));
      byte[] bytes =
          otlp.traces()
              ? OtlpRequests.tracesAnswer(otlp.encoding(), rejected.count(), message)
              : OtlpRequests.logsAnswer(otlp.encoding(), rejected.count(), message);
      exchange.getResponseHeaders().set("Content-Type", otlp.encoding().contentType);
      exchange.sendResponseHeaders(200, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(bytes);
        }
      }
      return 200;
    }
    int code = acceptedLines == 0 && !rejected.isEmpty() ? 400 : 202;
    HttpEndpoint.respondJson(exchange, code, answer);
    return code;
  }

  /**
   * Gives each line of a body ({@code otlp} null) or each item of an OTLP request to {@code lines};
   * returns why an OTLP body cannot be decoded, else null.
   */
  private String walk(Otlp otlp, byte[] body, long now, Lines lines) {
    if (otlp == null) {
      walkBody(body, now, lines);
      return null;
    }
    OtlpRequests.Items items =
        new OtlpRequests.Items() {
          @Override
          public void accepted(RequestLog log) {
            lines.accepted(log);
          }

          @Override
          public void rejected(int item, String reason, String detail, byte[] raw) {
            lines.rejected(item, reason, detail, raw, 0, raw.length);
          }
        };
    try {
      if (otlp.traces()) {
        OtlpRequests.traces(body, otlp.encoding(), parser, podsByUid, now, items);
      } else {
        OtlpRequests.logs(body, otlp.encoding(), parser, podsByUid, now, items);
      }
      return null;
    } catch (OtlpRequests.Undecodable e) {
      return e.getMessage();
    }
  }

  /** What walking a body gives each line to. */
  private interface Lines {
    void accepted(RequestLog log);

    /** A rejected line, its raw bytes {@code raw[from, to)}. */
    void rejected(int line, String reason, String detail, byte[] raw, int from, int to);
  }

  /** The time of the oldest usable line of a body, or {@link Long#MAX_VALUE}. */
  private long oldestLine(Otlp otlp, byte[] body) {
    long[] oldest = {Long.MAX_VALUE};
    walk(
        otlp,
        body,
        clock.millis(),
        new Lines() {
          @Override
          public void accepted(RequestLog log) {
            oldest[0] = Math.min(oldest[0], log.getTime());
          }

          @Override
          public void rejected(
              int line, String reason, String detail, byte[] raw, int from, int to) {}
        });
    return oldest[0];
  }

  /**
   * Parses a body line by line (JSON lines), or element by element (a JSON array, read as a stream
   * so that no tree of the whole body is built), giving each to {@code lines}.
   */
  private void walkBody(byte[] body, long now, Lines lines) {
    int first = 0;
    while (first < body.length && Character.isWhitespace(body[first])) {
      first++;
    }
    if (first < body.length && body[first] == '[') {
      walkArray(body, now, lines);
      return;
    }
    int lineNo = 0;
    int pos = 0;
    while (pos < body.length) {
      int end = pos;
      while (end < body.length && body[end] != '\n') {
        end++;
      }
      lineNo++;
      int lineEnd = end > pos && body[end - 1] == '\r' ? end - 1 : end;
      int len = lineEnd - pos;
      if (len > maxLine) {
        lines.rejected(
            lineNo,
            RequestLogParser.LINE_TOO_LONG,
            len + " bytes, over the limit of " + maxLine,
            body,
            pos,
            lineEnd);
      } else if (!isBlank(body, pos, lineEnd)) {
        RequestLogParser.Parsed p =
            parser.parseLine(new String(body, pos, len, StandardCharsets.UTF_8), now);
        if (p instanceof RequestLogParser.Accepted a) {
          lines.accepted(a.log());
        } else if (p instanceof RequestLogParser.Rejected r) {
          lines.rejected(lineNo, r.reason(), r.detail(), body, pos, lineEnd);
        }
      }
      pos = end + 1;
    }
  }

  private void walkArray(byte[] body, long now, Lines lines) {
    int i = 0;
    try (JsonParser in = JSON.getFactory().createParser(body)) {
      in.nextToken(); // the array's start
      while (in.nextToken() != JsonToken.END_ARRAY) {
        if (in.currentToken() == null) {
          throw new JsonParseException(in, "the array does not end");
        }
        i++;
        JsonNode element = JSON.readTree(in);
        RequestLogParser.Parsed p = parser.parse(element, now);
        if (p instanceof RequestLogParser.Accepted a) {
          lines.accepted(a.log());
        } else if (p instanceof RequestLogParser.Rejected r) {
          byte[] raw = element.toString().getBytes(StandardCharsets.UTF_8);
          lines.rejected(i, r.reason(), r.detail(), raw, 0, raw.length);
        }
      }
    } catch (JsonProcessingException e) {
      // The rest of the body, from the element that broke, is one rejected line.
      lines.rejected(
          i + 1,
          RequestLogParser.MALFORMED_JSON,
          "not a JSON array from element " + (i + 1) + ": " + e.getOriginalMessage(),
          body,
          0,
          body.length);
    } catch (IOException e) {
      lines.rejected(i + 1, RequestLogParser.MALFORMED_JSON, e.getMessage(), body, 0, body.length);
    }
  }

  private static boolean isBlank(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != ' ' && b[i] != '\t') {
        return false;
      }
    }
    return true;
  }

  private static final class BodyTooLarge extends IOException {
    private static final long serialVersionUID = 1L;
  }

  private byte[] readBody(HttpExchange exchange) throws IOException {
    InputStream in = exchange.getRequestBody();
    String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
    if (encoding != null && encoding.equalsIgnoreCase("gzip")) {
      in = new GZIPInputStream(in);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[64 * 1024];
    int n;
    while ((n = in.read(buf)) > 0) {
      if (out.size() + n > maxBody) {
        throw new BodyTooLarge();
      }
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A 503: the shipper sends the batch again (and the request topic's marks wait for it). */
  private int unavailable(HttpExchange exchange, String why) throws IOException {
    exchange.getResponseHeaders().set("Retry-After", "5");
    return error(exchange, 503, why + "; retry later");
  }

  private static int error(HttpExchange exchange, int code, String message) throws IOException {
    HttpEndpoint.respondJson(exchange, code, Map.of("error", message));
    return code;
  }
}
