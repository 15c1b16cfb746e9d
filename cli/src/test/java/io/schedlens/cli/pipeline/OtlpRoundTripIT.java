package io.schedlens.cli.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.runs.demo.TimelineCollector;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.TopicReader;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests told as OpenTelemetry spans, end to end: the real OpenTelemetry Java SDK exports server
 * spans of two serving pods to the collector's {@code /v1/traces} with its OTLP/HTTP exporter
 * (protobuf, gzip), and more as OTLP JSON (the SDK's own JSON encoding), each JSON request sent
 * twice as an exporter does when an answer is lost; the streams app makes the pods' final
 * timelines, which count each span once, with its latency and errors, and the requests topic
 * carries each span's time to first token.
 */
class OtlpRoundTripIT {

  static EmbeddedKafkaBroker broker;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path stateDir;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  /** Spans as the SDK hands them to an exporter, kept for the JSON requests. */
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

  private static Resource resource(String pod) {
    return Resource.create(
        Attributes.builder()
            .put("service.name", "chat")
            .put("k8s.namespace.name", ShipperRetriesIT.NAMESPACE)
            .put("k8s.pod.name", pod)
            .build());
  }

  /** A served request: {@code ms} long, its first token at a fifth of it, status {@code code}. */
  private static void serve(Tracer tracer, long start, long ms, int code) {
    Span span =
        tracer
            .spanBuilder("POST /v1/chat/completions")
            .setSpanKind(SpanKind.SERVER)
            .setStartTimestamp(start, TimeUnit.MILLISECONDS)
            .setAttribute("http.route", "/v1/chat/completions")
            .setAttribute("http.response.status_code", (long) code)
            .startSpan();
    span.addEvent("gen_ai.first_token", start + ms / 5, TimeUnit.MILLISECONDS);
    span.end(start + ms, TimeUnit.MILLISECONDS);
  }

  @Test
  void shouldCountEverySpanOnceOnItsPodsFinalTimeline() throws Exception {
    String prefix = "otlp-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    Topics topics = Topics.withPrefix(prefix);
    int partitions = 2;
    broker.createTopics(topics.newTopics(partitions, (short) 1));
    Map<String, String> kafka = Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    Collector collector =
        Collector.start(
            CollectorConfig.from(
                CommandLineSettings.load(
                    CollectorConfig.DEF,
                    List.of(
                        "--kubernetes-enabled", "false",
                        "--topic-prefix", prefix,
                        "--http-port", "0",
                        "--progress-interval", "100ms",
                        "--progress-allowance", "2s",
                        "--intake-auth", "none"),
                    kafka)),
            null,
            Clock.systemUTC());
    StreamsApp app =
        StreamsApp.start(
            StreamsAppConfig.from(
                CommandLineSettings.load(
                    StreamsAppConfig.DEF,
                    List.of(
                        "--topic-prefix", prefix,
                        "--application-id", "otlp-app",
                        "--state-dir", stateDir.toString(),
                        "--http-port", "0",
                        "--emit-interval", "200ms",
                        "--grace-period", "5s",
                        "--slo", "chat=500",
                        "--api-auth", "none"),
                    kafka)));
    InputProducer pods = new InputProducer(broker.bootstrapServers(), topics, partitions);
    pods.hold(topics.requests.name()).hold(topics.gpuSamples.name());
    ScheduledExecutorService podMarks =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "pod-marks");
              t.setDaemon(true);
              return t;
            });
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> collector.readiness().ready());
      long start = System.currentTimeMillis();
      Map<String, Pod> live = new LinkedHashMap<>();
      PodProjection projection = new PodProjection(List.of(), List.of());
      for (String name : List.of("chat-otlp-0", "chat-otlp-1")) {
        Pod p = ShipperRetriesIT.servingPod(name, start - 5_000);
        live.put(name, p);
        pods.produce(List.of(projection.project(p, ChangeType.ADDED, start - 4_000)));
      }
      podMarks.scheduleWithFixedDelay(
          () -> pods.mark(System.currentTimeMillis() - 1_000), 0, 100, TimeUnit.MILLISECONDS);

      // chat-otlp-0: 30 requests through the SDK's OTLP/HTTP exporter, protobuf and gzip; every
      // tenth a 500, every third slower than the SLO.
      long t0 = System.currentTimeMillis() - 2_000;
      OtlpHttpSpanExporter exporter =
          OtlpHttpSpanExporter.builder()
              .setEndpoint(collector.baseUrl() + "/v1/traces")
              .setCompression("gzip")
              .build();
      try (SdkTracerProvider provider =
          SdkTracerProvider.builder()
              .setResource(resource("chat-otlp-0"))
              .addSpanProcessor(
                  BatchSpanProcessor.builder(exporter).setMaxExportBatchSize(8).build())
              .build()) {
        Tracer tracer = provider.get("vllm");
        for (int i = 0; i < 30; i++) {
          serve(tracer, t0 + i * 20L, i % 3 == 0 ? 900 : 100, i % 10 == 0 ? 500 : 200);
        }
        assertThat(provider.forceFlush().join(30, TimeUnit.SECONDS).isSuccess())
            .as("the exporter's batches taken")
            .isTrue();
      }

      // chat-otlp-1: 12 requests as OTLP JSON, each request sent twice.
      Kept kept = new Kept();
      try (SdkTracerProvider provider =
          SdkTracerProvider.builder()
              .setResource(resource("chat-otlp-1"))
              .addSpanProcessor(SimpleSpanProcessor.create(kept))
              .build()) {
        Tracer tracer = provider.get("vllm");
        for (int i = 0; i < 12; i++) {
          serve(tracer, t0 + i * 30L, 200, 200);
        }
      }
      for (int from = 0; from < kept.spans.size(); from += 4) {
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        TraceRequestMarshaler.create(kept.spans.subList(from, from + 4)).writeJsonTo(json);
        for (int attempt = 0; attempt < 2; attempt++) {
          HttpResponse<String> r =
              HTTP.send(
                  HttpRequest.newBuilder(URI.create(collector.baseUrl() + "/v1/traces"))
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofByteArray(json.toByteArray()))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
          assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
          assertThat(r.body()).doesNotContain("rejected");
        }
      }

      // A span of no known pod: taken as a partial success (the exporter does not retry it) and
      // dead-lettered.
      Kept orphan = new Kept();
      try (SdkTracerProvider provider =
          SdkTracerProvider.builder()
              .setResource(
                  Resource.create(Attributes.builder().put("service.name", "chat").build()))
              .addSpanProcessor(SimpleSpanProcessor.create(orphan))
              .build()) {
        serve(provider.get("vllm"), t0, 100, 200);
      }
      ByteArrayOutputStream orphanJson = new ByteArrayOutputStream();
      TraceRequestMarshaler.create(orphan.spans).writeJsonTo(orphanJson);
      HttpResponse<String> partial =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(collector.baseUrl() + "/v1/traces"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(orphanJson.toByteArray()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(partial.statusCode()).isEqualTo(200);
      assertThat(partial.body())
          .contains("\"partialSuccess\"")
          .contains("\"rejectedSpans\":\"1\"")
          .contains("k8s.pod.name");

      try (TopicReader<RequestLog> requests =
          new TopicReader<>(
              broker.bootstrapServers(),
              topics.requests.name(),
              topics.requests.valueSerde().deserializer())) {
        List<ConsumerRecord<String, RequestLog>> logs =
            requests.readUntil(r -> r.size() >= 30 + 24, Duration.ofSeconds(30));
        assertThat(logs).hasSize(54);
        assertThat(logs)
            .allSatisfy(
                r ->
                    assertThat(r.value().getTtftMs())
                        .isEqualTo(r.value().getLatencyMs() / 5, within(0.001)));
      }

      podMarks.shutdown();
      assertThat(podMarks.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      long end = System.currentTimeMillis();
      for (Pod p : live.values()) {
        pods.produce(
            List.of(projection.project(ShipperRetriesIT.gone(p, end), ChangeType.DELETED, end)));
      }
      pods.end();

      Map<String, PodTimeline> finals;
      try (TimelineCollector timelines =
          new TimelineCollector(Map.of("bootstrap.servers", broker.bootstrapServers()), topics)) {
        Set<String> uids = new TreeSet<>();
        live.values().forEach(p -> uids.add(p.getMetadata().getUid()));
        finals = timelines.awaitFinals(uids, Duration.ofSeconds(120), System.out::println);
      }
      PodTimeline zero = byName(finals, "chat-otlp-0");
      assertThat(zero.getRequests()).isEqualTo(30);
      assertThat(zero.getErrors()).isEqualTo(3);
      assertThat(zero.getSloBreaches()).isEqualTo(10);
      assertThat(zero.getLatencyP50Ms()).isCloseTo(100.0, within(2.0));
      assertThat(zero.getFirstOkRequestAt()).isEqualTo(t0 + 20 + 100);
      PodTimeline one = byName(finals, "chat-otlp-1");
      assertThat(one.getRequests()).as("each span once, though sent twice").isEqualTo(12);
      assertThat(one.getErrors()).isZero();
      assertThat(one.getLatencyP99Ms()).isCloseTo(200.0, within(4.0));
    } finally {
      podMarks.shutdownNow();
      pods.close();
      app.close();
      collector.close();
    }
  }

  private static PodTimeline byName(Map<String, PodTimeline> finals, String name) {
    return finals.values().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
  }
}
