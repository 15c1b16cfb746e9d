package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The rules pass promtool's checks and unit tests; every alert has tests and a runbook entry. */
class PrometheusRulesTest {

  static final Path RULES = Repository.path("deploy/prometheus/schedlens-rules.yaml");
  static final Path TESTS = Repository.path("deploy/prometheus/tests/schedlens-rules.test.yaml");

  static List<JsonNode> rules() throws Exception {
    List<JsonNode> all = new ArrayList<>();
    Manifests.YAML
        .readTree(RULES.toFile())
        .path("groups")
        .forEach(g -> g.path("rules").forEach(all::add));
    return all;
  }

  static List<String> alerts() throws Exception {
    return rules().stream().filter(r -> r.has("alert")).map(r -> r.path("alert").asText()).toList();
  }

  @Test
  void shouldPassPromtoolCheck() throws Exception {
    Tools.require("promtool", "install the Debian package prometheus (./schedlens selftest does)");
    Tools.Run r =
        Tools.run(RULES.getParent(), "promtool", "check", "rules", RULES.getFileName().toString());
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: " + rules().size() + " rules found");
  }

  @Test
  void shouldPassPromtoolUnitTests() throws Exception {
    Tools.require("promtool", "install the Debian package prometheus (./schedlens selftest does)");
    Tools.Run r =
        Tools.run(TESTS.getParent(), "promtool", "test", "rules", TESTS.getFileName().toString());
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }

  @Test
  void shouldFailPromtoolUnitTestsWhenAnAlertDoesNotFireAsExpected() throws Exception {
    Tools.require("promtool", "install the Debian package prometheus (./schedlens selftest does)");
    // The same tests against rules whose storm threshold is raised out of reach: the storm test
    // must fail, which shows that the unit tests can fail.
    Path dir = Files.createTempDirectory("schedlens-rules");
    Files.writeString(
        dir.resolve("schedlens-rules.yaml"),
        Files.readString(RULES).replace("[10m])) > 10", "[10m])) > 1000"));
    Files.createDirectories(dir.resolve("tests"));
    Files.copy(TESTS, dir.resolve("tests/t.test.yaml"));
    Tools.Run r = Tools.run(dir.resolve("tests"), "promtool", "test", "rules", "t.test.yaml");
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("SchedlensPreemptionStorm");
  }

  @Test
  void shouldTestEveryAlertFiringAndSilent() throws Exception {
    JsonNode tests = Manifests.YAML.readTree(TESTS.toFile());
    Set<String> fires = new HashSet<>();
    Set<String> silent = new HashSet<>();
    for (JsonNode t : tests.path("tests")) {
      for (JsonNode a : t.path("alert_rule_test")) {
        String name = a.path("alertname").asText();
        (a.path("exp_alerts").isEmpty() ? silent : fires).add(name);
      }
    }
    assertThat(fires).as("alerts with a test where they fire").containsAll(alerts());
    assertThat(silent).as("alerts with a test where they stay silent").containsAll(alerts());
  }

  @Test
  void shouldGiveEveryAlertASummaryADescriptionAndARunbookEntry() throws Exception {
    String runbook = Files.readString(Repository.path("docs/operators/runbook.md"));
    Set<String> sections = new HashSet<>();
    Matcher m = Pattern.compile("(?m)^## (\\S+)").matcher(runbook);
    while (m.find()) {
      sections.add(m.group(1));
    }
    for (JsonNode r : rules()) {
      if (!r.has("alert")) {
        continue;
      }
      String name = r.path("alert").asText();
      JsonNode a = r.path("annotations");
      assertThat(a.path("summary").asText()).as(name).isNotBlank();
      assertThat(a.path("description").asText()).as(name).isNotBlank();
      assertThat(a.path("runbook_url").asText())
          .as(name)
          .endsWith("docs/operators/runbook.md#" + name.toLowerCase());
      assertThat(r.path("labels").path("severity").asText())
          .as(name)
          .isIn("critical", "warning", "info");
      assertThat(sections)
          .as("docs/operators/runbook.md has a section '## " + name + "'")
          .contains(name);
    }
  }
}
