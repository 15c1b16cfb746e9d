package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.schedlens.avro.RequestLog;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.schemas.PodName;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Spans made by the real OpenTelemetry Java SDK, encoded by the SDK's own OTLP marshaler in both
 * encodings, read back as request logs.
 */
class OtlpRequestsTest {

  private static final long START = Instant.parse("2026-12-01T10:00:00Z").toEpochMilli();

  private final RequestLogParser parser =
      new RequestLogParser(FieldMapping.defaults(), InputBounds.anyTime());

  /** Spans ended through the SDK, kept as it hands them to an exporter. */
  private static final class Kept implements SpanExporter {
    final List<SpanData> spans = new ArrayList<>();

    @Override
    public CompletableResultCode export(Collection<SpanData> batch) {
      spans.addAll(batch);
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }

  private static List<SpanData> spans(Resource resource) {
    Kept kept = new Kept();
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(resource)
            .addSpanProcessor(SimpleSpanProcessor.create(kept))
            .build()) {
      Tracer tracer = provider.get("vllm");
      // A streamed completion: its first token 120 ms in, as an event.
      Span ok =
          tracer
              .spanBuilder("POST /v1/chat/completions")
              .setSpanKind(SpanKind.SERVER)
              .setStartTimestamp(START, TimeUnit.MILLISECONDS)
              .setAttribute("http.route", "/v1/chat/completions")
              .setAttribute("http.response.status_code", 200L)
              .startSpan();
      ok.addEvent("gen_ai.first_token", START + 120, TimeUnit.MILLISECONDS);
      ok.end(START + 850, TimeUnit.MILLISECONDS);
      // vLLM's own attribute for the time to first token, in seconds; an error by status only.
      tracer
          .spanBuilder("llm_request")
          .setSpanKind(SpanKind.SERVER)
          .setStartTimestamp(START + 1000, TimeUnit.MILLISECONDS)
          .setAttribute(AttributeKey.doubleKey("gen_ai.latency.time_to_first_token"), 0.25)
          .startSpan()
          .setStatus(StatusCode.ERROR)
          .end(START + 1400, TimeUnit.MILLISECONDS);
      // Not a request: a span inside the server.
      tracer
          .spanBuilder("tokenize")
          .setSpanKind(SpanKind.INTERNAL)
          .setStartTimestamp(START + 2000, TimeUnit.MILLISECONDS)
          .startSpan()
          .end(START + 2001, TimeUnit.MILLISECONDS);
    }
    return kept.spans;
  }

  private static byte[] encode(List<SpanData> spans, OtlpRequests.Encoding encoding)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TraceRequestMarshaler request = TraceRequestMarshaler.create(spans);
    if (encoding == OtlpRequests.Encoding.JSON) {
      request.writeJsonTo(out);
    } else {
      request.writeBinaryTo(out);
    }
    return out.toByteArray();
  }

  private record Outcome(List<RequestLog> accepted, List<String> rejected) {}

  private Outcome read(byte[] body, OtlpRequests.Encoding encoding) throws Exception {
    return read(body, encoding, OtlpRequests.PodsByUid.NONE);
  }

  private Outcome read(byte[] body, OtlpRequests.Encoding encoding, OtlpRequests.PodsByUid pods)
      throws Exception {
    Outcome o = new Outcome(new ArrayList<>(), new ArrayList<>());
    OtlpBody.walk(
        Body.of(body),
        OtlpBody.Signal.TRACES,
        encoding,
        new OtlpBody.Reading(parser, pods, START, 64 << 10),
        new Items() {
          @Override
          public void accepted(RequestLog log) {
            o.accepted().add(log);
          }

          @Override
          public void rejected(int item, String reason, String detail, Body raw, int f, int t) {
            o.rejected().add(item + " " + reason + " " + detail);
          }

          @Override
          public void passedOver() {}
        });
    return o;
  }

  @ParameterizedTest
  @EnumSource(OtlpRequests.Encoding.class)
  void shouldMapServerSpansOfTheSdkToRequestsOfTheirPod(OtlpRequests.Encoding encoding)
      throws Exception {
    Resource resource =
        Resource.create(
            Attributes.builder()
                .put("service.name", "chat")
                .put("k8s.namespace.name", "ai-lab")
                .put("k8s.pod.name", "chat-7d9f-abcde")
                .build());
    List<SpanData> spans = spans(resource);
    Outcome o = read(encode(spans, encoding), encoding);

    assertThat(o.rejected()).isEmpty();
    assertThat(o.accepted()).hasSize(2);
    RequestLog first = o.accepted().get(0);
    assertThat(first.getNamespace()).isEqualTo("ai-lab");
    assertThat(first.getPod()).isEqualTo("chat-7d9f-abcde");
    assertThat(first.getService()).isEqualTo("chat");
    assertThat(first.getRoute()).isEqualTo("/v1/chat/completions");
    assertThat(first.getStatus()).isEqualTo(200);
    assertThat(first.getTime()).isEqualTo(START + 850);
    assertThat(first.getLatencyMs()).isEqualTo(850.0);
    assertThat(first.getTtftMs()).isEqualTo(120.0);
    SpanData okSpan = spans.get(0);
    assertThat(first.getRequestId()).isEqualTo(okSpan.getTraceId() + "-" + okSpan.getSpanId());

    RequestLog second = o.accepted().get(1);
    assertThat(second.getStatus()).isEqualTo(500);
    assertThat(second.getRoute()).isEqualTo("llm_request");
    assertThat(second.getLatencyMs()).isEqualTo(400.0);
    assertThat(second.getTtftMs()).isEqualTo(250.0);
  }

  @ParameterizedTest
  @EnumSource(OtlpRequests.Encoding.class)
  void shouldRejectASpanOfNoKnownPodAndAnswerAPartialSuccess(OtlpRequests.Encoding encoding)
      throws Exception {
    Resource resource =
        Resource.create(
            Attributes.builder().put("service.name", "chat").put("k8s.pod.uid", "u-1").build());
    Outcome o = read(encode(spans(resource), encoding), encoding);

    assertThat(o.accepted()).isEmpty();
    assertThat(o.rejected())
        .hasSize(2)
        .allSatisfy(r -> assertThat(r).contains("missing-field").contains("k8s.pod.name"));

    assertThat(o.rejected()).allSatisfy(r -> assertThat(r).contains("k8s.pod.uid"));

    // The same spans, once the collector watches the pod of that UID.
    Outcome known =
        read(
            encode(spans(resource), encoding),
            encoding,
            uid ->
                uid.equals("u-1")
                    ? Optional.of(new PodName("ai-lab", "chat-0"))
                    : Optional.empty());
    assertThat(known.rejected()).isEmpty();
    assertThat(known.accepted())
        .hasSize(2)
        .allSatisfy(
            r -> assertThat(r.getNamespace() + "/" + r.getPod()).isEqualTo("ai-lab/chat-0"));

    byte[] answer = OtlpRequests.tracesAnswer(encoding, 2, "2 rejected");
    ExportTraceServiceResponse.Builder decoded = ExportTraceServiceResponse.newBuilder();
    if (encoding == OtlpRequests.Encoding.JSON) {
      JsonFormat.parser().merge(new String(answer, StandardCharsets.UTF_8), decoded);
    } else {
      decoded.mergeFrom(answer);
    }
    assertThat(decoded.getPartialSuccess().getRejectedSpans()).isEqualTo(2);
    assertThat(decoded.getPartialSuccess().getErrorMessage()).isEqualTo("2 rejected");
    assertThat(OtlpRequests.tracesAnswer(encoding, 0, "")).hasSizeLessThan(3);
  }

  @Test
  void shouldSayWhyABodyIsNotAnExportRequest() {
    for (OtlpRequests.Encoding encoding : OtlpRequests.Encoding.values()) {
      try {
        read("{\"resourceSpans\": [".getBytes(StandardCharsets.UTF_8), encoding);
        throw new AssertionError("decoded");
      } catch (OtlpRequests.Undecodable e) {
        assertThat(e.getMessage())
            .contains("not an OTLP ExportTraceServiceRequest in " + encoding.contentType);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void shouldReadRequestLogLinesCarriedAsLogRecordsWithTheResourcesPod() throws Exception {
    String body =
        "{\"resourceLogs\":[{\"resource\":{\"attributes\":["
            + "{\"key\":\"k8s.namespace.name\",\"value\":{\"stringValue\":\"ai-lab\"}},"
            + "{\"key\":\"k8s.pod.name\",\"value\":{\"stringValue\":\"asr-0\"}}]},"
            + "\"scopeLogs\":[{\"logRecords\":["
            + "{\"body\":{\"stringValue\":\"{\\\"time\\\":\\\"2026-12-01T10:00:01Z\\\","
            + "\\\"status\\\":200,\\\"latency_ms\\\":80,\\\"request_id\\\":\\\"r1\\\"}\"}},"
            + "{\"body\":{\"stringValue\":\"not json\"}}]}]}]}";
    List<RequestLog> accepted = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    OtlpBody.walk(
        Body.of(body.getBytes(StandardCharsets.UTF_8)),
        OtlpBody.Signal.LOGS,
        OtlpRequests.Encoding.JSON,
        new OtlpBody.Reading(parser, OtlpRequests.PodsByUid.NONE, START, 64 << 10),
        new Items() {
          @Override
          public void accepted(RequestLog log) {
            accepted.add(log);
          }

          @Override
          public void rejected(int item, String reason, String detail, Body raw, int f, int t) {
            rejected.add(item + " " + reason);
          }

          @Override
          public void passedOver() {}
        });
    assertThat(accepted).hasSize(1);
    assertThat(accepted.get(0).getPod()).isEqualTo("asr-0");
    assertThat(accepted.get(0).getNamespace()).isEqualTo("ai-lab");
    assertThat(accepted.get(0).getLatencyMs()).isEqualTo(80.0);
    assertThat(rejected).containsExactly("2 malformed-json");
  }
}
