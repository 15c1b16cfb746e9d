package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command that needs Kafka, run as the launcher runs it (its own JVM, its logging as shipped),
 * with nothing listening at the address: one line on standard error says so and names the setting,
 * not a screen of the Kafka client's connection warnings first; under {@code --log-format json}
 * that line is a JSON log record like every other.
 */
class UnreachableKafkaIT {

  @TempDir Path dir;

  private record Ran(int exit, List<String> stderr) {}

  private Ran export(String... extra) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
    command.addAll(List.of(extra));
    command.addAll(
        List.of(
            "export",
            "--to",
            dir.resolve("w").toString(),
            "--kafka",
            "bootstrap.servers=127.0.0.1:" + port));
    Path err = dir.resolve("stderr-" + extra.length + ".txt");
    Process p =
        new ProcessBuilder(command)
            .redirectError(err.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("export ends").isTrue();
    return new Ran(p.exitValue(), lines(err));
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
        .filter(l -> !l.isBlank())
        .toList();
  }

  @Test
  void shouldSayInOneLineThatKafkaIsUnreachableAndWhichSettingNamesIt() throws Exception {
    Ran ran = export();

    assertThat(ran.exit()).isEqualTo(Main.FAILED);
    assertThat(ran.stderr()).as("standard error").hasSize(1);
    assertThat(ran.stderr().get(0))
        .startsWith("schedlens export: Kafka unreachable at 127.0.0.1:")
        .contains("KAFKA_BOOTSTRAP_SERVERS");
  }

  @Test
  void shouldWriteThatLineAsAJsonLogRecordUnderLogFormatJson() throws Exception {
    Ran ran = export("--log-format", "json");

    assertThat(ran.exit()).isEqualTo(Main.FAILED);
    assertThat(ran.stderr()).as("standard error").hasSize(1);
    JsonNode line = new ObjectMapper().readTree(ran.stderr().get(0));
    assertThat(line.path("level").asText()).isEqualTo("ERROR");
    assertThat(line.path("formattedMessage").asText())
        .startsWith("schedlens export: Kafka unreachable at 127.0.0.1:");
  }
}
