package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of the dashboards and rules: a real Prometheus (the Debian package) scrapes the streams
 * app and the collector every second while the day08 demo runs through them, with the schedlens
 * rules loaded; then every panel query of every dashboard and every rule expression is run through
 * Prometheus' HTTP API over the demo's time range, as Grafana would.
 */
class PrometheusProofIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path work;
  static Process prometheus;
  static String api;
  static long start;
  static long end;
  static Demo.Result demo;

  @BeforeAll
  static void runTheDemoWhilePrometheusScrapes() throws Exception {
    Tools.require(
        "prometheus", "install the Debian package prometheus (./schedlens selftest does)");
    int promPort = freePort();
    int streamsPort = freePort();
    int collectorPort = freePort();
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
                Repository.path("deploy/prometheus/schedlens-rules.yaml"),
                asTheOperatorWould("schedlens-streams", streamsPort),
                asTheOperatorWould("schedlens-collector", collectorPort)));
    prometheus =
        new ProcessBuilder(
                "prometheus",
                "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("data"),
                "--web.listen-address=127.0.0.1:" + promPort,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("prometheus.log").toFile())
            .start();
    api = "http://127.0.0.1:" + promPort;
    awaitReady();
    System.out.println("Prometheus on " + api + "; running the day08 demo");

    start = System.currentTimeMillis() / 1000;
    DemoConfig demoConfig =
        DemoConfig.from(
            CommandLineSettings.load(
                DemoConfig.DEF,
                List.of(
                    "--out", work.resolve("demo").toString(),
                    "--streams-http-port", Integer.toString(streamsPort),
                    "--collector-http-port", Integer.toString(collectorPort)),
                Map.of()));
    demo = new Demo(demoConfig, System.out).run();
    end = System.currentTimeMillis() / 1000;
    // every rule group evaluated once more over the final samples
    Awaitility.await("a rule evaluation of every group after the demo")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(PrometheusProofIT::everyGroupEvaluatedAfterEnd);
  }

  /**
   * The scrape configuration the Prometheus Operator generates for an endpoint of our
   * ServiceMonitors (as the chart renders them by default), with the target labels it adds to every
   * series (namespace, pod, service, endpoint, container; job from the Service's name), and
   * honor_labels from the endpoint's honorLabels: a static target stands for the endpoint the
   * Operator would discover.
   */
  static String asTheOperatorWould(String service, int port) throws Exception {
    JsonNode endpoint =
        Manifests.documents(Chart.template(Chart.Install.of())).stream()
            .filter(d -> d.path("kind").asText().equals("ServiceMonitor"))
            .filter(d -> d.path("metadata").path("name").asText().equals(service))
            .findFirst()
            .map(d -> d.path("spec").path("endpoints").get(0))
            .orElseThrow();
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
                replacement: %1$s
        """
        .formatted(
            service,
            endpoint.path("honorLabels").asBoolean(false),
            endpoint.path("path").asText("/metrics"),
            port,
            endpoint.path("port").asText());
  }

  @Test
  void shouldKeepTheMetricsOwnNamespaceUnderTheOperatorsTargetLabels() throws Exception {
    // The target labels are there ...
    JsonNode up = range("up{job=\"schedlens-streams\"}");
    assertThat(up).isNotEmpty();
    assertThat(up.get(0).path("metric").path("namespace").asText()).isEqualTo("schedlens");
    assertThat(up.get(0).path("metric").path("pod").asText()).isEqualTo("schedlens-streams-0");
    // ... and the metrics about pods keep the namespace of those pods, not the app's.
    JsonNode finished = range("sum by (namespace) (schedlens_pods_finished_total)");
    assertThat(finished)
        .extracting(s -> s.path("metric").path("namespace").asText())
        .containsExactly("ai-lab");
    assertThat(range("count(schedlens_pods_finished_total{exported_namespace!=\"\"})"))
        .as("no namespace renamed to exported_namespace")
        .isEmpty();
  }

  static boolean everyGroupEvaluatedAfterEnd() throws Exception {
    JsonNode groups = get("/api/v1/rules").path("data").path("groups");
    if (groups.isEmpty()) {
      return false;
    }
    for (JsonNode g : groups) {
      String last = g.path("lastEvaluation").asText("");
      if (last.isEmpty() || java.time.Instant.parse(last).getEpochSecond() <= end) {
        return false;
      }
    }
    return true;
  }

  @AfterAll
  static void stopPrometheus() throws Exception {
    if (prometheus != null) {
      prometheus.destroy();
      prometheus.waitFor();
    }
  }

  /** Grafana's values for the template variables: every one set to "All". */
  static Map<String, String> variables() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("__rate_interval", "10s");
    v.put("__range", (end - start + 10) + "s");
    v.put("__interval", "2s");
    v.put("namespace", ".*");
    v.put("priority_class", ".*");
    v.put("arm", ".*");
    v.put("serving_kind", "Deployment|StatefulSet");
    v.put("batch_kind", "Job");
    return v;
  }

  @Test
  void shouldHaveScrapedBothAppsThroughTheDemo() throws Exception {
    assertThat(demo.missing()).isEmpty();
    JsonNode up = range("sum by (job) (up)");
    assertThat(up)
        .extracting(s -> s.path("metric").path("job").asText())
        .contains("schedlens-streams", "schedlens-collector");
  }

  @Test
  void shouldRunEveryPanelQueryOfEveryDashboard() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    int count = 0;
    for (JsonNode board : Dashboards.all().values()) {
      for (Dashboards.Query q : Dashboards.queries(board)) {
        String expr = Dashboards.substitute(q.expr(), variables());
        JsonNode r = q.instant() ? callInstant(expr) : callRange(expr);
        soft.assertThat(r.path("status").asText())
            .as(q + ": " + expr + " -> " + r)
            .isEqualTo("success");
        count++;
      }
    }
    soft.assertAll();
    System.out.println("ran " + count + " panel and annotation queries");
  }

  @Test
  void shouldShowDataInEveryPanelOfTheOnCallAndExperimentDashboards() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    for (String file : List.of("gpu-priority-preemption.json", "experiment.json")) {
      JsonNode board = Dashboards.all().get(file);
      List<Dashboards.Query> queries = Dashboards.queries(board);
      for (JsonNode panel : Dashboards.panels(board)) {
        String title = panel.path("title").asText();
        List<String> seen = new ArrayList<>();
        boolean data = false;
        for (Dashboards.Query q : queries) {
          if (!q.panel().equals(title)) {
            continue;
          }
          String expr = Dashboards.substitute(q.expr(), variables());
          JsonNode result =
              q.instant()
                  ? callInstant(expr).path("data").path("result")
                  : callRange(expr).path("data").path("result");
          seen.add(expr + " -> " + result.size() + " series");
          data |= hasFiniteValue(result);
        }
        System.out.println((data ? "data     " : "NO DATA  ") + file + " / " + title + ": " + seen);
        soft.assertThat(data).as(file + " / " + title + " shows data: " + seen).isTrue();
      }
    }
    soft.assertAll();
  }

  @Test
  void shouldMarkPreemptionsWithAnnotations() throws Exception {
    JsonNode board = Dashboards.all().get("gpu-priority-preemption.json");
    Dashboards.Query annotation =
        Dashboards.queries(board).stream()
            .filter(q -> q.panel().startsWith("annotation:"))
            .findFirst()
            .orElseThrow();
    // Grafana evaluates annotations at the given step; a 1m increase over the run
    JsonNode result =
        callRange(Dashboards.substitute(annotation.expr(), variables()))
            .path("data")
            .path("result");
    assertThat(result).as("preemptions of the treatment arm marked").isNotEmpty();
    assertThat(result)
        .extracting(s -> s.path("metric").path("preemptor_priority_class").asText())
        .contains("interactive");
  }

  @Test
  void shouldFindValuesForTheTemplateVariables() throws Exception {
    for (String label : List.of("namespace", "priority_class", "arm")) {
      String match =
          URLEncoder.encode(
              "{__name__=~\"schedlens_pods_finished_total|schedlens_pods_pending\"}",
              StandardCharsets.UTF_8);
      JsonNode r =
          get(
              "/api/v1/label/"
                  + label
                  + "/values?match[]="
                  + match
                  + "&start="
                  + start
                  + "&end="
                  + (end + 10));
      assertThat(r.path("data")).as(label).isNotEmpty();
    }
  }

  @Test
  void shouldRunEveryRuleExpressionAndEvaluateEveryRuleWithoutError() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    List<JsonNode> rules = PrometheusRulesTest.rules();
    for (JsonNode rule : rules) {
      String name = rule.has("alert") ? rule.path("alert").asText() : rule.path("record").asText();
      JsonNode r = callRange(rule.path("expr").asText());
      soft.assertThat(r.path("status").asText()).as(name + " -> " + r).isEqualTo("success");
    }
    JsonNode loaded = get("/api/v1/rules");
    int evaluated = 0;
    for (JsonNode group : loaded.path("data").path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        evaluated++;
        soft.assertThat(rule.path("health").asText())
            .as(rule.path("name").asText() + ": " + rule.path("lastError").asText())
            .isEqualTo("ok");
      }
    }
    soft.assertThat(evaluated).isEqualTo(rules.size());
    // the recording rules produced series from the demo's data
    soft.assertThat(hasFiniteValue(range("schedlens:slo_breach_ratio:rate5m")))
        .as("schedlens:slo_breach_ratio:rate5m")
        .isTrue();
    soft.assertThat(hasFiniteValue(range("schedlens:pending_duration_seconds:p95_rate10m")))
        .isTrue();
    soft.assertAll();
  }

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

  static JsonNode range(String expr) throws Exception {
    JsonNode r = callRange(expr);
    assertThat(r.path("status").asText()).as(expr + " -> " + r).isEqualTo("success");
    return r.path("data").path("result");
  }

  static JsonNode callRange(String expr) throws Exception {
    return get(
        "/api/v1/query_range?query="
            + URLEncoder.encode(expr, StandardCharsets.UTF_8)
            + "&start="
            + start
            + "&end="
            + (end + 10)
            + "&step=2");
  }

  static JsonNode callInstant(String expr) throws Exception {
    return get(
        "/api/v1/query?query="
            + URLEncoder.encode(expr, StandardCharsets.UTF_8)
            + "&time="
            + (end + 10));
  }

  static JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  private static void awaitReady() {
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
