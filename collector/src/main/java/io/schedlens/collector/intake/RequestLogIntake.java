package io.schedlens.collector.intake;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * {@code POST /v1/request-logs}: request logs as JSON lines (Fluent Bit's {@code http} output with
 * {@code format json_lines}, Vector's HTTP sink with newline framing) or a JSON array, optionally
 * gzip-encoded.
 *
 * <p>Answers: 202 with the counts of accepted and rejected lines once Kafka has acknowledged them
 * (rejected lines go to the dead-letter topic with a reason, and each is listed with its line
 * number and why: a line whose time or latency is out of range is rejected on its own, its
 * neighbours accepted); 400 when no line was usable; 401 without the configured bearer token; 413
 * for a body over the limit, or a batch larger than the whole send buffer (which a 503 would have
 * the shipper send again forever); 503 with {@code Retry-After} when Kafka is unreachable or the
 * send buffer is full, before taking any line, so that the shipper retries. Once the lines are in
 * the send buffer the answer is 202 even if Kafka is slower than {@code intake.ack.timeout} (with
 * {@code "delivered": false}): the collector delivers them, and a retry would count them twice.
 */
public final class RequestLogIntake implements HttpHandler {

  public static final String PATH = "/v1/request-logs";
  public static final String SOURCE = "request-logs";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_ERRORS_SHOWN = 10;

  private final RequestLogParser parser;
  private final KafkaSink sink;
  private final Records records;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final byte[] token;
  private final int maxBody;
  private final int maxLine;
  private final Duration ackTimeout;

  public RequestLogIntake(
      RequestLogParser parser,
      KafkaSink sink,
      Records records,
      CollectorMetrics metrics,
      Clock clock,
      String token,
      int maxBody,
      int maxLine,
      Duration ackTimeout) {
    this.parser = parser;
    this.sink = sink;
    this.records = records;
    this.metrics = metrics;
    this.clock = clock;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    this.maxBody = maxBody;
    this.maxLine = maxLine;
    this.ackTimeout = ackTimeout;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    long start = System.nanoTime();
    int code = handleTimed(exchange);
    metrics.intakeRequests.labelValues(Integer.toString(code)).inc();
    metrics.intakeRequestDuration.observe((System.nanoTime() - start) / 1e9);
  }

  private int handleTimed(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(PATH)) {
      return error(exchange, 404, "no such endpoint; request logs go to POST " + PATH);
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
    if (!sink.kafkaReachable() || sink.saturated()) {
      drain(exchange, maxBody);
      return unavailable(
          exchange, sink.kafkaReachable() ? "send buffer full" : "Kafka unreachable");
    }
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    if (length != null && parseLong(length) > maxBody) {
      // Not read at all: the connection closes after the answer.
      exchange.getResponseHeaders().set("Connection", "close");
      return error(exchange, 413, "body of " + length + " bytes is over the limit of " + maxBody);
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
    List<RequestLog> accepted = new ArrayList<>();
    List<Rejection> rejected = new ArrayList<>();
    parseBody(body, now, accepted, rejected);

    BatchAck ack = new BatchAck(accepted.size() + rejected.size());
    List<Outgoing> out = new ArrayList<>(accepted.size() + rejected.size());
    for (RequestLog r : accepted) {
      out.add(records.requestLog(r, ack));
    }
    for (Rejection r : rejected) {
      out.add(
          records.deadLetter(
              SOURCE, r.reason, "line " + r.line + ": " + r.detail, r.raw, null, now, ack));
    }
    switch (sink.offerBatch(Records.REQUESTS, out)) {
      case NEVER -> {
        return error(
            exchange,
            413,
            "a batch of "
                + out.size()
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
    metrics.intakeLines.labelValues("accepted").inc(accepted.size());
    metrics.intakeLines.labelValues("rejected").inc(rejected.size());
    if (!delivered) {
      metrics.intakeLines.labelValues("buffered").inc(accepted.size());
    }
    for (Rejection r : rejected) {
      metrics.deadLetters.labelValues(SOURCE, r.reason).inc();
    }

    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("accepted", accepted.size());
    answer.put("rejected", rejected.size());
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
      answer.put(
          "errors",
          rejected.stream()
              .limit(MAX_ERRORS_SHOWN)
              .map(r -> Map.of("line", r.line, "reason", r.reason, "detail", r.detail))
              .toList());
    }
    int code = accepted.isEmpty() && !rejected.isEmpty() ? 400 : 202;
    HttpEndpoint.respondJson(exchange, code, answer);
    return code;
  }

  private record Rejection(int line, String reason, String detail, byte[] raw) {}

  private void parseBody(
      byte[] body, long now, List<RequestLog> accepted, List<Rejection> rejected) {
    int first = 0;
    while (first < body.length && Character.isWhitespace(body[first])) {
      first++;
    }
    if (first < body.length && body[first] == '[') {
      JsonNode array;
      try {
        array = JSON.readTree(body);
      } catch (JsonProcessingException e) {
        rejected.add(
            new Rejection(
                1,
                RequestLogParser.MALFORMED_JSON,
                "not a JSON array: " + e.getOriginalMessage(),
                body));
        return;
      } catch (IOException e) {
        rejected.add(new Rejection(1, RequestLogParser.MALFORMED_JSON, e.getMessage(), body));
        return;
      }
      int i = 0;
      for (JsonNode element : array) {
        i++;
        RequestLogParser.Parsed p = parser.parse(element, now);
        take(
            p,
            i,
            p instanceof RequestLogParser.Rejected
                ? element.toString().getBytes(StandardCharsets.UTF_8)
                : null,
            accepted,
            rejected);
      }
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
        byte[] raw = Arrays.copyOfRange(body, pos, lineEnd);
        rejected.add(
            new Rejection(
                lineNo,
                RequestLogParser.LINE_TOO_LONG,
                len + " bytes, over the limit of " + maxLine,
                raw));
      } else if (!isBlank(body, pos, lineEnd)) {
        RequestLogParser.Parsed p =
            parser.parseLine(new String(body, pos, len, StandardCharsets.UTF_8), now);
        take(
            p,
            lineNo,
            p instanceof RequestLogParser.Rejected ? Arrays.copyOfRange(body, pos, lineEnd) : null,
            accepted,
            rejected);
      }
      pos = end + 1;
    }
  }

  private static void take(
      RequestLogParser.Parsed p,
      int line,
      byte[] raw,
      List<RequestLog> accepted,
      List<Rejection> rejected) {
    if (p instanceof RequestLogParser.Accepted a) {
      accepted.add(a.log());
    } else if (p instanceof RequestLogParser.Rejected r) {
      rejected.add(new Rejection(line, r.reason(), r.detail(), raw));
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

  /**
   * Reads and drops the body so that the connection can serve the shipper's retry; past {@code
   * limit} bytes it stops, and the connection closes after the answer.
   */
  private static void drain(HttpExchange exchange, long limit) {
    InputStream in = exchange.getRequestBody();
    try {
      byte[] buf = new byte[64 * 1024];
      long read = 0;
      int n;
      while ((n = in.read(buf)) > 0) {
        read += n;
        if (read > limit) {
          exchange.getResponseHeaders().set("Connection", "close");
          return;
        }
      }
    } catch (IOException ignored) {
      // the client went away
    }
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private int unavailable(HttpExchange exchange, String why) throws IOException {
    exchange.getResponseHeaders().set("Retry-After", "5");
    return error(exchange, 503, why + "; retry later");
  }

  private static int error(HttpExchange exchange, int code, String message) throws IOException {
    HttpEndpoint.respondJson(exchange, code, Map.of("error", message));
    return code;
  }
}
