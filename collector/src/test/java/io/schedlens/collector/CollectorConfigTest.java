package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.common.config.CommandLineSettings;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class CollectorConfigTest {

  static final String TOKEN = "intake-token-0123456789abcdef0123456789";

  static CollectorConfig config(List<String> args, Map<String, String> env) {
    return CollectorConfig.from(CommandLineSettings.load(CollectorConfig.DEF, args, env));
  }

  @Test
  void shouldRefuseToStartAnIntakeWithoutItsTokenUnlessToldSo() {
    assertThatThrownBy(() -> config(List.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("requires a bearer token")
        .hasMessageContaining("SCHEDLENS_INTAKE_TOKEN")
        .hasMessageContaining("--intake-auth none");
    // An empty value (a Secret key with nothing in it) is no token either.
    assertThatThrownBy(() -> config(List.of(), Map.of("SCHEDLENS_INTAKE_TOKEN", "")))
        .isInstanceOf(ConfigException.class);
    assertThat(config(List.of(), Map.of("SCHEDLENS_INTAKE_TOKEN", TOKEN)).intakeToken())
        .isEqualTo(TOKEN);
    assertThat(config(List.of("--intake-auth", "none"), Map.of()).intakeToken()).isNull();
    assertThatThrownBy(() -> config(List.of("--intake-auth", "maybe"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("intake.auth");
  }

  @Test
  void shouldDiscoverDcgmExportersOnlyInTheNamespacesItIsGiven() {
    assertThat(
            config(List.of("--intake-auth", "none"), Map.of())
                .getList(CollectorConfig.DCGM_NAMESPACES))
        .containsExactly("gpu-operator");
    assertThatThrownBy(
            () -> config(List.of("--intake-auth", "none", "--dcgm-namespaces", ""), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--dcgm-namespaces");
    assertThat(
            config(
                    List.of(
                        "--intake-auth",
                        "none",
                        "--dcgm-namespaces",
                        "",
                        "--dcgm-discovery",
                        "false"),
                    Map.of())
                .getList(CollectorConfig.DCGM_NAMESPACES))
        .isEmpty();
  }
}
