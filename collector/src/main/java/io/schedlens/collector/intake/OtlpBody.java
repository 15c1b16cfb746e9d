package io.schedlens.collector.intake;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.schedlens.projections.requests.RequestLogParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An OTLP/HTTP export request, protobuf or JSON, walked entry by entry: each resource entry, each
 * scope entry in it, each span or log record in that, one at a time, and every item held to the
 * item limit before it is parsed, alone. Nothing of the whole request is ever built: 8 million
 * empty resource entries cost a walk over their bytes (and the item cap stops it), not 8 million
 * objects; a JSON body is never a tree, printed back to text and parsed again. Pure.
 *
 * <p>The protobuf walk reads the wire format's tags and lengths with protobuf's own {@code
 * CodedInputStream}, by the field numbers of OpenTelemetry's generated classes; the JSON walk reads
 * the protobuf JSON mapping's field names (lowerCamelCase, or the proto names) with Jackson's
 * streaming parser, and gives each item alone to protobuf's {@code JsonFormat}.
 */
final class OtlpBody {

  private static final JsonFactory JSON_FACTORY = new ObjectMapper().getFactory();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFormat.Parser PROTO_JSON = JsonFormat.parser().ignoringUnknownFields();

  private OtlpBody() {}

  /** What a signal's request is made of: its three levels, by field number and JSON name. */
  enum Signal {
    TRACES(
        "ExportTraceServiceRequest",
        ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER,
        ResourceSpans.RESOURCE_FIELD_NUMBER,
        ResourceSpans.SCOPE_SPANS_FIELD_NUMBER,
        ScopeSpans.SPANS_FIELD_NUMBER,
        List.of("resourceSpans", "resource_spans"),
        List.of("scopeSpans", "scope_spans"),
        List.of("spans")),
    LOGS(
        "ExportLogsServiceRequest",
        ExportLogsServiceRequest.RESOURCE_LOGS_FIELD_NUMBER,
        ResourceLogs.RESOURCE_FIELD_NUMBER,
        ResourceLogs.SCOPE_LOGS_FIELD_NUMBER,
        ScopeLogs.LOG_RECORDS_FIELD_NUMBER,
        List.of("resourceLogs", "resource_logs"),
        List.of("scopeLogs", "scope_logs"),
        List.of("logRecords", "log_records"));

    final String request;
    final int resourceEntries;
    final int resource;
    final int scopeEntries;
    final int items;
    final List<String> resourceEntriesJson;
    final List<String> scopeEntriesJson;
    final List<String> itemsJson;

    Signal(
        String request,
        int resourceEntries,
        int resource,
        int scopeEntries,
        int items,
        List<String> resourceEntriesJson,
        List<String> scopeEntriesJson,
        List<String> itemsJson) {
      this.request = request;
      this.resourceEntries = resourceEntries;
      this.resource = resource;
      this.scopeEntries = scopeEntries;
      this.items = items;
      this.resourceEntriesJson = resourceEntriesJson;
      this.scopeEntriesJson = scopeEntriesJson;
      this.itemsJson = itemsJson;
    }
  }

  /** How the items of a walk become request logs, once read. */
  record Reading(RequestLogParser parser, OtlpRequests.PodsByUid pods, long now, int maxItem) {}

  /**
   * Walks a request's body, giving each item to {@code items}.
   *
   * @throws OtlpRequests.Undecodable the body is not an export request of the signal in the
   *     encoding (nothing given to {@code items} may be used then)
   */
  static void walk(
      Body body, Signal signal, OtlpRequests.Encoding encoding, Reading reading, Items items)
      throws OtlpRequests.Undecodable {
    Walk walk = new Walk(body, signal, reading, items);
    try {
      if (encoding == OtlpRequests.Encoding.PROTOBUF) {
        walk.protobuf();
      } else {
        walk.json();
      }
    } catch (InvalidProtocolBufferException | JsonProcessingException | NotThatShape e) {
      throw new OtlpRequests.Undecodable(
          "not an OTLP "
              + signal.request
              + " in "
              + encoding.contentType
              + ": "
              + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
    } catch (IOException e) {
      throw new OtlpRequests.Undecodable(e.getMessage());
    }
  }

  /** A JSON body whose values are not of the types the mapping gives the fields. */
  private static final class NotThatShape extends IOException {
    private static final long serialVersionUID = 1L;

    NotThatShape(String message) {
      super(message);
    }
  }

  /** A range of the body's bytes. */
  private record Range(int from, int length) {
    int to() {
      return from + length;
    }
  }

  /** What a field of a protobuf message is given to: its number and its bytes. */
  private interface FieldAction {
    void on(int field, Range range) throws IOException;
  }

  /** What one pass over a resource entry found: its resource (in parts) and its scope entries. */
  private static final class Entry {
    final List<Range> resources = new ArrayList<>(1);
    final List<Range> scopes = new ArrayList<>();
    final int maxItem;
    boolean resourceTooLarge;
    int resourceBytes;

    Entry(int maxItem) {
      this.maxItem = maxItem;
    }

    void resource(Range r) {
      resourceBytes += r.length();
      if (resourceBytes > maxItem) {
        resourceTooLarge = true;
      } else {
        resources.add(r);
      }
    }
  }

  /** One walk: the body, and the count of items so far (their numbers in the answer). */
  private static final class Walk {
    private final Body body;
    private final Signal signal;
    private final Reading reading;
    private final Items items;
    private int item;

    Walk(Body body, Signal signal, Reading reading, Items items) {
      this.body = body;
      this.signal = signal;
      this.reading = reading;
      this.items = items;
    }

    // ---- protobuf ----

    void protobuf() throws IOException {
      eachField(
          new Range(0, body.length()),
          (field, r) -> {
            if (field == signal.resourceEntries) {
              protobufResourceEntry(r);
            }
          });
    }

    /**
     * One resource entry: its resource and scope entries found in one pass (the scopes counted as
     * they are found), then each scope's items read with the resource's attributes.
     */
    private void protobufResourceEntry(Range entry) throws IOException {
      items.passedOver();
      if (entry.length() == 0) {
        return;
      }
      Entry e = new Entry(reading.maxItem());
      eachField(
          entry,
          (field, r) -> {
            if (field == signal.resource) {
              e.resource(r);
            } else if (field == signal.scopeEntries) {
              items.passedOver();
              e.scopes.add(r);
            }
          });
      Resource.Builder resource = Resource.newBuilder();
      for (Range r : e.resources) {
        resource.mergeFrom(body.copy(r.from(), r.to()));
      }
      if (e.resourceTooLarge) {
        resourceTooLarge(entry);
        return;
      }
      Map<String, AnyValue> attributes = OtlpRequests.resourceAttributes(resource, reading.pods());
      for (Range scope : e.scopes) {
        eachField(
            scope,
            (field, r) -> {
              if (field == signal.items) {
                protobufItem(r, attributes);
              }
            });
      }
    }

    private void protobufItem(Range r, Map<String, AnyValue> resource) throws IOException {
      item++;
      if (tooLarge(r)) {
        return;
      }
      byte[] bytes = body.copy(r.from(), r.to());
      if (signal == Signal.TRACES) {
        span(Span.parseFrom(bytes), resource);
      } else {
        logRecord(LogRecord.parseFrom(bytes), resource);
      }
    }

    /**
     * Gives each length-delimited field of the message {@code within} to {@code action}, with its
     * number, passing over the fields of other wire types.
     */
    private void eachField(Range within, FieldAction action) throws IOException {
      CodedInputStream in = body.protobuf(within.from(), within.to());
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int length = in.readRawVarint32();
          int from = within.from() + in.getTotalBytesRead();
          if (length < 0 || from + length > within.to()) {
            throw new InvalidProtocolBufferException("a length runs past the end of its message");
          }
          in.skipRawBytes(length);
          action.on(WireFormat.getTagFieldNumber(tag), new Range(from, length));
        } else if (!in.skipField(tag)) {
          return; // an end-group tag: the message ends here
        }
      }
    }

    // ---- JSON ----

    void json() throws IOException {
      try (JsonParser in = JSON_FACTORY.createParser(body.stream(0, body.length()))) {
        if (in.nextToken() != JsonToken.START_OBJECT) {
          throw new NotThatShape("the body is not a JSON object");
        }
        JsonToken t;
        while ((t = in.nextToken()) == JsonToken.FIELD_NAME) {
          String name = in.currentName();
          JsonToken value = in.nextToken();
          if (signal.resourceEntriesJson.contains(name) && value != JsonToken.VALUE_NULL) {
            expect(value, JsonToken.START_ARRAY, "'" + name + "'");
            while ((value = in.nextToken()) != JsonToken.END_ARRAY) {
              expect(value, JsonToken.START_OBJECT, "an element of '" + name + "'");
              jsonResourceEntry(in, 0);
            }
          } else {
            in.skipChildren();
          }
        }
        if (t != JsonToken.END_OBJECT || in.nextToken() != null) {
          throw new NotThatShape("the request's object does not end where the body does");
        }
      }
    }

    /**
     * One resource entry, {@code in} at its start: its resource and scope entries found in one pass
     * over its tokens (the scopes counted as they are found), then each scope read on its own with
     * the resource's attributes.
     *
     * @param base where in the body {@code in}'s input starts (its offsets count from there)
     */
    private void jsonResourceEntry(JsonParser in, int base) throws IOException {
      items.passedOver();
      int start = base + (int) in.currentTokenLocation().getByteOffset();
      Entry e = new Entry(reading.maxItem());
      JsonToken t;
      while ((t = in.nextToken()) == JsonToken.FIELD_NAME) {
        String name = in.currentName();
        JsonToken value = in.nextToken();
        if (value == JsonToken.VALUE_NULL) {
          continue;
        }
        if (name.equals("resource")) {
          expect(value, JsonToken.START_OBJECT, "'resource'");
          e.resource(skipped(in, base));
        } else if (signal.scopeEntriesJson.contains(name)) {
          expect(value, JsonToken.START_ARRAY, "'" + name + "'");
          while ((value = in.nextToken()) != JsonToken.END_ARRAY) {
            expect(value, JsonToken.START_OBJECT, "an element of '" + name + "'");
            items.passedOver();
            e.scopes.add(skipped(in, base));
          }
        } else {
          in.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new NotThatShape("a resource entry does not end");
      }
      if (e.resourceTooLarge) {
        int end = base + (int) in.currentLocation().getByteOffset();
        resourceTooLarge(new Range(start, end - start));
        return;
      }
      Resource.Builder resource = Resource.newBuilder();
      for (Range r : e.resources) {
        PROTO_JSON.merge(text(r), resource);
      }
      if (e.scopes.isEmpty()) {
        return;
      }
      Map<String, AnyValue> attributes = OtlpRequests.resourceAttributes(resource, reading.pods());
      for (Range scope : e.scopes) {
        try (JsonParser s = JSON_FACTORY.createParser(body.stream(scope.from(), scope.to()))) {
          s.nextToken();
          while ((t = s.nextToken()) == JsonToken.FIELD_NAME) {
            String name = s.currentName();
            JsonToken value = s.nextToken();
            if (signal.itemsJson.contains(name) && value != JsonToken.VALUE_NULL) {
              expect(value, JsonToken.START_ARRAY, "'" + name + "'");
              while ((value = s.nextToken()) != JsonToken.END_ARRAY) {
                expect(value, JsonToken.START_OBJECT, "an element of '" + name + "'");
                jsonItem(skipped(s, scope.from()), attributes);
              }
            } else {
              s.skipChildren();
            }
          }
        }
      }
    }

    private void jsonItem(Range r, Map<String, AnyValue> resource) throws IOException {
      item++;
      if (tooLarge(r)) {
        return;
      }
      String text = hexIdsAsBase64(JSON.readTree(body.copy(r.from(), r.to())));
      if (signal == Signal.TRACES) {
        Span.Builder span = Span.newBuilder();
        PROTO_JSON.merge(text, span);
        span(span.build(), resource);
      } else {
        LogRecord.Builder log = LogRecord.newBuilder();
        PROTO_JSON.merge(text, log);
        logRecord(log.build(), resource);
      }
    }

    private static void expect(JsonToken value, JsonToken expected, String what)
        throws NotThatShape {
      if (value != expected) {
        throw new NotThatShape(
            what + " is not " + (expected == JsonToken.START_ARRAY ? "an array" : "an object"));
      }
    }

    /** The range of the value {@code in} is at the start of, once passed over. */
    private static Range skipped(JsonParser in, int base) throws IOException {
      int from = base + (int) in.currentTokenLocation().getByteOffset();
      in.skipChildren();
      int to = base + (int) in.currentLocation().getByteOffset();
      return new Range(from, to - from);
    }

    private String text(Range r) {
      return new String(body.copy(r.from(), r.to()), StandardCharsets.UTF_8);
    }

    // ---- both ----

    /** Whether an item is over the limit: then it is rejected unparsed. */
    private boolean tooLarge(Range r) {
      if (r.length() <= reading.maxItem()) {
        return false;
      }
      items.rejected(
          item,
          RequestLogParser.LINE_TOO_LONG,
          r.length() + " bytes, over the item limit of " + reading.maxItem(),
          body,
          r.from(),
          r.to());
      return true;
    }

    private void resourceTooLarge(Range entry) {
      item++;
      items.rejected(
          item,
          RequestLogParser.LINE_TOO_LONG,
          "a resource over the item limit of "
              + reading.maxItem()
              + " bytes: its entry of "
              + entry.length()
              + " bytes is rejected whole",
          body,
          entry.from(),
          entry.to());
    }

    private void span(Span span, Map<String, AnyValue> resource) {
      if (span.getKind() != Span.SpanKind.SPAN_KIND_SERVER) {
        items.passedOver();
        return;
      }
      given(OtlpRequests.request(span, resource, reading.parser(), reading.now()), span);
    }

    private void logRecord(LogRecord record, Map<String, AnyValue> resource) {
      given(OtlpRequests.line(record.getBody(), resource, reading.parser(), reading.now()), record);
    }

    private void given(RequestLogParser.Parsed p, Message item) {
      if (p instanceof RequestLogParser.Accepted a) {
        items.accepted(a.log());
      } else if (p instanceof RequestLogParser.Rejected r) {
        byte[] raw = OtlpRequests.json(item);
        items.rejected(this.item, r.reason(), r.detail(), Body.of(raw), 0, raw.length);
      }
    }
  }

  /**
   * OTLP's JSON writes trace and span ids in hex, where the protobuf JSON mapping (and so {@code
   * JsonFormat}) expects base64: an item's ids are rewritten before it is decoded.
   */
  private static String hexIdsAsBase64(JsonNode item) {
    if (item instanceof ObjectNode object) {
      for (String id : List.of("traceId", "spanId", "parentSpanId", "trace_id", "span_id")) {
        JsonNode v = object.get(id);
        if (v != null && v.isTextual() && isHex(v.asText())) {
          object.put(id, Base64.getEncoder().encodeToString(HexFormat.of().parseHex(v.asText())));
        }
      }
      JsonNode links = object.get("links");
      if (links != null && links.isArray()) {
        links.forEach(OtlpBody::hexIdsAsBase64);
      }
    }
    return item.toString();
  }

  private static boolean isHex(String s) {
    if (s.isEmpty() || s.length() % 2 != 0) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
