package io.schedlens.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineSettingsTest {

  static final ConfigDef DEF =
      new ConfigDef()
          .define(
              "grace.period",
              ConfigDef.Type.STRING,
              "2m",
              DurationSetting.atLeast(Duration.ZERO),
              ConfigDef.Importance.HIGH,
              "late-data grace")
          .define(
              "http.port",
              ConfigDef.Type.INT,
              9400,
              ConfigDef.Range.between(0, 65535),
              ConfigDef.Importance.MEDIUM,
              "port")
          .define(
              "keep.running",
              ConfigDef.Type.BOOLEAN,
              false,
              ConfigDef.Importance.LOW,
              "keep running")
          .define("slo", ConfigDef.Type.LIST, List.of(), ConfigDef.Importance.LOW, "SLOs");

  static final class TestConfig extends AppConfig {
    TestConfig(CommandLineSettings s) {
      super(DEF, s.values(), s.kafka());
    }
  }

  @Test
  void shouldTakeFlagsOverEnvironmentOverFileOverDefaults(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("schedlens.properties");
    Files.writeString(file, "grace.period=5m\nhttp.port=9000\nkafka.security.protocol=SSL\n");

    CommandLineSettings s =
        CommandLineSettings.load(
            DEF,
            List.of("--config", file.toString(), "--http-port=9500"),
            Map.of("SCHEDLENS_HTTP_PORT", "9100", "SCHEDLENS_GRACE_PERIOD", "3m"));
    TestConfig config = new TestConfig(s);

    assertThat(config.getDuration("grace.period")).isEqualTo(Duration.ofMinutes(3));
    assertThat(config.getInt("http.port")).isEqualTo(9500);
    assertThat(config.getBoolean("keep.running")).isFalse();
    assertThat(config.kafkaClientSettings()).containsEntry("security.protocol", "SSL");
  }

  @Test
  void shouldPassKafkaVariablesThroughButNotKafkaLauncherVariables() {
    CommandLineSettings s =
        CommandLineSettings.load(
            DEF,
            List.of("--kafka", "sasl.mechanism=PLAIN"),
            Map.of("KAFKA_BOOTSTRAP_SERVERS", "broker:9093", "KAFKA_HEAP_OPTS", "-Xmx1g"));
    TestConfig config = new TestConfig(s);

    assertThat(config.bootstrapServers()).isEqualTo("broker:9093");
    assertThat(config.kafkaClientSettings())
        .containsEntry("sasl.mechanism", "PLAIN")
        .doesNotContainKey("heap.opts");
  }

  @Test
  void shouldDefaultToTheLocalBroker() {
    assertThat(
            new TestConfig(CommandLineSettings.load(DEF, List.of(), Map.of())).bootstrapServers())
        .isEqualTo("127.0.0.1:9092");
  }

  @Test
  void shouldAccumulateRepeatedListFlagsAndReadBareBooleans() {
    CommandLineSettings s =
        CommandLineSettings.load(
            DEF, List.of("--slo", "chat=800", "--keep-running", "--slo", "embed=5000"), Map.of());
    TestConfig config = new TestConfig(s);

    assertThat(config.getList("slo")).containsExactly("chat=800", "embed=5000");
    assertThat(config.getBoolean("keep.running")).isTrue();
  }

  @Test
  void shouldFailFastNamingTheBadSetting() {
    assertThatThrownBy(
            () ->
                new TestConfig(
                    CommandLineSettings.load(DEF, List.of("--grace-period", "soon"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("grace.period")
        .hasMessageContaining("not a duration");
    assertThatThrownBy(
            () ->
                new TestConfig(
                    CommandLineSettings.load(DEF, List.of("--http-port", "70000"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.port");
  }

  @Test
  void shouldRejectUnknownOptionsAndListTheKnownOnes() {
    assertThatThrownBy(() -> CommandLineSettings.load(DEF, List.of("--grace", "2m"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown option --grace")
        .hasMessageContaining("--grace-period");
    assertThatThrownBy(() -> CommandLineSettings.load(DEF, List.of("--http-port"), Map.of()))
        .hasMessageContaining("needs a value");
    assertThatThrownBy(() -> CommandLineSettings.load(DEF, List.of("stray"), Map.of()))
        .hasMessageContaining("unexpected argument 'stray'");
  }

  @Test
  void shouldRejectUnknownSettingsInTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.properties");
    Files.writeString(file, "grace=2m\n");

    assertThatThrownBy(
            () -> CommandLineSettings.load(DEF, List.of("--config", file.toString()), Map.of()))
        .hasMessageContaining("unknown setting 'grace'")
        .hasMessageContaining(file.toString());
  }

  @Test
  void shouldDescribeEverySettingForHelpAndTheReadme() {
    assertThat(CommandLineSettings.helpText(DEF))
        .contains("--grace-period (SCHEDLENS_GRACE_PERIOD)")
        .contains("default: 2m");
    assertThat(CommandLineSettings.markdownTable(DEF))
        .contains(
            "| `grace.period` | `--grace-period` | `SCHEDLENS_GRACE_PERIOD` | `2m` | late-data grace |");
  }
}
