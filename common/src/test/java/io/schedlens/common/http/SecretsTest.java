package io.schedlens.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.common.config.CommandLineSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsTest {

  static final ConfigDef DEF = BearerToken.define(new ConfigDef(), "api", "/api");
  static final String LONG = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  static AbstractConfig config(List<String> args, Map<String, String> env) {
    return new AbstractConfig(DEF, CommandLineSettings.load(DEF, args, env).values());
  }

  @Test
  void shouldReadATokenFromAMountedFileWithoutItsNewline() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, LONG + "\n");
    AbstractConfig c = config(List.of(), Map.of("SCHEDLENS_API_TOKEN_FILE", file.toString()));
    assertThat(BearerToken.required(c, "api", "/api")).isEqualTo(LONG);
  }

  @Test
  void shouldRefuseBothAValueAndAFileAnEmptyFileAndAMissingOne() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, LONG);
    assertThatThrownBy(
            () ->
                BearerToken.required(
                    config(
                        List.of("--api-token", LONG),
                        Map.of("SCHEDLENS_API_TOKEN_FILE", file.toString())),
                    "api",
                    "/api"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not both");
    Files.writeString(file, "\n");
    assertThatThrownBy(
            () ->
                BearerToken.required(
                    config(List.of("--api-token-file", file.toString()), Map.of()), "api", "/api"))
        .hasMessageContaining("is empty");
    assertThatThrownBy(
            () ->
                BearerToken.required(
                    config(List.of("--api-token-file", dir.resolve("nope").toString()), Map.of()),
                    "api",
                    "/api"))
        .hasMessageContaining("mount the Secret");
  }

  @Test
  void shouldRefuseATokenShorterThanTheMinimum() {
    assertThatThrownBy(
            () ->
                BearerToken.required(
                    config(List.of("--api-token", "s3cret"), Map.of()), "api", "/api"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("shorter than 32")
        .hasMessageContaining("openssl rand -hex 32");
  }

  @Test
  void shouldDeriveASecretOfItsOwnForEachUse() {
    assertThat(Secrets.derive(LONG, "a")).hasSize(64).isNotEqualTo(Secrets.derive(LONG, "b"));
    assertThat(Secrets.derive(LONG, "a")).isEqualTo(Secrets.derive(LONG, "a"));
  }
}
