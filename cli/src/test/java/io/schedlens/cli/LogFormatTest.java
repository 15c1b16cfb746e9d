package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogFormatTest {

  @Test
  void shouldTakeTheFlagAnywhereAndLeaveTheRestToTheCommand() {
    String before = System.getProperty("logback.configurationFile");
    try {
      System.clearProperty("logback.configurationFile");
      assertThat(
              LogFormat.select(List.of("replay", "--log-format", "text", "--out", "x"), Map.of()))
          .containsExactly("replay", "--out", "x");
      assertThat(System.getProperty("logback.configurationFile")).isNull();
      assertThat(LogFormat.select(List.of("--log-format=json", "streams"), Map.of()))
          .containsExactly("streams");
      assertThat(System.getProperty("logback.configurationFile")).isEqualTo("logback-json.xml");
      System.clearProperty("logback.configurationFile");
      assertThat(LogFormat.select(List.of("collector"), Map.of(LogFormat.ENV, "json")))
          .containsExactly("collector");
      assertThat(System.getProperty("logback.configurationFile")).isEqualTo("logback-json.xml");
      assertThatThrownBy(() -> LogFormat.select(List.of("--log-format", "xml", "demo"), Map.of()))
          .hasMessageContaining("must be text or json, not 'xml'");
    } finally {
      if (before == null) {
        System.clearProperty("logback.configurationFile");
      } else {
        System.setProperty("logback.configurationFile", before);
      }
    }
  }

  @Test
  void shouldWriteOneJsonObjectPerLogLineOnStandardError() throws Exception {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    LoggerContext context = new LoggerContext();
    // A context of one's own needs the MDC adapter the default one is given.
    context.setMDCAdapter(new LogbackMDCAdapter());
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(getClass().getResource("/logback-json.xml"));
      context.getLogger("io.schedlens.runs.demo.Demo").info("broker ready on {}", "127.0.0.1:9092");
      context.getLogger("org.apache.kafka.clients.NetworkClient").info("not shown: below WARN");
      context.getLogger("io.schedlens.runs.demo.Demo").warn("slow", new IllegalStateException("x"));
    } finally {
      context.stop();
      System.setErr(stderr);
    }
    List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines.get(0));
    assertThat(first.path("level").asText()).isEqualTo("INFO");
    assertThat(first.path("loggerName").asText()).isEqualTo("io.schedlens.runs.demo.Demo");
    assertThat(first.path("formattedMessage").asText()).isEqualTo("broker ready on 127.0.0.1:9092");
    assertThat(first.path("timestamp").asLong()).isPositive();
    JsonNode second = json.readTree(lines.get(1));
    assertThat(second.path("level").asText()).isEqualTo("WARN");
    assertThat(second.path("throwable").path("className").asText())
        .isEqualTo("java.lang.IllegalStateException");
  }
}
