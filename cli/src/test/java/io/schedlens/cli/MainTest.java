package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
            "demo",
            "collector",
            "streams",
            "simulate",
            "replay",
            "export",
            "report",
            "check",
            "probe");
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

  @Test
  void shouldSayItsVersionAndCommit() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .matches("schedlens \\d+\\.\\d+\\.\\d+\\S* \\(commit ([0-9a-f]{7}(-dirty)?|unknown)\\)\\R");
    out.reset();
    assertThat(run("replay", "--version")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("schedlens ");
  }

  @Test
  void shouldSayWhichKafkaAnExportCannotReachWithoutAStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    Path to = Files.createTempDirectory("export-");
    assertThat(
            run(
                "export",
                "--to",
                to.toString(),
                "--stop-at-end",
                "true",
                "--kafka",
                "bootstrap.servers=127.0.0.1:" + port))
        .isEqualTo(Main.FAILED);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("schedlens export: Kafka unreachable at 127.0.0.1:" + port)
        .doesNotContain("\tat ");
  }
}
