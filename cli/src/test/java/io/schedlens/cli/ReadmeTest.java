package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.streams.StreamsAppConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The settings tables of the docs (docs/collector.md, docs/streams-app.md, one page per command)
 * are the commands' own definitions, so they cannot go stale; the README shows the two commands.
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
    try (var pages = Files.list(dir.resolve("docs"))) {
      for (Path p : pages.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
        all.append('\n').append(Files.readString(p));
      }
    }
    return all.toString();
  }

  @Test
  void shouldDocumentEveryCollectorSetting() throws Exception {
    String table = CommandLineSettings.markdownTable(CollectorConfig.DEF);
    assertThat(docs())
        .as("docs/collector.md's settings table; replace it with:%n%s", table)
        .contains(table);
  }

  @Test
  void shouldDocumentEveryStreamsSetting() throws Exception {
    String table = CommandLineSettings.markdownTable(StreamsAppConfig.DEF);
    assertThat(docs())
        .as("docs/streams-app.md's settings table; replace it with:%n%s", table)
        .contains(table);
  }

  @Test
  void shouldDocumentEveryDemoAndSimulateSetting() throws Exception {
    for (var def :
        java.util.List.of(
            io.schedlens.cli.demo.DemoConfig.DEF,
            io.schedlens.cli.simulate.SimulateCommand.DEF,
            io.schedlens.cli.replay.ReplayConfig.DEF,
            io.schedlens.cli.report.ReportCommand.DEF,
            io.schedlens.export.ExportConfig.DEF)) {
      String table = CommandLineSettings.markdownTable(def);
      assertThat(docs())
          .as("the command's settings table; replace it with:%n%s", table)
          .contains(table);
    }
  }

  @Test
  void shouldShowTheTwoCommands() throws Exception {
    assertThat(readme()).contains("./schedlens demo").contains("./schedlens selftest");
  }
}
