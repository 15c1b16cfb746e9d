package io.schedlens.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.check.Finding.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every example of docs/operators/check-rules.md: a section per rule (heading = rule id),
 * blocks {@code yaml bad=SEVERITY} the rule must flag with that severity, blocks {@code yaml good}
 * it must pass, and {@code yaml cluster} the objects --cluster would read.
 */
class CheckRulesDocTest {

  static final Path DOC = Path.of("../docs/operators/check-rules.md");

  record Example(String kind, String severity, String yaml) {}

  record Section(String rule, List<Example> examples) {
    Optional<ClusterFacts> cluster() throws Exception {
      List<Manifest> objects = new ArrayList<>();
      for (Example e : examples) {
        if (e.kind().equals("cluster")) {
          Manifests.parse(e.yaml(), null, objects);
        }
      }
      return objects.isEmpty()
          ? Optional.empty()
          : Optional.of(
              ClusterFacts.of(
                  objects.stream().map(Manifest::object).toList(), "the example's cluster"));
    }
  }

  static Map<String, Section> sections() throws Exception {
    Map<String, Section> out = new LinkedHashMap<>();
    Section current = null;
    List<String> lines = Files.readAllLines(DOC);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("## ")) {
        current = new Section(line.substring(3).strip(), new ArrayList<>());
        out.put(current.rule(), current);
      } else if (line.startsWith("```yaml ") && current != null) {
        String[] info = line.substring(8).strip().split("=", 2);
        StringBuilder yaml = new StringBuilder();
        while (!lines.get(++i).startsWith("```")) {
          yaml.append(lines.get(i)).append('\n');
        }
        current
            .examples()
            .add(new Example(info[0], info.length > 1 ? info[1] : null, yaml.toString()));
      }
    }
    return out;
  }

  static List<Finding> check(String yaml, Optional<ClusterFacts> cluster) throws Exception {
    List<Manifest> manifests = new ArrayList<>();
    Manifests.parse(yaml, null, manifests);
    return new PreflightCheck(CheckSettings.defaults()).check(manifests, cluster);
  }

  @Test
  void shouldDocumentEveryRuleWithABadAndAGoodExample() throws Exception {
    Map<String, Section> sections = sections();
    assertThat(sections.keySet())
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(Rule.values()).map(Rule::id).collect(Collectors.toList()));
    for (Section s : sections.values()) {
      assertThat(s.examples()).as(s.rule()).anyMatch(e -> e.kind().equals("bad"));
      assertThat(s.examples()).as(s.rule()).anyMatch(e -> e.kind().equals("good"));
    }
  }

  @TestFactory
  Stream<DynamicTest> everyExampleOfThePage() throws Exception {
    List<DynamicTest> tests = new ArrayList<>();
    for (Section s : sections().values()) {
      Optional<ClusterFacts> cluster = s.cluster();
      int n = 0;
      for (Example e : s.examples()) {
        n++;
        if (e.kind().equals("bad")) {
          Severity severity = Severity.valueOf(e.severity().toUpperCase());
          tests.add(
              DynamicTest.dynamicTest(
                  s.rule() + " bad #" + n + " is flagged " + e.severity(),
                  () ->
                      assertThat(check(e.yaml(), cluster))
                          .as(e.yaml())
                          .anyMatch(f -> f.rule().equals(s.rule()) && f.severity() == severity)));
        } else if (e.kind().equals("good")) {
          tests.add(
              DynamicTest.dynamicTest(
                  s.rule() + " good #" + n + " passes",
                  () ->
                      assertThat(check(e.yaml(), cluster))
                          .as(e.yaml())
                          .noneMatch(f -> f.rule().equals(s.rule()))));
        }
      }
    }
    return tests.stream();
  }
}
