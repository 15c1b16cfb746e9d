package io.schedlens.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KubeTimeTest {

  // 2023-07-11T04:25:44.224Z
  static final long T = 1_689_049_544_224L;

  @Test
  void shouldWriteTimeToTheSecondAndMicroTimeToTheMicrosecond() {
    assertThat(KubeTime.seconds(T)).isEqualTo("2023-07-11T04:25:44Z");
    assertThat(KubeTime.micros(T)).isEqualTo("2023-07-11T04:25:44.224000Z");
    assertThat(KubeTime.truncated(T)).isEqualTo(T - 224);
  }

  @Test
  void shouldReadWhatTheApiWritesTruncatedToMilliseconds() {
    assertThat(KubeTime.millis("2023-07-11T04:25:44.224298Z")).isEqualTo(T);
    assertThat(KubeTime.millis(KubeTime.seconds(T))).isEqualTo(T - 224);
    assertThat(KubeTime.millis("")).isNull();
    assertThat(KubeTime.millis("yesterday")).isNull();
  }

  @Test
  void shouldWriteSecondsAsJavasFormatterDoes() {
    DateTimeFormatter reference =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
    SplittableRandom random = new SplittableRandom(34);
    List<Long> times = new ArrayList<>(List.of(0L, -1L, -1_000L, -1_001L, 253_402_300_799_999L));
    for (int i = 0; i < 100_000; i++) {
      times.add(random.nextLong(-62_167_219_200_000L, 253_402_300_800_000L)); // years 0 to 9999
    }
    times.add(Instant.parse("2024-02-29T23:59:59.999Z").toEpochMilli());
    for (long t : times) {
      assertThat(KubeTime.seconds(t))
          .as("%d", t)
          .isEqualTo(reference.format(Instant.ofEpochMilli(t)));
    }
  }
}
