package io.schedlens.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void shouldReadTheUnitsPeopleWrite() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("15s")).isEqualTo(Duration.ofSeconds(15));
    assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse("PT10M")).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void shouldRejectANumberWithoutUnitAndSayWhatIsAccepted() {
    assertThatThrownBy(() -> Durations.parse("120"))
        .hasMessageContaining("'120' is not a duration")
        .hasMessageContaining("15s");
    assertThatThrownBy(() -> Durations.parse("2 minutes"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Durations.parse("m2")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldFormatWhatItParses() {
    assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1s500ms");
    assertThat(Durations.parse(Durations.format(Duration.ofMillis(93_784_005))))
        .isEqualTo(Duration.ofMillis(93_784_005));
  }
}
