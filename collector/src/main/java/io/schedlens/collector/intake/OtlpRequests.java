package io.schedlens.collector.intake;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.schemas.PodName;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What OTLP/HTTP export requests ({@code /v1/traces}, {@code /v1/logs}) mean to the intake: their
 * encodings, how a span or a log record becomes a request log (the walk through a body is {@link
 * OtlpBody}'s), and the answers. Pure; the types are OpenTelemetry's official protobuf definitions.
 *
 * <p>A span is a request when it is a server span ({@code SPAN_KIND_SERVER}); other spans are not
 * requests and are passed over. Its pod is the resource's {@code k8s.namespace.name} and {@code
 * k8s.pod.name}, or the pod of its {@code k8s.pod.uid} among those the collector watches; its
 * service {@code service.name}; its route {@code http.route}, else {@code url.path}, else the
 * span's name; its status {@code http.response.status_code} (or the older {@code
 * http.status_code}), else 500 for a span whose status is ERROR and 200 otherwise; its latency the
 * span's duration and its time the span's end; its time to first token the attribute {@code
 * gen_ai.server.time_to_first_token} (or vLLM's {@code gen_ai.latency.time_to_first_token}), in
 * seconds, else the time from the span's start to its event {@code gen_ai.first_token} (or {@code
 * first_token}); its request id {@code <trace id>-<span id>} in hex, so that a span sent again
 * counts once.
 *
 * <p>A log record is a request-log line carried by OTLP (an OpenTelemetry Collector's {@code
 * filelog} receiver and {@code otlphttp} exporter): its body, a JSON string or a map, is read as
 * {@code /v1/request-logs} reads a line, with the resource's {@code k8s.namespace.name} and {@code
 * k8s.pod.name} where the line has no namespace or pod.
 */
final class OtlpRequests {

  static final String TRACES = "/v1/traces";
  static final String LOGS = "/v1/logs";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFormat.Parser PROTO_JSON = JsonFormat.parser().ignoringUnknownFields();
  private static final JsonFormat.Printer PROTO_PRINT =
      JsonFormat.printer().omittingInsignificantWhitespace();

  private OtlpRequests() {}

  /** The two encodings of OTLP/HTTP, by their content types. */
  enum Encoding {
    PROTOBUF("application/x-protobuf"),
    JSON("application/json");

    final String contentType;

    Encoding(String contentType) {
      this.contentType = contentType;
    }

    /** The encoding of a request's {@code Content-Type}, or null for another type. */
    static Encoding of(String contentType) {
      if (contentType == null) {
        return null;
      }
      String type = contentType.split(";", 2)[0].trim();
      for (Encoding e : values()) {
        if (e.contentType.equalsIgnoreCase(type)) {
          return e;
        }
      }
      return null;
    }
  }

  /** A body that is not an OTLP export request of its signal and encoding. */
  static final class Undecodable extends Exception {
    private static final long serialVersionUID = 1L;

    Undecodable(String message) {
      super(message);
    }
  }

  /** The namespace and name of a pod by its UID, where known. */
  interface PodsByUid {
    Optional<PodName> nameOf(String uid);

    PodsByUid NONE = uid -> Optional.empty();
  }

  /** The answer to a traces request, in its encoding: partial success when some were rejected. */
  static byte[] tracesAnswer(Encoding encoding, int rejected, String message) {
    ExportTraceServiceResponse.Builder answer = ExportTraceServiceResponse.newBuilder();
    if (rejected > 0) {
      answer.setPartialSuccess(
          ExportTracePartialSuccess.newBuilder()
              .setRejectedSpans(rejected)
              .setErrorMessage(message));
    }
    return encode(answer.build(), encoding);
  }

  /** The answer to a logs request, in its encoding. */
  static byte[] logsAnswer(Encoding encoding, int rejected, String message) {
    ExportLogsServiceResponse.Builder answer = ExportLogsServiceResponse.newBuilder();
    if (rejected > 0) {
      answer.setPartialSuccess(
          ExportLogsPartialSuccess.newBuilder()
              .setRejectedLogRecords(rejected)
              .setErrorMessage(message));
    }
    return encode(answer.build(), encoding);
  }

  private static byte[] encode(Message message, Encoding encoding) {
    if (encoding == Encoding.PROTOBUF) {
      return message.toByteArray();
    }
    try {
      return PROTO_PRINT.print(message).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A resource's attributes, with its pod's namespace and name added from its {@code k8s.pod.uid}
   * where it names the pod by UID alone.
   */
  static Map<String, AnyValue> resourceAttributes(Resource.Builder resource, PodsByUid pods) {
    return withPodName(attributes(resource.getAttributesList()), pods);
  }

  /** The resource's attributes, with its pod's namespace and name added from its UID if absent. */
  private static Map<String, AnyValue> withPodName(Map<String, AnyValue> resource, PodsByUid pods) {
    String uid = text(resource.get("k8s.pod.uid"));
    if (uid == null
        || (text(resource.get("k8s.pod.name")) != null
            && text(resource.get("k8s.namespace.name")) != null)) {
      return resource;
    }
    pods.nameOf(uid)
        .ifPresent(
            name -> {
              resource.put("k8s.namespace.name", string(name.namespace()));
              resource.put("k8s.pod.name", string(name.name()));
            });
    return resource;
  }

  private static AnyValue string(String s) {
    return AnyValue.newBuilder().setStringValue(s).build();
  }

  /** The request a server span tells of, with its resource's attributes. */
  static RequestLogParser.Parsed request(
      Span span, Map<String, AnyValue> resource, RequestLogParser parser, long now) {
    String namespace = text(resource.get("k8s.namespace.name"));
    String pod = text(resource.get("k8s.pod.name"));
    if (namespace == null || pod == null) {
      return new RequestLogParser.Rejected(
          RequestLogParser.MISSING_FIELD,
          "resource attributes k8s.namespace.name and k8s.pod.name are required"
              + (resource.containsKey("k8s.pod.uid")
                  ? " (its k8s.pod.uid is of no pod the collector knows now)"
                  : "")
              + ": set them in the server's OTEL_RESOURCE_ATTRIBUTES from the downward API, or"
              + " add them with the OpenTelemetry Collector's k8sattributes processor");
    }
    Map<String, AnyValue> attributes = attributes(span.getAttributesList());
    long start = span.getStartTimeUnixNano();
    long end = span.getEndTimeUnixNano();
    if (start <= 0 || end < start) {
      return new RequestLogParser.Rejected(
          RequestLogParser.INVALID_FIELD,
          "span times start " + start + " end " + end + " ns: expected 0 < start <= end");
    }
    Integer status = integer(attributes.get("http.response.status_code"));
    if (status == null) {
      status = integer(attributes.get("http.status_code"));
    }
    if (status == null) {
      status = span.getStatus().getCode() == Status.StatusCode.STATUS_CODE_ERROR ? 500 : 200;
    }
    if (status < 100 || status > 599) {
      return new RequestLogParser.Rejected(
          RequestLogParser.INVALID_FIELD,
          "attribute http.response.status_code is " + status + ", expected 100-599");
    }
    String route = text(attributes.get("http.route"));
    if (route == null) {
      route = text(attributes.get("url.path"));
    }
    if (route == null && !span.getName().isEmpty()) {
      route = span.getName();
    }
    Double ttftMs = seconds(attributes.get("gen_ai.server.time_to_first_token"));
    if (ttftMs == null) {
      ttftMs = seconds(attributes.get("gen_ai.latency.time_to_first_token"));
    }
    if (ttftMs == null) {
      for (Span.Event event : span.getEventsList()) {
        if ((event.getName().equals("gen_ai.first_token") || event.getName().equals("first_token"))
            && event.getTimeUnixNano() >= start) {
          ttftMs = (event.getTimeUnixNano() - start) / 1e6;
          break;
        }
      }
    }
    return parser.checked(
        Math.floorDiv(end, 1_000_000L),
        namespace,
        pod,
        text(resource.get("service.name")),
        route,
        status,
        (end - start) / 1e6,
        ttftMs,
        hex(span.getTraceId()) + "-" + hex(span.getSpanId()),
        now);
  }

  /** The request-log line a log record's body carries, with its resource's pod. */
  static RequestLogParser.Parsed line(
      AnyValue body, Map<String, AnyValue> resource, RequestLogParser parser, long now) {
    JsonNode node;
    if (body.hasStringValue()) {
      try {
        node = JSON.readTree(body.getStringValue());
      } catch (JsonProcessingException e) {
        return new RequestLogParser.Rejected(
            RequestLogParser.MALFORMED_JSON,
            "the log record's body is not JSON: " + e.getOriginalMessage());
      }
    } else if (body.hasKvlistValue()) {
      node = toJson(body);
    } else {
      return new RequestLogParser.Rejected(
          RequestLogParser.NOT_AN_OBJECT,
          "the log record's body must be a request-log line (a JSON string or a map)");
    }
    if (node instanceof ObjectNode object) {
      parser.putIfAbsent(object, FieldMapping.NAMESPACE, text(resource.get("k8s.namespace.name")));
      parser.putIfAbsent(object, FieldMapping.POD, text(resource.get("k8s.pod.name")));
    }
    return parser.parse(node, now);
  }

  private static JsonNode toJson(AnyValue v) {
    return switch (v.getValueCase()) {
      case STRING_VALUE -> JSON.getNodeFactory().textNode(v.getStringValue());
      case BOOL_VALUE -> JSON.getNodeFactory().booleanNode(v.getBoolValue());
      case INT_VALUE -> JSON.getNodeFactory().numberNode(v.getIntValue());
      case DOUBLE_VALUE -> JSON.getNodeFactory().numberNode(v.getDoubleValue());
      case KVLIST_VALUE -> {
        ObjectNode o = JSON.createObjectNode();
        for (KeyValue kv : v.getKvlistValue().getValuesList()) {
          o.set(kv.getKey(), toJson(kv.getValue()));
        }
        yield o;
      }
      case ARRAY_VALUE -> {
        var a = JSON.createArrayNode();
        v.getArrayValue().getValuesList().forEach(e -> a.add(toJson(e)));
        yield a;
      }
      default -> JSON.getNodeFactory().nullNode();
    };
  }

  private static Map<String, AnyValue> attributes(List<KeyValue> kvs) {
    Map<String, AnyValue> m = new HashMap<>();
    for (KeyValue kv : kvs) {
      m.put(kv.getKey(), kv.getValue());
    }
    return m;
  }

  private static String text(AnyValue v) {
    if (v == null || !v.hasStringValue() || v.getStringValue().isEmpty()) {
      return null;
    }
    return v.getStringValue();
  }

  private static Integer integer(AnyValue v) {
    if (v == null) {
      return null;
    }
    if (v.hasIntValue()) {
      return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v.getIntValue()));
    }
    if (v.hasStringValue() && v.getStringValue().matches("[0-9]{1,3}")) {
      return Integer.parseInt(v.getStringValue());
    }
    return null;
  }

  /** A value in seconds, as milliseconds; null when absent or not a number. */
  private static Double seconds(AnyValue v) {
    if (v == null) {
      return null;
    }
    if (v.hasDoubleValue()) {
      return v.getDoubleValue() * 1000.0;
    }
    if (v.hasIntValue()) {
      return v.getIntValue() * 1000.0;
    }
    return null;
  }

  private static String hex(ByteString id) {
    return HexFormat.of().formatHex(id.toByteArray());
  }

  /** An item as OTLP JSON, for its dead letter. */
  static byte[] json(Message item) {
    try {
      return PROTO_PRINT.print(item).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException e) {
      return item.toString().getBytes(StandardCharsets.UTF_8);
    }
  }
}
