package io.schedlens.projections.requests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.RequestLog;
import io.schedlens.base.Rfc3339;
import io.schedlens.projections.InputBounds;

/**
 * Turns one request-log JSON object into a {@link RequestLog}, or says why it cannot. Pure.
 *
 * <p>Fields (names as mapped by {@link FieldMapping}): {@code time} (RFC 3339 string, or a number:
 * epoch milliseconds, or epoch seconds when below 10^11, as Fluent Bit's {@code json_date_format
 * double} writes), {@code namespace} and {@code pod} (required), {@code service}, {@code route},
 * {@code status} (required; an HTTP status code, or null or 0 for a request that got no response),
 * {@code latency_ms} (required, non-negative), {@code ttft_ms}, {@code request_id}. A line whose
 * time or latency is out of the {@link InputBounds} is rejected on its own.
 */
public final class RequestLogParser {

  /** Why a line was rejected; these become the dead letter's reason. */
  public static final String MALFORMED_JSON = "malformed-json";

  public static final String NOT_AN_OBJECT = "not-an-object";
  public static final String MISSING_FIELD = "missing-field";
  public static final String INVALID_FIELD = "invalid-field";
  public static final String LINE_TOO_LONG = "line-too-long";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_NAME = 253;

  /** The outcome for one line: a record, or a reason and a detail. */
  public sealed interface Parsed permits Accepted, Rejected {}

  /** A usable line. */
  public record Accepted(RequestLog log) implements Parsed {}

  /** An unusable line, and why. */
  public record Rejected(String reason, String detail) implements Parsed {}

  private final FieldMapping mapping;
  private final InputBounds bounds;

  public RequestLogParser(FieldMapping mapping) {
    this(mapping, InputBounds.defaults());
  }

  /** A parser that also rejects lines whose time or latencies are out of {@code bounds}. */
  public RequestLogParser(FieldMapping mapping, InputBounds bounds) {
    this.mapping = mapping;
    this.bounds = bounds;
  }

  /** Parses one line of JSON text. */
  public Parsed parseLine(String line, long receivedAt) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      return new Rejected(MALFORMED_JSON, "not JSON: " + e.getOriginalMessage());
    }
    return parse(node, receivedAt);
  }

  /** Parses one JSON value (an element of an array body, or a parsed line). */
  public Parsed parse(JsonNode node, long receivedAt) {
    if (node == null || !node.isObject()) {
      return new Rejected(NOT_AN_OBJECT, "expected a JSON object per line");
    }
    JsonNode time = field(node, FieldMapping.TIME);
    JsonNode namespace = field(node, FieldMapping.NAMESPACE);
    JsonNode pod = field(node, FieldMapping.POD);
    JsonNode status = field(node, FieldMapping.STATUS);
    JsonNode latency = field(node, FieldMapping.LATENCY_MS);
    for (var required :
        new Object[][] {
          {FieldMapping.TIME, time},
          {FieldMapping.NAMESPACE, namespace},
          {FieldMapping.POD, pod},
          {FieldMapping.STATUS, status},
          {FieldMapping.LATENCY_MS, latency}
        }) {
      if (required[1] == null) {
        return new Rejected(MISSING_FIELD, "missing field '" + pathOf((String) required[0]) + "'");
      }
    }
    Long millis = time(time);
    if (millis == null) {
      return invalid(FieldMapping.TIME, time, "an RFC 3339 time or epoch milliseconds");
    }
    String ns = name(namespace);
    if (ns == null) {
      return invalid(FieldMapping.NAMESPACE, namespace, "a non-empty string");
    }
    String podName = name(pod);
    if (podName == null) {
      return invalid(FieldMapping.POD, pod, "a non-empty string");
    }
    Integer code;
    if (status.isNull() || (status.isNumber() && status.asInt() == 0)) {
      code = null;
    } else if (status.canConvertToInt()
        && status.isIntegralNumber()
        && status.asInt() >= 100
        && status.asInt() <= 599) {
      code = status.asInt();
    } else if (status.isTextual() && status.asText().matches("[1-5][0-9][0-9]")) {
      code = Integer.parseInt(status.asText());
    } else {
      return invalid(
          FieldMapping.STATUS, status, "an HTTP status code 100-599, or null/0 for no response");
    }
    Double latencyMs = nonNegative(latency);
    if (latencyMs == null) {
      return invalid(FieldMapping.LATENCY_MS, latency, "a non-negative number of milliseconds");
    }
    JsonNode ttft = field(node, FieldMapping.TTFT_MS);
    Double ttftMs = null;
    if (ttft != null && !ttft.isNull()) {
      ttftMs = nonNegative(ttft);
      if (ttftMs == null) {
        return invalid(FieldMapping.TTFT_MS, ttft, "a non-negative number of milliseconds");
      }
    }
    return checked(
        millis,
        ns,
        podName,
        optionalText(field(node, FieldMapping.SERVICE)),
        optionalText(field(node, FieldMapping.ROUTE)),
        code,
        latencyMs,
        ttftMs,
        optionalText(field(node, FieldMapping.REQUEST_ID)),
        receivedAt);
  }

  /**
   * A request log of values already read (from a line, or from an OpenTelemetry span), if its names
   * are usable and its time and latencies within the bounds.
   *
   * @param status the HTTP status, or null for a request that got no response
   */
  public Parsed checked(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      Integer status,
      double latencyMs,
      Double ttftMs,
      String requestId,
      long receivedAt) {
    if (namespace == null || namespace.isEmpty() || namespace.length() > MAX_NAME) {
      return new Rejected(INVALID_FIELD, "namespace '" + namespace + "' is not a usable name");
    }
    if (pod == null || pod.isEmpty() || pod.length() > MAX_NAME) {
      return new Rejected(INVALID_FIELD, "pod '" + pod + "' is not a usable name");
    }
    String problem = bounds.timeProblem(time, receivedAt);
    if (problem != null) {
      return new Rejected(InputBounds.TIME_OUT_OF_RANGE, problem);
    }
    problem = bounds.latencyProblem(pathOf(FieldMapping.LATENCY_MS), latencyMs);
    if (problem == null) {
      problem = bounds.latencyProblem(pathOf(FieldMapping.TTFT_MS), ttftMs);
    }
    if (problem != null) {
      return new Rejected(InputBounds.LATENCY_OUT_OF_RANGE, problem);
    }
    return new Accepted(
        RequestLog.newBuilder()
            .setTime(time)
            .setNamespace(namespace)
            .setPod(pod)
            .setService(service)
            .setRoute(route)
            .setStatus(status)
            .setLatencyMs(latencyMs)
            .setTtftMs(ttftMs)
            .setRequestId(requestId)
            .setReceivedAt(receivedAt)
            .build());
  }

  /**
   * Sets {@code field} of a line to {@code value} where the line has none (and the field's mapped
   * name is one key at the top).
   */
  public void putIfAbsent(ObjectNode line, String field, String value) {
    String[] path = mapping.path(field);
    if (value != null && path.length == 1 && !line.has(path[0])) {
      line.put(path[0], value);
    }
  }

  private JsonNode field(JsonNode node, String field) {
    JsonNode n = node;
    for (String key : mapping.path(field)) {
      n = n.get(key);
      if (n == null) {
        return null;
      }
    }
    return n;
  }

  private String pathOf(String field) {
    return String.join(".", mapping.path(field));
  }

  private Rejected invalid(String field, JsonNode value, String expected) {
    String shown = value.toString();
    if (shown.length() > 80) {
      shown = shown.substring(0, 80) + "...";
    }
    return new Rejected(
        INVALID_FIELD, "field '" + pathOf(field) + "' is " + shown + ", expected " + expected);
  }

  static Long time(JsonNode t) {
    if (t.isNumber()) {
      double v = t.asDouble();
      if (!Double.isFinite(v) || v <= 0) {
        return null;
      }
      return v < 1e11 ? Math.round(v * 1000.0) : Math.round(v);
    }
    if (t.isTextual()) {
      String s = t.asText();
      if (!s.isEmpty() && s.chars().allMatch(Character::isDigit) && s.length() <= 16) {
        return time(JSON.getNodeFactory().numberNode(Long.parseLong(s)));
      }
      return Rfc3339.toEpochMilli(s);
    }
    return null;
  }

  private static String name(JsonNode n) {
    if (!n.isTextual()) {
      return null;
    }
    String s = n.asText();
    return s.isEmpty() || s.length() > MAX_NAME ? null : s;
  }

  private static Double nonNegative(JsonNode n) {
    if (!n.isNumber()) {
      return null;
    }
    double v = n.asDouble();
    return Double.isFinite(v) && v >= 0 ? v : null;
  }

  private static String optionalText(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    String s = n.isTextual() ? n.asText() : n.toString();
    return s.isEmpty() ? null : s;
  }
}
