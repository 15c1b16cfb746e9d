package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.serving.api.TimelineFilters;
import io.schedlens.serving.pages.TimelinePages;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The dashboards are well formed and ask only for metrics that exist, with their variables. */
class DashboardsTest {

  static final Pattern METRIC = Pattern.compile("\\b(schedlens[a-zA-Z0-9_:]*)");
  static final Pattern VARIABLE = Pattern.compile("\\$\\{?([a-zA-Z_][a-zA-Z0-9_]*)");

  /** Every series name the apps export, and the recording rules' names. */
  static Set<String> knownSeries() throws Exception {
    Set<String> names = new HashSet<>();
    StreamsMetrics streams = new StreamsMetrics();
    streams.registerGauges(cb -> {}, cb -> {}, cb -> {});
    streams.registerWorkloadGauges(cb -> {}, cb -> {}, cb -> {});
    streams.registerConsumerLag(cb -> {});
    CollectorMetrics collector = new CollectorMetrics();
    collector.bufferGauges(() -> 0, 1);
    for (PrometheusRegistry r : List.of(streams.registry, collector.registry)) {
      for (MetricSnapshot s : r.scrape()) {
        String name = s.getMetadata().getPrometheusName();
        if (s instanceof CounterSnapshot) {
          names.add(name + "_total");
        } else if (s instanceof InfoSnapshot) {
          names.add(name + "_info");
        } else if (s instanceof HistogramSnapshot) {
          names.addAll(List.of(name + "_bucket", name + "_count", name + "_sum"));
        } else {
          names.add(name);
        }
      }
    }
    for (JsonNode rule : PrometheusRulesTest.rules()) {
      if (rule.has("record")) {
        names.add(rule.path("record").asText());
      }
    }
    return names;
  }

  @Test
  void shouldHaveTheThreeDashboardsWithUniqueUids() throws Exception {
    Map<String, JsonNode> boards = Dashboards.all();
    assertThat(boards.values())
        .extracting(b -> b.path("uid").asText())
        .containsExactlyInAnyOrder(
            "schedlens-oncall", "schedlens-experiment", "schedlens-pipeline");
  }

  @Test
  void shouldLayOutEveryPanelWithAQueryAndAUniqueId() throws Exception {
    for (var e : Dashboards.all().entrySet()) {
      Set<Integer> ids = new HashSet<>();
      Set<String> cells = new HashSet<>();
      for (JsonNode p : e.getValue().path("panels")) {
        assertThat(ids.add(p.path("id").asInt()))
            .as(e.getKey() + " panel id " + p.path("id"))
            .isTrue();
        JsonNode g = p.path("gridPos");
        assertThat(g.path("x").asInt() + g.path("w").asInt())
            .as(e.getKey() + " " + p.path("title"))
            .isLessThanOrEqualTo(24);
        for (int x = g.path("x").asInt(); x < g.path("x").asInt() + g.path("w").asInt(); x++) {
          for (int y = g.path("y").asInt(); y < g.path("y").asInt() + g.path("h").asInt(); y++) {
            assertThat(cells.add(x + "," + y))
                .as(e.getKey() + ": " + p.path("title") + " overlaps another panel")
                .isTrue();
          }
        }
      }
      for (JsonNode p : Dashboards.panels(e.getValue())) {
        assertThat(p.path("title").asText()).isNotBlank();
        assertThat(p.path("description").asText()).as(p.path("title").asText()).isNotBlank();
        assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
        p.path("targets").forEach(t -> assertThat(t.path("expr").asText()).isNotBlank());
      }
    }
  }

  @Test
  void shouldQueryOnlyMetricsTheAppsExportAndVariablesTheDashboardDefines() throws Exception {
    Set<String> known = knownSeries();
    Set<String> builtIn = Set.of("__rate_interval", "__range", "__interval");
    for (JsonNode board : Dashboards.all().values()) {
      Set<String> defined = new HashSet<>(builtIn);
      board.path("templating").path("list").forEach(v -> defined.add(v.path("name").asText()));
      for (Dashboards.Query q : Dashboards.queries(board)) {
        // label values (in quotes) may contain anything
        Matcher m = METRIC.matcher(q.expr().replaceAll("\"[^\"]*\"", "\"\""));
        while (m.find()) {
          assertThat(known)
              .as(q + ": " + m.group(1) + " is not exported by schedlens")
              .contains(m.group(1));
        }
        Matcher v = VARIABLE.matcher(q.expr());
        while (v.find()) {
          assertThat(defined).as(q + ": variable $" + v.group(1)).contains(v.group(1));
        }
      }
    }
  }

  @Test
  void shouldLinkPanelsToTheTimelinePagesAndTheApiWithParametersTheyUnderstand() throws Exception {
    JsonNode oncall = Dashboards.all().get("gpu-priority-preemption.json");
    int pageLinks = 0;
    int apiLinks = 0;
    for (JsonNode p : Dashboards.panels(oncall)) {
      for (JsonNode link : p.path("fieldConfig").path("defaults").path("links")) {
        String url = link.path("url").asText();
        Set<String> understood;
        if (url.startsWith("${schedlens_url}/")) {
          pageLinks++;
          assertThat(url).matches("\\$\\{schedlens_url}/(\\?.*)?");
          understood = TimelinePages.INDEX_FILTERS;
        } else {
          apiLinks++;
          assertThat(url).matches("\\$\\{api_url}/api/(pods|workloads)\\?.*");
          understood =
              url.contains("/api/pods?")
                  ? TimelineFilters.LIST_PARAMETERS
                  : TimelineFilters.WORKLOAD_LIST_PARAMETERS;
        }
        if (!url.contains("?")) {
          continue;
        }
        String query =
            URI.create(
                    "http://x/?"
                        + url.substring(url.indexOf('?') + 1).replaceAll("\\$\\{[^}]*}", "v"))
                .getQuery();
        for (String pair : query.split("&")) {
          String key = pair.substring(0, pair.indexOf('='));
          String value = pair.substring(pair.indexOf('=') + 1);
          assertThat(understood).as(url).contains(key);
          if (key.equals("state")) {
            assertThat(value).isIn("pending", "starving", "preempted", "all");
          }
        }
      }
    }
    assertThat(pageLinks).as("every panel link opens the pages first").isEqualTo(apiLinks);
    assertThat(pageLinks).isGreaterThanOrEqualTo(4);
    String annotation = oncall.path("annotations").path("list").get(1).path("textFormat").asText();
    assertThat(annotation).contains("href=\"${schedlens_url}/?priorityClass=");
    assertThat(oncall.path("templating").toString()).contains("\"schedlens_url\"");
  }
}
