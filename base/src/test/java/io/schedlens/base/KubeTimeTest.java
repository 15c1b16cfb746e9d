package io.schedlens.base;

import static org.assertj.core.api.Assertions.assertThat;

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
}
