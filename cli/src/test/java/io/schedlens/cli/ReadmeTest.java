package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.streams.StreamsAppConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's settings tables are the commands' own definitions, so they cannot go stale. */
class ReadmeTest {

  static String readme() throws Exception {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("README.md")) || !Files.exists(dir.resolve("schedlens"))) {
      dir = dir.getParent();
    }
    return Files.readString(dir.resolve("README.md"));
  }

  @Test
  void shouldDocumentEveryCollectorSetting() throws Exception {
    String table = CommandLineSettings.markdownTable(CollectorConfig.DEF);
    assertThat(readme())
        .as("README's collector table; replace it with:%n%s", table)
        .contains(table);
  }

  @Test
  void shouldDocumentEveryStreamsSetting() throws Exception {
    String table = CommandLineSettings.markdownTable(StreamsAppConfig.DEF);
    assertThat(readme()).as("README's streams table; replace it with:%n%s", table).contains(table);
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
      assertThat(readme()).as("README's table; replace it with:%n%s", table).contains(table);
    }
  }

  @Test
  void shouldShowTheTwoCommands() throws Exception {
    assertThat(readme()).contains("./schedlens demo").contains("mvn -B verify");
  }
}
