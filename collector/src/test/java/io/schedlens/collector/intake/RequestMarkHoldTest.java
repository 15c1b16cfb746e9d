package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.collector.kafka.MarkLimit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The request topic's marks under an intake that refuses, is slow, or gets a backlog. */
class RequestMarkHoldTest {

  static final Duration ALLOWANCE = Duration.ofSeconds(2);
  static final Duration WINDOW = Duration.ofSeconds(60);

  /** A clock the test moves. */
  static final class TestClock extends Clock {
    long now = 1_000_000;

    @Override
    public long millis() {
      return now;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(now);
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

  final TestClock clock = new TestClock();
  final RequestMarkHold hold = new RequestMarkHold(clock, ALLOWANCE, WINDOW);

  void answered(long tookMs, boolean refused, long oldestLine) {
    long start = hold.begin();
    clock.now += tookMs;
    hold.end(start, refused, oldestLine);
  }

  @Test
  void shouldLeaveTheMarksToTheClockWhileTheIntakeAnswersPromptly() {
    answered(50, false, clock.now - 500);
    assertThat(hold.latest()).isEqualTo(MarkLimit.UNLIMITED);
  }

  @Test
  void shouldNotPassTheStartOfARequestStillBeingHandled() {
    long start = hold.begin();
    clock.now += 30_000; // Kafka does not acknowledge
    assertThat(hold.latest()).isEqualTo(start - ALLOWANCE.toMillis());
  }

  @Test
  void shouldHoldAtTheOldestRefusedLineUntilTheShipperCaughtUpAndTheWindowPassed() {
    long outage = clock.now;
    answered(5, true, outage - 3_000); // 503, its oldest line 3 s old
    long held = outage - 3_001;
    for (int i = 0; i < 600; i++) { // ten minutes of 503s
      clock.now += 1_000;
      answered(5, true, outage - 3_000);
      assertThat(hold.latest()).isEqualTo(held);
    }
    // Kafka is back: the shipper sends its backlog, lines written during the outage.
    long lastTrouble = clock.now;
    for (long t = outage; t < lastTrouble; t += 10_000) {
      clock.now += 100;
      answered(20, false, t);
      assertThat(hold.latest()).as("while the backlog comes").isEqualTo(held);
    }
    // Lines written since the trouble ended, still sent late (the shipper drains its backlog
    // slower than it writes): behind too, as long as they are old.
    for (int i = 0; i < 120; i++) {
      clock.now += 500;
      answered(20, false, clock.now - 30_000);
      assertThat(hold.latest()).as("while the shipper is 30 s behind").isEqualTo(held);
    }
    // Caught up: recent lines only. The window since the last refusal has passed; the hold ends
    // twice the allowance after the last backlog batch.
    long caughtUp = clock.now;
    clock.now += 2 * ALLOWANCE.toMillis() - 100;
    answered(20, false, clock.now - 500);
    assertThat(hold.latest()).isEqualTo(held);
    clock.now = caughtUp + 2 * ALLOWANCE.toMillis() + 1;
    assertThat(hold.latest()).isEqualTo(MarkLimit.UNLIMITED);
  }

  @Test
  void shouldHoldAfterSlowAnswersOnlyWhileTheBacklogComes() {
    long start = clock.now;
    answered(10_000, false, start - 200); // taken, then acknowledged after 10 s
    long held = Math.min(start - ALLOWANCE.toMillis(), start - 201);
    // The lines written while the shipper waited come next, then it is caught up.
    for (int i = 0; i < 5; i++) {
      answered(100, false, start + i * 2_000);
      assertThat(hold.latest()).isEqualTo(held);
    }
    long lastBehind = clock.now;
    answered(100, false, clock.now - 300);
    assertThat(hold.latest()).isEqualTo(held);
    clock.now = lastBehind + 2 * ALLOWANCE.toMillis() + 1;
    assertThat(hold.latest()).isEqualTo(MarkLimit.UNLIMITED);
  }

  @Test
  void shouldKeepHoldingForTheWindowAfterARefusalEvenWhenTheShipperIsQuiet() {
    answered(5, true, clock.now - 1_000);
    clock.now += WINDOW.toMillis() - 1;
    assertThat(hold.latest()).isNotEqualTo(MarkLimit.UNLIMITED);
  }

  @Test
  void shouldReleaseAfterTheWindowWhenTheShipperSendsNothingMore() {
    answered(5, true, clock.now - 1_000);
    clock.now += WINDOW.toMillis() + 1;
    assertThat(hold.latest()).isEqualTo(MarkLimit.UNLIMITED);
  }
}
