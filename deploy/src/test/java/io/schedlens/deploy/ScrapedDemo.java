package io.schedlens.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.runs.demo.Demo;
import io.schedlens.runs.demo.DemoConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * A demo run while a real Prometheus (the Debian package) scrapes the streams app and the collector
 * every second, as the Prometheus Operator would through the chart's ServiceMonitors, with the
 * chart's PrometheusRule loaded; then Prometheus' HTTP API over the demo's time range, as Grafana
 * would query it.
 */
final class ScrapedDemo implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final Demo.Result demo;
  final long start;
  final long end;
  private final Process prometheus;
  private final String api;

  private ScrapedDemo(Demo.Result demo, long start, long end, Process prometheus, String api) {
    this.demo = demo;
    this.start = start;
    this.end = end;
    this.prometheus = prometheus;
    this.api = api;
  }

  /** Starts Prometheus in {@code work}, runs the demo of {@code scenario} under it. */
  static ScrapedDemo run(Path work, String scenario) throws Exception {
    Tools.require(
        "prometheus", "install the Debian package prometheus (./schedlens selftest does)");
    int promPort = freePort();
    int streamsPort = freePort();
    int collectorPort = freePort();
    // The rules as the chart's PrometheusRule carries them: the Operator hands its groups to
    // Prometheus as a rule file.
    Path rules = work.resolve("schedlens-rules.yaml");
    Files.writeString(
        rules, Manifests.YAML.writeValueAsString(ChartRulesTest.rendered(Chart.Install.of())));
    Path config = work.resolve("prometheus.yml");
    Files.writeString(
        config,
        """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files:
          - %s
        scrape_configs:
        %s
        %s
        """
            .formatted(
                rules,
                asTheOperatorWould("schedlens-streams", streamsPort),
                asTheOperatorWould("schedlens-collector", collectorPort)));
    Process prometheus =
        new ProcessBuilder(
                "prometheus",
                "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("data"),
                "--web.listen-address=127.0.0.1:" + promPort,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("prometheus.log").toFile())
            .start();
    String api = "http://127.0.0.1:" + promPort;
    awaitReady(api, prometheus, work);
    System.out.println("Prometheus on " + api + "; running the " + scenario + " demo");

    long start = System.currentTimeMillis() / 1000;
    DemoConfig demoConfig =
        DemoConfig.from(
            CommandLineSettings.load(
                DemoConfig.DEF,
                List.of(
                    "--scenario", scenario,
                    "--out", work.resolve("demo").toString(),
                    "--streams-http-port", Integer.toString(streamsPort),
                    "--collector-http-port", Integer.toString(collectorPort)),
                Map.of()));
    Demo.Result demo = new Demo(demoConfig, System.out).run();
    long end = System.currentTimeMillis() / 1000;
    ScrapedDemo run = new ScrapedDemo(demo, start, end, prometheus, api);
    // every rule group evaluated once more over the final samples
    Awaitility.await("a rule evaluation of every group after the demo")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(run::everyGroupEvaluatedAfterEnd);
    return run;
  }

  /**
   * The scrape configuration the Prometheus Operator generates for an endpoint of our
   * ServiceMonitors (as the chart renders them by default), with the target labels it adds to every
   * series (namespace, pod, service, endpoint, container; job from the Service's label that the
   * ServiceMonitor's jobLabel names, else the Service's name), and honor_labels from the endpoint's
   * honorLabels: a static target stands for the endpoint the Operator would discover.
   */
  static String asTheOperatorWould(String service, int port) throws Exception {
    List<JsonNode> docs =
        Manifests.documents(Chart.template(Chart.Install.of().withPrometheusOperator()));
    JsonNode monitor =
        docs.stream()
            .filter(d -> d.path("kind").asText().equals("ServiceMonitor"))
            .filter(d -> d.path("metadata").path("name").asText().equals(service))
            .findFirst()
            .orElseThrow();
    JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
    String jobLabel = monitor.path("spec").path("jobLabel").asText("");
    String job =
        jobLabel.isEmpty()
            ? service
            : docs.stream()
                .filter(d -> d.path("kind").asText().equals("Service"))
                .filter(d -> d.path("metadata").path("name").asText().equals(service))
                .findFirst()
                .orElseThrow()
                .path("metadata")
                .path("labels")
                .path(jobLabel)
                .asText();
    return """
          - job_name: serviceMonitor/schedlens/%1$s/0
            honor_labels: %2$s
            metrics_path: %3$s
            static_configs:
              - targets: ["127.0.0.1:%4$d"]
                labels:
                  namespace: schedlens
                  pod: %1$s-0
                  service: %1$s
                  endpoint: %5$s
                  container: %1$s
            relabel_configs:
              - target_label: job
                replacement: %6$s
        """
        .formatted(
            service,
            endpoint.path("honorLabels").asBoolean(false),
            endpoint.path("path").asText("/metrics"),
            port,
            endpoint.path("port").asText(),
            job);
  }

  private boolean everyGroupEvaluatedAfterEnd() throws Exception {
    JsonNode groups = get("/api/v1/rules").path("data").path("groups");
    if (groups.isEmpty()) {
      return false;
    }
    for (JsonNode g : groups) {
      String last = g.path("lastEvaluation").asText("");
      if (last.isEmpty() || Instant.parse(last).getEpochSecond() <= end) {
        return false;
      }
    }
    return true;
  }

  /** Grafana's values for the template variables: every one set to "All". */
  Map<String, String> variables() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("__rate_interval", "10s");
    v.put("__range", (end - start + 10) + "s");
    v.put("__interval", "2s");
    v.put("namespace", ".*");
    v.put("priority_class", ".*");
    v.put("arm", ".*");
    v.put("serving_kind", "Deployment|StatefulSet");
    v.put("batch_kind", "Job");
    v.put("kafka_cluster", "schedlens");
    // One cluster, no cluster label: the hidden variable is empty, as Grafana leaves it.
    v.put("cluster", "");
    return v;
  }

  /** The panel queries of {@code board} titled {@code title}, each with what it returned. */
  PanelData panel(JsonNode board, String title) throws Exception {
    return panel(board, title, variables());
  }

  /** The same, with the template variables set to {@code variables}. */
  PanelData panel(JsonNode board, String title, Map<String, String> variables) throws Exception {
    List<String> seen = new ArrayList<>();
    boolean data = false;
    for (Dashboards.Query q : Dashboards.queries(board)) {
      if (!q.panel().equals(title)) {
        continue;
      }
      String expr = Dashboards.substitute(q.expr(), variables);
      JsonNode result =
          q.instant()
              ? callInstant(expr).path("data").path("result")
              : callRange(expr).path("data").path("result");
      seen.add(expr + " -> " + result.size() + " series");
      data |= hasFiniteValue(result);
    }
    return new PanelData(data, seen);
  }

  /** Whether a panel's queries returned a finite value, and what each returned. */
  record PanelData(boolean data, List<String> seen) {}

  static boolean hasFiniteValue(JsonNode result) {
    for (JsonNode series : result) {
      List<JsonNode> points = new ArrayList<>();
      series.path("values").forEach(points::add);
      if (series.has("value")) {
        points.add(series.path("value"));
      }
      for (JsonNode p : points) {
        String v = p.get(1).asText();
        if (!v.equals("NaN") && !v.endsWith("Inf")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The result of a range query over the demo that must succeed. */
  JsonNode range(String expr) throws Exception {
    JsonNode r = callRange(expr);
    if (!r.path("status").asText().equals("success")) {
      throw new AssertionError(expr + " -> " + r);
    }
    return r.path("data").path("result");
  }

  JsonNode callRange(String expr) throws Exception {
    return get(
        "/api/v1/query_range?query="
            + URLEncoder.encode(expr, StandardCharsets.UTF_8)
            + "&start="
            + start
            + "&end="
            + (end + 10)
            + "&step=2");
  }

  JsonNode callInstant(String expr) throws Exception {
    return get(
        "/api/v1/query?query="
            + URLEncoder.encode(expr, StandardCharsets.UTF_8)
            + "&time="
            + (end + 10));
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  @Override
  public void close() throws InterruptedException {
    prometheus.destroy();
    prometheus.waitFor();
  }

  private static void awaitReady(String api, Process prometheus, Path work) {
    Awaitility.await("Prometheus ready on " + api)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .failFast(
            "prometheus exited; see its log " + work.resolve("prometheus.log"),
            () -> !prometheus.isAlive())
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(
            () ->
                HTTP.send(
                            HttpRequest.newBuilder(URI.create(api + "/-/ready")).build(),
                            HttpResponse.BodyHandlers.ofString())
                        .statusCode()
                    == 200);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
