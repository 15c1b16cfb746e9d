package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/operators/configuration.md's settings are what the commands' definitions say, and nothing
 * else.
 */
class ConfigReferenceTest {

  @Test
  void shouldDocumentEverySettingOfEveryCommandAsItsDefinitionSays() throws Exception {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("docs/operators/configuration.md"))) {
      dir = dir.getParent();
    }
    String page = Files.readString(dir.resolve("docs/operators/configuration.md"));
    int from = page.indexOf(ConfigReference.BEGIN);
    int to = page.indexOf(ConfigReference.END);
    assertThat(from).as("the generated part's markers").isNotNegative();
    assertThat(page.substring(from, to + ConfigReference.END.length() + 1))
        .as(
            "docs/operators/configuration.md's settings; write them anew with: mvn -q -pl cli -am install"
                + " -DskipTests && mvn -q -pl cli exec:java")
        .isEqualTo(ConfigReference.markdown());
  }
}
