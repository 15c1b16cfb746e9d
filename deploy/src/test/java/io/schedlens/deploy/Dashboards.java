package io.schedlens.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The Grafana dashboards of grafana/dashboards and the PromQL each of their panels runs. */
final class Dashboards {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One query of a panel (or of an annotation, with panel "annotation: NAME"). */
  record Query(String dashboard, String panel, String refId, String expr, boolean instant) {
    @Override
    public String toString() {
      return dashboard + " / " + panel + " / " + refId;
    }
  }

  private Dashboards() {}

  static Map<String, JsonNode> all() throws IOException {
    Map<String, JsonNode> boards = new java.util.TreeMap<>();
    try (Stream<Path> files = Files.list(Repository.path("grafana/dashboards"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        boards.put(f.getFileName().toString(), JSON.readTree(f.toFile()));
      }
    }
    return boards;
  }

  /** Panels that show data (rows left out). */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> panels = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(
            p -> {
              if (!"row".equals(p.path("type").asText())) {
                panels.add(p);
              }
            });
    return panels;
  }

  static List<Query> queries(JsonNode dashboard) {
    String uid = dashboard.path("uid").asText();
    List<Query> queries = new ArrayList<>();
    for (JsonNode p : panels(dashboard)) {
      for (JsonNode t : p.path("targets")) {
        queries.add(
            new Query(
                uid,
                p.path("title").asText(),
                t.path("refId").asText(),
                t.path("expr").asText(),
                t.path("instant").asBoolean(false) && !t.path("range").asBoolean(false)));
      }
    }
    for (JsonNode a : dashboard.path("annotations").path("list")) {
      if (a.has("expr")) {
        queries.add(
            new Query(
                uid,
                "annotation: " + a.path("name").asText(),
                "A",
                a.path("expr").asText(),
                false));
      }
    }
    return queries;
  }

  /**
   * The query as Grafana sends it to Prometheus: template variables replaced by the given values
   * (multi-value variables set to "All" become their allValue regex).
   */
  static String substitute(String expr, Map<String, String> values) {
    String out = expr;
    for (var e : values.entrySet()) {
      out =
          out.replace("${" + e.getKey() + "}", e.getValue())
              .replace("$" + e.getKey(), e.getValue());
    }
    return out;
  }
}
