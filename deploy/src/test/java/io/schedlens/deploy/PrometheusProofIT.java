package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of the dashboards and rules: a real Prometheus scrapes the streams app and the
 * collector every second while the day08 demo runs through them, with the schedlens rules loaded
 * ({@link ScrapedDemo}); then every panel query of every dashboard and every rule expression is run
 * through Prometheus' HTTP API over the demo's time range, as Grafana would.
 */
class PrometheusProofIT {

  /**
   * Panels day08 cannot fill, each proven with data by the class named: day08 has no gang, and
   * adding one would move every day08 figure.
   */
  static final Map<String, String> PROVEN_ELSEWHERE =
      Map.of(
          GangPanelProofIT.PANEL,
          GangPanelProofIT.class.getSimpleName(),
          QueuePanelsProofIT.WAIT_PANEL,
          QueuePanelsProofIT.class.getSimpleName(),
          QueuePanelsProofIT.EVICTIONS_PANEL,
          QueuePanelsProofIT.class.getSimpleName());

  @TempDir static Path work;
  static ScrapedDemo run;

  @BeforeAll
  static void runTheDemoWhilePrometheusScrapes() throws Exception {
    run = ScrapedDemo.run(work, "day08");
  }

  @AfterAll
  static void stopPrometheus() throws Exception {
    if (run != null) {
      run.close();
    }
  }

  @Test
  void shouldKeepTheMetricsOwnNamespaceUnderTheOperatorsTargetLabels() throws Exception {
    // The target labels are there ...
    JsonNode up = run.range("up{job=\"schedlens-streams\"}");
    assertThat(up).isNotEmpty();
    assertThat(up.get(0).path("metric").path("namespace").asText()).isEqualTo("schedlens");
    assertThat(up.get(0).path("metric").path("pod").asText()).isEqualTo("schedlens-streams-0");
    // ... and the metrics about pods keep the namespace of those pods, not the app's.
    JsonNode finished = run.range("sum by (namespace) (schedlens_pods_finished_total)");
    assertThat(finished)
        .extracting(s -> s.path("metric").path("namespace").asText())
        .containsExactly("ai-lab");
    assertThat(run.range("count(schedlens_pods_finished_total{exported_namespace!=\"\"})"))
        .as("no namespace renamed to exported_namespace")
        .isEmpty();
  }

  @Test
  void shouldHaveScrapedBothAppsThroughTheDemo() throws Exception {
    assertThat(run.demo.missing()).isEmpty();
    JsonNode up = run.range("sum by (job) (up)");
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
        String expr = Dashboards.substitute(q.expr(), run.variables());
        JsonNode r = q.instant() ? run.callInstant(expr) : run.callRange(expr);
        soft.assertThat(r.path("status").asText())
            .as(q + ": " + expr + " -> " + r)
            .isEqualTo("success");
        count++;
      }
    }
    soft.assertAll();
    System.out.println("ran " + count + " panel and annotation queries");
  }

  /**
   * With the hidden cluster variable set to a cluster this Prometheus has no series of, no panel
   * shows anything: every selector of every panel matches the cluster label.
   */
  @Test
  void shouldShowNothingOfAnotherCluster() throws Exception {
    Map<String, String> elsewhere = new LinkedHashMap<>(run.variables());
    elsewhere.put("cluster", "elsewhere");
    SoftAssertions soft = new SoftAssertions();
    for (JsonNode board : Dashboards.all().values()) {
      for (JsonNode panel : Dashboards.panels(board)) {
        ScrapedDemo.PanelData shown = run.panel(board, panel.path("title").asText(), elsewhere);
        soft.assertThat(shown.data())
            .as(panel.path("title").asText() + ": " + shown.seen())
            .isFalse();
      }
    }
    soft.assertAll();
  }

  @Test
  void shouldShowDataInEveryPanelOfTheOnCallAndExperimentDashboards() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    for (String file : List.of("gpu-priority-preemption.json", "experiment.json")) {
      JsonNode board = Dashboards.all().get(file);
      for (JsonNode panel : Dashboards.panels(board)) {
        String title = panel.path("title").asText();
        ScrapedDemo.PanelData shown = run.panel(board, title);
        String elsewhere = PROVEN_ELSEWHERE.get(title);
        System.out.println(
            (shown.data()
                    ? "data     "
                    : elsewhere != null ? "see " + elsewhere + " " : "NO DATA  ")
                + file
                + " / "
                + title
                + ": "
                + shown.seen());
        if (elsewhere == null) {
          soft.assertThat(shown.data())
              .as(file + " / " + title + " shows data: " + shown.seen())
              .isTrue();
        }
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
        run.callRange(Dashboards.substitute(annotation.expr(), run.variables()))
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
          run.get(
              "/api/v1/label/"
                  + label
                  + "/values?match[]="
                  + match
                  + "&start="
                  + run.start
                  + "&end="
                  + (run.end + 10));
      assertThat(r.path("data")).as(label).isNotEmpty();
    }
  }

  @Test
  void shouldRunEveryRuleExpressionAndEvaluateEveryRuleWithoutError() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    List<JsonNode> rules =
        List.copyOf(ChartRulesTest.byName(ChartRulesTest.rendered(Chart.Install.of())).values());
    for (JsonNode rule : rules) {
      String name = rule.has("alert") ? rule.path("alert").asText() : rule.path("record").asText();
      JsonNode r = run.callRange(rule.path("expr").asText());
      soft.assertThat(r.path("status").asText()).as(name + " -> " + r).isEqualTo("success");
    }
    JsonNode loaded = run.get("/api/v1/rules");
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
    // the self-alerts select the targets by the labels the Operator gives them: both apps are up
    // halfway through the demo
    for (String alert : List.of("SchedlensStreamsAppDown", "SchedlensCollectorDown")) {
      String expr =
          rules.stream()
              .filter(r -> r.path("alert").asText().equals(alert))
              .findFirst()
              .orElseThrow()
              .path("expr")
              .asText();
      JsonNode now =
          run.get(
              "/api/v1/query?query="
                  + URLEncoder.encode(expr, StandardCharsets.UTF_8)
                  + "&time="
                  + (run.start + run.end) / 2);
      soft.assertThat(now.path("data").path("result")).as(alert + ": " + expr).isEmpty();
    }
    // the recording rules produced series from the demo's data
    soft.assertThat(ScrapedDemo.hasFiniteValue(run.range("schedlens:slo_breach_ratio:rate5m")))
        .as("schedlens:slo_breach_ratio:rate5m")
        .isTrue();
    soft.assertThat(
            ScrapedDemo.hasFiniteValue(run.range("schedlens:pending_duration_seconds:p95_rate10m")))
        .isTrue();
    soft.assertAll();
  }
}
