package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        List.of(args),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void shouldListEverySubcommandOfTheDesign() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "demo", "collector", "streams", "simulate", "replay", "export", "report", "check");
  }

  @Test
  void shouldRejectAnUnknownCommandAsUsageError() {
    assertThat(run("frobnicate")).isEqualTo(Main.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'frobnicate'");
  }

  @Test
  void shouldFailWithUsageWhenNoCommandIsGiven() {
    assertThat(run()).isEqualTo(Main.USAGE);
  }
}
