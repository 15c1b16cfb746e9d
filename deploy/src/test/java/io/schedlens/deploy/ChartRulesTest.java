package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's PrometheusRule: the groups of files/prometheus-rules.yaml as the values under {@code
 * rules} tune them (templates/_rules.tpl), unit-tested by promtool as Helm renders them, for the
 * defaults and for examples/tuned-rules.yaml.
 */
class ChartRulesTest {

  static final Path TESTS = Repository.path("deploy/prometheus/tests/chart");
  static final String WORKLOAD_SELECTOR = "namespace=~\".*\"";

  /** The PrometheusRule's spec Helm renders for the install. */
  static JsonNode rendered(Chart.Install install) throws IOException {
    Manifests m = Manifests.render(install.withPrometheusOperator());
    assertThat(m.custom("PrometheusRule")).hasSize(1);
    return Manifests.tree(m.custom("PrometheusRule").get(0)).path("spec");
  }

  /** Every rule of the groups, by its alert or record name. */
  static Map<String, JsonNode> byName(JsonNode spec) {
    Map<String, JsonNode> rules = new LinkedHashMap<>();
    spec.path("groups")
        .forEach(
            g ->
                g.path("rules")
                    .forEach(
                        r -> rules.put(r.path(r.has("alert") ? "alert" : "record").asText(), r)));
    return rules;
  }

  static boolean isSelfAlert(JsonNode rule) {
    return rule.has("alert") && !rule.path("expr").asText().contains(WORKLOAD_SELECTOR);
  }

  @Test
  void shouldPassPromtoolUnitTestsAsRenderedWithTheDefaults(@TempDir Path dir) throws Exception {
    promtool(dir, Chart.Install.of(), "defaults.test.yaml");
  }

  @Test
  void shouldPassPromtoolUnitTestsAsRenderedWithTheTunedExample(@TempDir Path dir)
      throws Exception {
    promtool(dir, Chart.Install.of("tuned-rules"), "tuned.test.yaml");
  }

  private static void promtool(Path dir, Chart.Install install, String tests) throws Exception {
    Tools.require("promtool", "install the Debian package prometheus (./schedlens selftest does)");
    JsonNode spec = rendered(install);
    Files.writeString(dir.resolve("rules.yaml"), Manifests.YAML.writeValueAsString(spec));
    Files.copy(TESTS.resolve(tests), dir.resolve(tests));
    Tools.Run check = Tools.run(dir, "promtool", "check", "rules", "rules.yaml");
    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: " + byName(spec).size() + " rules found");
    Tools.Run run = Tools.run(dir, "promtool", "test", "rules", tests);
    assertThat(run.exit()).as(install + "\n" + run.output()).isZero();
    assertThat(run.output()).contains("SUCCESS");
  }

  /**
   * With the defaults the file's rules come out as written, except that each self-alert selects its
   * app's targets in the release (the namespace and Service the Prometheus Operator labels them
   * with) and carries the release's namespace: a staging release beside production alerts on its
   * own pods.
   */
  @Test
  void shouldRenderTheFileWithEverySelfAlertScopedToTheRelease() throws Exception {
    Map<String, JsonNode> plain =
        byName(Manifests.YAML.readTree(PrometheusRulesTest.RULES.toFile()));
    for (Chart.Install install :
        List.of(
            Chart.Install.of(),
            new Chart.Install("staging", "schedlens-staging", List.of(), Map.of()))) {
      Map<String, String> services = services(install);
      Map<String, JsonNode> rendered = byName(rendered(install));
      assertThat(rendered.keySet())
          .as(install.toString())
          .containsExactlyElementsOf(plain.keySet());
      int selfAlerts = 0;
      for (Map.Entry<String, JsonNode> e : plain.entrySet()) {
        JsonNode expected = e.getValue();
        if (isSelfAlert(expected)) {
          selfAlerts++;
          ObjectNode scoped = expected.deepCopy();
          String expr = expected.path("expr").asText();
          for (String app : List.of("streams", "collector")) {
            String job = "job=\"schedlens-" + app + "\"";
            expr =
                expr.replace(
                    job,
                    "%s, namespace=\"%s\", service=\"%s\""
                        .formatted(job, install.namespace(), services.get(app)));
          }
          scoped.put("expr", expr);
          ((ObjectNode) scoped.path("labels")).put("namespace", install.namespace());
          expected = scoped;
        }
        assertThat(rendered.get(e.getKey())).as(install + ": " + e.getKey()).isEqualTo(expected);
      }
      assertThat(selfAlerts).as("self-alerts").isEqualTo(13);
    }
  }

  /**
   * The Service of each app ("streams", "collector") that the release's ServiceMonitor selects: the
   * {@code service} label the Prometheus Operator gives its targets.
   */
  private static Map<String, String> services(Chart.Install install) throws IOException {
    Map<String, String> names = new LinkedHashMap<>();
    for (Service svc : Manifests.render(install).all(Service.class)) {
      String app = svc.getMetadata().getLabels().get("app.kubernetes.io/name");
      if (svc.getSpec().getClusterIP() == null && app.startsWith("schedlens-")) {
        names.put(app.substring("schedlens-".length()), svc.getMetadata().getName());
      }
    }
    assertThat(names).as(install + ": the apps' Services").containsOnlyKeys("streams", "collector");
    return names;
  }

  /** examples/tuned-rules.yaml: one alert out, a label on all, a severity, namespaces, budget. */
  @Test
  void shouldTuneTheAlertsAsTheExampleSays() throws Exception {
    Map<String, JsonNode> plain =
        byName(Manifests.YAML.readTree(PrometheusRulesTest.RULES.toFile()));
    Map<String, JsonNode> tuned = byName(rendered(Chart.Install.of("tuned-rules")));
    assertThat(tuned).doesNotContainKey("SchedlensPreemptionStorm");
    assertThat(tuned).hasSize(plain.size() - 1);
    for (JsonNode rule : tuned.values()) {
      String name = rule.path(rule.has("alert") ? "alert" : "record").asText();
      if (!rule.has("alert")) {
        assertThat(rule).as(name + ": recording rules are not tuned").isEqualTo(plain.get(name));
        continue;
      }
      assertThat(rule.path("labels").path("team").asText()).as(name).isEqualTo("ml-platform");
      String expr = rule.path("expr").asText();
      if (isSelfAlert(plain.get(name))) {
        assertThat(expr).as(name).doesNotContain("ml-.*");
      } else {
        assertThat(expr)
            .as(name)
            .contains("namespace=~\"ml-.*\"")
            .doesNotContain(WORKLOAD_SELECTOR);
      }
    }
    assertThat(tuned.get("SchedlensServiceInterrupted").path("labels").path("severity").asText())
        .isEqualTo("warning");
    assertThat(tuned.get("SchedlensLatencyBudgetBurnFast").path("expr").asText())
        .contains("(14.4 * 0.001)")
        .doesNotContain("0.01)");
  }

  /**
   * Every threshold value reaches its alert: each set to a value of its own, each alert's
   * expression holds that value where the file has the default.
   */
  @Test
  void shouldPutEveryThresholdValueIntoItsAlert(@TempDir Path scratch) throws Exception {
    Map<String, List<String>> alertsByKey = new LinkedHashMap<>();
    alertsByKey.put(
        "rules.latencyErrorBudget",
        List.of("SchedlensLatencyBudgetBurnFast", "SchedlensLatencyBudgetBurnSlow"));
    alertsByKey.put("rules.thresholds.pendingSeconds", List.of("SchedlensPendingTooLong"));
    alertsByKey.put(
        "rules.thresholds.serviceInterruptedSeconds", List.of("SchedlensServiceInterrupted"));
    alertsByKey.put("rules.thresholds.preemptionsIn10m", List.of("SchedlensPreemptionStorm"));
    alertsByKey.put("rules.thresholds.queueWaitSeconds", List.of("SchedlensQueueWaitHigh"));
    alertsByKey.put(
        "rules.thresholds.idleAllocatedGpuRatio", List.of("SchedlensGpusAllocatedButIdle"));
    alertsByKey.put("rules.thresholds.pipelineLagSeconds", List.of("SchedlensPipelineLagging"));
    alertsByKey.put(
        "rules.thresholds.deadLettersPerSecond",
        List.of("SchedlensDeadLettersRising", "SchedlensCollectorDeadLettersRising"));
    alertsByKey.put(
        "rules.thresholds.collectorBufferRatio", List.of("SchedlensCollectorBufferFilling"));
    JsonNode schema = Manifests.YAML.readTree(Chart.dir().resolve("values.schema.json").toFile());
    List<String> keys = new ArrayList<>(List.of("rules.latencyErrorBudget"));
    schema
        .at("/properties/rules/properties/thresholds/properties")
        .fieldNames()
        .forEachRemaining(k -> keys.add("rules.thresholds." + k));
    assertThat(alertsByKey.keySet())
        .as("every threshold of the schema")
        .containsExactlyElementsOf(keys);

    // a values file: --set would give Helm these numbers as strings
    Map<String, String> values = new LinkedHashMap<>();
    StringBuilder rules = new StringBuilder("rules:\n");
    StringBuilder thresholds = new StringBuilder("  thresholds:\n");
    int i = 0;
    for (String key : alertsByKey.keySet()) {
      String value = "0.0" + (4201 + i++); // a value no rule has, valid for every key
      values.put(key, value);
      String leaf = key.substring(key.lastIndexOf('.') + 1);
      if (key.startsWith("rules.thresholds.")) {
        thresholds.append("    ").append(leaf).append(": ").append(value).append('\n');
      } else {
        rules.append("  ").append(leaf).append(": ").append(value).append('\n');
      }
    }
    Path file = scratch.resolve("thresholds.yaml");
    Files.writeString(file, rules.append(thresholds).toString());
    Chart.Install install = new Chart.Install("schedlens", "schedlens", List.of(file), Map.of());
    Map<String, JsonNode> plain =
        byName(Manifests.YAML.readTree(PrometheusRulesTest.RULES.toFile()));
    Map<String, JsonNode> tuned = byName(rendered(install));
    for (Map.Entry<String, List<String>> e : alertsByKey.entrySet()) {
      for (String alert : e.getValue()) {
        assertThat(tuned.get(alert).path("expr").asText())
            .as(e.getKey() + " in " + alert)
            .contains(values.get(e.getKey()))
            .isNotEqualTo(plain.get(alert).path("expr").asText());
      }
    }
  }

  /** The schema knows the alerts by name: a misspelt one in disabled or severity is refused. */
  @Test
  void shouldRefuseAnAlertTheRulesDoNotHave() throws Exception {
    JsonNode schema = Manifests.YAML.readTree(Chart.dir().resolve("values.schema.json").toFile());
    for (String key : List.of("disabled", "severity")) {
      List<String> names = new ArrayList<>();
      schema
          .at("/properties/rules/properties/" + key + "/propertyNames/enum")
          .forEach(n -> names.add(n.asText()));
      assertThat(names).as("rules." + key).containsExactlyElementsOf(PrometheusRulesTest.alerts());
    }
    assertThatThrownBy(
            () ->
                Chart.template(
                    Chart.Install.of().with("rules.disabled.SchedlensPreemptonStorm", "true")))
        .hasMessageContaining("schema")
        .hasMessageContaining("SchedlensPreemptonStorm");
    assertThatThrownBy(
            () ->
                Chart.template(
                    Chart.Install.of().with("rules.severity.SchedlensCollectorDown", "page")))
        .hasMessageContaining("schema")
        .hasMessageContaining("/rules/severity/SchedlensCollectorDown");
  }
}
