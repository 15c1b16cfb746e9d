package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoginBackoffTest {

  @Test
  void shouldLetAFewMistakesPassThenDoubleTheWaitUpToTheCap() {
    SessionsTest.Ticking clock = new SessionsTest.Ticking();
    LoginBackoff backoff = new LoginBackoff(clock);
    for (int i = 0; i < LoginBackoff.FREE; i++) {
      assertThat(backoff.waitOf("10.0.0.1")).isZero();
      backoff.failed("10.0.0.1");
    }
    assertThat(backoff.waitOf("10.0.0.1")).isZero();
    backoff.failed("10.0.0.1");
    assertThat(backoff.waitOf("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.waitOf("10.0.0.2")).as("another client").isZero();
    clock.now = clock.now.plusSeconds(1);
    backoff.failed("10.0.0.1");
    assertThat(backoff.waitOf("10.0.0.1")).isEqualTo(Duration.ofSeconds(2));
    for (int i = 0; i < 20; i++) {
      backoff.failed("10.0.0.1");
    }
    assertThat(backoff.waitOf("10.0.0.1")).isEqualTo(LoginBackoff.MAX_WAIT);
    clock.now = clock.now.plus(LoginBackoff.FORGET).plusSeconds(1);
    assertThat(backoff.waitOf("10.0.0.1")).as("forgotten").isZero();
  }

  @Test
  void shouldStartAfreshAfterASuccess() {
    LoginBackoff backoff = new LoginBackoff(new SessionsTest.Ticking());
    for (int i = 0; i < 8; i++) {
      backoff.failed("a");
    }
    assertThat(backoff.waitOf("a")).isPositive();
    backoff.succeeded("a");
    assertThat(backoff.waitOf("a")).isZero();
  }
}
