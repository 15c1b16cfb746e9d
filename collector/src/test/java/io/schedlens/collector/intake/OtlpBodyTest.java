package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The OTLP walk is bounded by the item, never by the request. */
class OtlpBodyTest {

  private static final long START = Instant.parse("2026-12-01T10:00:00Z").toEpochMilli();
  private static final int MAX_ITEM = 4096;

  private final OtlpBody.Reading reading =
      new OtlpBody.Reading(
          new RequestLogParser(FieldMapping.defaults(), InputBounds.anyTime()),
          OtlpRequests.PodsByUid.NONE,
          START,
          MAX_ITEM);

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static Span server(String name, int attributeBytes) {
    Span.Builder span =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[16]))
            .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
            .setName(name)
            .setKind(Span.SpanKind.SPAN_KIND_SERVER)
            .setStartTimeUnixNano(START * 1_000_000)
            .setEndTimeUnixNano((START + 40) * 1_000_000);
    if (attributeBytes > 0) {
      span.addAttributes(attribute("padding", "x".repeat(attributeBytes)));
    }
    return span.build();
  }

  private static ExportTraceServiceRequest request(Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(attribute("k8s.namespace.name", "ai-lab"))
                        .addAttributes(attribute("k8s.pod.name", "chat-0")))
                .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(Arrays.asList(spans))))
        .build();
  }

  private static byte[] encode(ExportTraceServiceRequest r, OtlpRequests.Encoding encoding)
      throws Exception {
    return encoding == OtlpRequests.Encoding.PROTOBUF
        ? r.toByteArray()
        : JsonFormat.printer().print(r).getBytes(StandardCharsets.UTF_8);
  }

  private WalkRecorder walk(byte[] body, OtlpRequests.Encoding encoding) throws Exception {
    WalkRecorder r = new WalkRecorder();
    OtlpBody.walk(Body.of(body), OtlpBody.Signal.TRACES, encoding, reading, r);
    return r;
  }

  @ParameterizedTest
  @EnumSource(OtlpRequests.Encoding.class)
  void shouldRejectASpanOverTheItemLimitUnparsedAndTakeItsNeighbours(OtlpRequests.Encoding encoding)
      throws Exception {
    WalkRecorder r =
        walk(
            encode(request(server("a", 0), server("b", 2 * MAX_ITEM), server("c", 0)), encoding),
            encoding);
    assertThat(r.accepted).extracting(l -> l.getRoute()).containsExactly("a", "c");
    assertThat(r.rejected).containsExactly("2 line-too-long");
    // the resource entry and the scope entry
    assertThat(r.passedOver).isEqualTo(2);
  }

  @Test
  void shouldWalkEightHundredThousandEmptyResourceEntriesWithoutMakingThem() throws Exception {
    // Field 1 (resource_spans), length-delimited, empty: two bytes each.
    byte[] body = new byte[2 * 800_000];
    for (int i = 0; i < body.length; i += 2) {
      body[i] = 0x0A;
    }
    WalkRecorder r = new WalkRecorder();
    long allocated =
        WalkRecorder.allocatedBy(
            () -> {
              try {
                OtlpBody.walk(
                    Body.of(body),
                    OtlpBody.Signal.TRACES,
                    OtlpRequests.Encoding.PROTOBUF,
                    reading,
                    r);
              } catch (OtlpRequests.Undecodable e) {
                throw new AssertionError(e);
              }
            });
    assertThat(r.passedOver).isEqualTo(800_000);
    System.out.printf(
        "OtlpBodyTest: 800,000 empty resource entries walked with %,d bytes allocated%n",
        allocated);
    // Decoded whole, each would be a message of its own (ExportTraceServiceRequest: 8.4 million
    // of them made one request take 740 MB).
    assertThat(allocated / 800_000).as("bytes allocated per entry").isLessThan(64);
  }

  @Test
  void shouldWalkAJsonBodyOfEmptyEntriesWithoutATree() throws Exception {
    StringBuilder json = new StringBuilder("{\"resourceSpans\":[");
    for (int i = 0; i < 400_000; i++) {
      json.append(i == 0 ? "{}" : ",{}");
    }
    byte[] body = json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    WalkRecorder r = new WalkRecorder();
    long allocated =
        WalkRecorder.allocatedBy(
            () -> {
              try {
                OtlpBody.walk(
                    Body.of(body), OtlpBody.Signal.TRACES, OtlpRequests.Encoding.JSON, reading, r);
              } catch (OtlpRequests.Undecodable e) {
                throw new AssertionError(e);
              }
            });
    assertThat(r.passedOver).isEqualTo(400_000);
    System.out.printf(
        "OtlpBodyTest: a JSON body of 400,000 empty entries walked with %,d bytes allocated%n",
        allocated);
    assertThat(allocated / 400_000).as("bytes allocated per entry").isLessThan(400);
  }

  @Test
  void shouldFindTheResourceOfAJsonEntryWhereverItStandsAndTakeProtoNames() throws Exception {
    String span =
        JsonFormat.printer()
            .print(server("late", 0))
            .replace("\"AAAAAAAAAAAAAAAAAAAAAA==\"", "\"00000000000000000000000000000000\"")
            .replace("\"AQIDBAUGBwg=\"", "\"0102030405060708\"");
    String body =
        "{\"resource_spans\":[{\"scope_spans\":[{\"scope\":{\"name\":\"vllm\"},\"spans\":["
            + span
            + "]}],\"schemaUrl\":\"x\",\"resource\":{\"attributes\":["
            + "{\"key\":\"k8s.namespace.name\",\"value\":{\"stringValue\":\"ai-lab\"}},"
            + "{\"key\":\"k8s.pod.name\",\"value\":{\"stringValue\":\"chat-9\"}}]}}]}";
    WalkRecorder r = walk(body.getBytes(StandardCharsets.UTF_8), OtlpRequests.Encoding.JSON);
    assertThat(r.rejected).isEmpty();
    assertThat(r.accepted).hasSize(1);
    assertThat(r.accepted.get(0).getPod()).isEqualTo("chat-9");
    assertThat(r.accepted.get(0).getRequestId())
        .isEqualTo("00000000000000000000000000000000-0102030405060708");
  }

  @ParameterizedTest
  @EnumSource(OtlpRequests.Encoding.class)
  void shouldSayWhyATruncatedBodyIsNotAnExportRequest(OtlpRequests.Encoding encoding)
      throws Exception {
    byte[] whole = encode(request(server("a", 0), server("b", 0)), encoding);
    byte[] cut = Arrays.copyOf(whole, whole.length - 5);
    assertThatThrownBy(() -> walk(cut, encoding))
        .isInstanceOf(OtlpRequests.Undecodable.class)
        .hasMessageContaining("not an OTLP ExportTraceServiceRequest in " + encoding.contentType);
  }

  @Test
  void shouldRefuseJsonWhoseFieldsAreNotOfTheirTypes() {
    assertThatThrownBy(
            () ->
                walk(
                    "{\"resourceSpans\":{\"a\":1}}".getBytes(StandardCharsets.UTF_8),
                    OtlpRequests.Encoding.JSON))
        .isInstanceOf(OtlpRequests.Undecodable.class)
        .hasMessageContaining("'resourceSpans' is not an array");
  }
}
