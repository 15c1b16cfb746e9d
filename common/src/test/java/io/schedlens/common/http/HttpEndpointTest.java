package io.schedlens.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HttpEndpointTest {

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void shouldServeMetricsProbesAndRoutesOnLoopback() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    Counter counter =
        Counter.builder().name("schedlens_test_events_total").help("test").register(registry);
    counter.inc(3);
    AtomicBoolean ready = new AtomicBoolean(false);
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(
            "127.0.0.1",
            0,
            registry,
            () ->
                ready.get()
                    ? HttpEndpoint.Readiness.ready("running")
                    : HttpEndpoint.Readiness.notReady("informers not synced"),
            2,
            new HttpEndpoint.Route(
                "/api/echo",
                ex ->
                    HttpEndpoint.respondJson(
                        ex, 200, java.util.Map.of("path", ex.getRequestURI().getPath()))),
            new HttpEndpoint.Route(
                "/api/boom",
                ex -> {
                  throw new IllegalStateException("boom");
                }))) {

      assertThat(get(endpoint, "/metrics").body()).contains("schedlens_test_events_total 3.0");
      assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = get(endpoint, "/readyz");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("informers not synced");
      ready.set(true);
      assertThat(get(endpoint, "/readyz").statusCode()).isEqualTo(200);
      assertThat(get(endpoint, "/api/echo/x").body()).contains("\"path\":\"/api/echo/x\"");
      HttpResponse<String> failed = get(endpoint, "/api/boom");
      assertThat(failed.statusCode()).isEqualTo(500);
      assertThat(failed.body())
          .as("what failed is for the log, not for whoever asked")
          .contains("internal error")
          .doesNotContain("boom", "IllegalStateException");
    }
  }

  @Test
  void shouldAnswerTheProbesOnTheirOwnPort() throws Exception {
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(
                "127.0.0.1",
                0,
                new PrometheusRegistry(),
                () -> HttpEndpoint.Readiness.ready("running"),
                2)
            .withProbesOn("127.0.0.1", 0, () -> HttpEndpoint.Readiness.ready("running"))) {
      assertThat(endpoint.probePort()).isNotEqualTo(endpoint.port());
      for (String probe : List.of("/healthz", "/readyz")) {
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + endpoint.probePort() + probe))
                    .timeout(Duration.ofSeconds(1))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
      }
      assertThat(
              client
                  .send(
                      HttpRequest.newBuilder(
                              URI.create("http://127.0.0.1:" + endpoint.probePort() + "/metrics"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(404);
    }
  }

  private HttpResponse<String> get(HttpEndpoint endpoint, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
