package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The settings tables of the docs (docs/operators/collector.md, docs/operators/streams-app.md, one
 * page per command) are the commands' own definitions, so they cannot go stale; the README shows
 * the two commands.
 */
class ReadmeTest {

  static String readme() throws Exception {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("README.md")) || !Files.exists(dir.resolve("schedlens"))) {
      dir = dir.getParent();
    }
    return Files.readString(dir.resolve("README.md"));
  }

  /** The README and every page under docs/, one text. */
  static String docs() throws Exception {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("README.md")) || !Files.exists(dir.resolve("schedlens"))) {
      dir = dir.getParent();
    }
    StringBuilder all = new StringBuilder(readme());
    try (var pages = Files.walk(dir.resolve("docs"))) {
      for (Path p : pages.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
        all.append('\n').append(Files.readString(p));
      }
    }
    return all.toString();
  }

  @Test
  void shouldShowTheTwoCommands() throws Exception {
    assertThat(readme()).contains("./schedlens demo").contains("./schedlens selftest");
  }
}
