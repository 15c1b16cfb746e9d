package io.schedlens.simulator.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The demo clock, on time sources the test moves by hand: no waiting, nothing flaky. */
class SimClockTest {

  static final long WALL = 1_795_000_000_000L;

  final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  final AtomicLong wall = new AtomicLong(WALL);

  SimClock clock(long origin, double speed) {
    return new SimClock(origin, speed, nanos::get, wall::get);
  }

  /** Wall time passes. */
  void pass(long millis) {
    nanos.addAndGet(millis * 1_000_000L);
    wall.addAndGet(millis);
  }

  @Test
  void shouldStandStillUntilStartedThenRunAtSpeed() throws Exception {
    long origin = WALL - 3_600_000;
    SimClock clock = clock(origin, 1000);
    assertThat(clock.millis()).isEqualTo(origin);
    clock.start();
    pass(50); // 50 virtual seconds at 1000x
    clock.awaitVirtual(origin + 50_000);
    assertThat(clock.millis()).isBetween(origin + 50_000, origin + 50_000);
    clock.simulationDone();
    pass(20);
    assertThat(clock.millis()).isGreaterThan(origin + 50_000).isEqualTo(origin + 70_000);
  }

  @Test
  void shouldSlipBackToTheSimulationWhenItFallsBehindAndNeverGoBackwards() throws Exception {
    long origin = WALL - 3_600_000;
    SimClock clock = clock(origin, 1000);
    clock.start();
    pass(5);
    clock.awaitVirtual(origin + 5_000);
    pass(100); // ~100 virtual seconds of wall time while the simulator was busy at +5 s
    long before = clock.millis();
    assertThat(before).as("held at the simulation's step").isEqualTo(origin + 5_000);
    clock.awaitVirtual(origin + 10_000); // the simulator is only at +10 s now
    long at = clock.millis();
    assertThat(at).as("not ahead of the simulation").isEqualTo(origin + 10_000);
    assertThat(at).as("never behind what it said before").isGreaterThanOrEqualTo(before);
    pass(10);
    clock.awaitVirtual(origin + 20_000);
    assertThat(clock.millis()).isBetween(origin + 20_000, origin + 20_000);
  }

  @Test
  void shouldNeverRunMoreThan45MinutesAheadOfTheWallClock() {
    long origin = WALL + 2 * 3_600_000L; // an origin in the future
    SimClock clock = clock(origin, 200);
    clock.start();
    clock.simulationDone();
    assertThat(clock.millis()).isLessThanOrEqualTo(wall.get() + SimClock.MAX_AHEAD_OF_WALL_MS);
    pass(60_000);
    assertThat(clock.millis()).isEqualTo(wall.get() + SimClock.MAX_AHEAD_OF_WALL_MS);
  }
}
