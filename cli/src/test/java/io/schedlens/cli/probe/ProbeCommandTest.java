package io.schedlens.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The probe's verdict where nothing answers. It passing against the real apps, and naming a refused
 * token, is SecureKafkaIT's (module deploy), which runs the chart's helm test pod's command.
 */
class ProbeCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) throws Exception {
    return ProbeCommand.run(
        List.of(args),
        Map.of(),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** A loopback port nobody listens on: bound, then closed. */
  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void shouldFailEveryCheckNamingTheServiceWhenNothingListens() throws Exception {
    int port = closedPort();
    int exit =
        run(
            "--collector-url", "http://127.0.0.1:" + port,
            "--streams-url", "http://127.0.0.1:" + port + "/",
            "--api-token", "api-secret-0123456789abcdef0123456789abcdef",
            "--wait", "0s",
            "--timeout", "2s");
    assertThat(exit).isEqualTo(1);
    String said = out.toString(StandardCharsets.UTF_8);
    assertThat(said.lines().filter(l -> l.startsWith("probe: FAIL")))
        .hasSize(3)
        .allMatch(l -> l.contains("connection refused: is the Service 127.0.0.1 there"));
    assertThat(said)
        .contains("FAIL collector http://127.0.0.1:" + port + "/readyz")
        .contains("FAIL GET http://127.0.0.1:" + port + "/api/pods?state=pending")
        .contains("does not answer as installed");
  }

  @Test
  void shouldRetryUntilTheWaitEndsSayingWhatItWaitsFor() throws Exception {
    int port = closedPort();
    long t0 = System.nanoTime();
    int exit =
        run(
            "--collector-url", "http://127.0.0.1:" + port,
            "--streams-url", "http://127.0.0.1:" + port,
            "--api-token", "api-secret-0123456789abcdef0123456789abcdef",
            "--wait", "4s",
            "--timeout", "1s");
    assertThat(exit).isEqualTo(1);
    assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(4_000);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("probe: 3 of 3 checks failing, retrying for")
        .contains("FAIL collector");
  }
}
