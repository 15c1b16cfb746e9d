package io.schedlens.common.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class DurationSettingTest {

  @Test
  void shouldNameTheSettingWhenBelowTheMinimum() {
    assertThatThrownBy(
            () ->
                DurationSetting.atLeast(Duration.ofSeconds(1))
                    .ensureValid("scrape.interval", "10ms"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("scrape.interval")
        .hasMessageContaining("at least 1s");
  }
}
