package io.schedlens.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Rfc3339Test {

  @Test
  void shouldReadKubernetesTimeAndMicroTime() {
    assertThat(Rfc3339.toEpochMilli("2023-07-11T04:20:29Z"))
        .isEqualTo(Instant.parse("2023-07-11T04:20:29Z").toEpochMilli());
    assertThat(Rfc3339.toEpochMilli("2023-07-11T04:25:44.224298Z"))
        .isEqualTo(Instant.parse("2023-07-11T04:25:44.224Z").toEpochMilli());
    assertThat(Rfc3339.toEpochMilli("2024-02-29T23:59:59.9Z"))
        .isEqualTo(Instant.parse("2024-02-29T23:59:59.900Z").toEpochMilli());
  }

  @Test
  void shouldReadOffsetsThroughTheSlowPath() {
    assertThat(Rfc3339.toEpochMilli("2026-11-29T11:15:30.25+01:00"))
        .isEqualTo(Instant.parse("2026-11-29T10:15:30.250Z").toEpochMilli());
  }

  @Test
  void shouldRejectWhatIsNotADateTime() {
    assertThat(Rfc3339.toEpochMilli("2023-02-29T00:00:00Z")).isNull();
    assertThat(Rfc3339.toEpochMilli("2023-13-01T00:00:00Z")).isNull();
    assertThat(Rfc3339.toEpochMilli("yesterday")).isNull();
    assertThat(Rfc3339.toEpochMilli("")).isNull();
    assertThat(Rfc3339.toEpochMilli(null)).isNull();
  }

  @Test
  void shouldAgreeWithJavaTimeOnRandomInstants() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 100_000; i++) {
      long ms = random.nextLong(-2_000_000_000_000L, 7_000_000_000_000L);
      Instant t = Instant.ofEpochMilli(ms);
      if (t.toString().startsWith("-") || t.toString().startsWith("+")) {
        continue;
      }
      assertThat(Rfc3339.toEpochMilli(t.toString())).as(t.toString()).isEqualTo(ms);
    }
  }
}
