package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** The chart README's values are what values.yaml says, and nothing else. */
class ChartReadmeTest {

  @Test
  void shouldListEveryValueAsValuesYamlSaysIt() throws Exception {
    String page = Files.readString(ChartReadme.readme());
    int from = page.indexOf(ChartReadme.BEGIN);
    int to = page.indexOf(ChartReadme.END);
    assertThat(from).as("the generated part's markers").isNotNegative();
    assertThat(page.substring(from, to + ChartReadme.END.length() + 1))
        .as(
            "deploy/helm/schedlens/README.md's values; write them anew with: mvn -q -pl deploy"
                + " exec:java -Dexec.mainClass=io.schedlens.deploy.ChartReadme"
                + " -Dexec.classpathScope=test")
        .isEqualTo(ChartReadme.values());
  }

  @Test
  void shouldDescribeEveryValue() throws Exception {
    assertThat(ChartReadme.values().lines())
        .filteredOn(l -> l.startsWith("| `"))
        .as("rows without a comment above their key in values.yaml")
        .noneMatch(l -> l.endsWith("|  |"));
  }
}
