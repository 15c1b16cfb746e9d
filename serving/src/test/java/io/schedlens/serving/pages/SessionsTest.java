package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SessionsTest {

  static final String TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef";

  static final class Ticking extends Clock {
    Instant now = Instant.parse("2026-12-04T10:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  @Test
  void shouldIssueASignedExpiringValueThatIsNotTheToken() {
    Ticking clock = new Ticking();
    Sessions sessions = new Sessions(Sessions.keyFromToken(TOKEN), Duration.ofHours(12), clock);
    String value = sessions.issue();
    assertThat(value).doesNotContain(TOKEN).startsWith("v1.");
    assertThat(sessions.valid(value)).isTrue();
    assertThat(sessions.issue()).as("a nonce each").isNotEqualTo(value);
    assertThat(sessions.cookie(value))
        .contains("Max-Age=43200", "; Secure", "; HttpOnly", "; SameSite=Strict");

    clock.now = clock.now.plus(Duration.ofHours(12)).plusSeconds(1);
    assertThat(sessions.valid(value)).as("expired").isFalse();
  }

  @Test
  void shouldRefuseAValueTamperedWithOrSignedWithAnotherKey() {
    Ticking clock = new Ticking();
    Sessions sessions = new Sessions(Sessions.keyFromToken(TOKEN), Duration.ofHours(1), clock);
    String value = sessions.issue();
    String[] parts = value.split("\\.");
    String longer =
        parts[0] + "." + (Long.parseLong(parts[1]) + 86_400) + "." + parts[2] + "." + parts[3];
    assertThat(sessions.valid(longer)).as("expiry moved").isFalse();
    assertThat(sessions.valid(value.substring(0, value.length() - 2))).isFalse();
    assertThat(sessions.valid(TOKEN)).as("the token itself").isFalse();
    assertThat(sessions.valid("v1.x.y.%%%")).isFalse();
    Sessions rotated =
        new Sessions(Sessions.keyFromToken(TOKEN + "-new"), Duration.ofHours(1), clock);
    assertThat(rotated.valid(value)).as("a new token ends every session").isFalse();
  }
}
