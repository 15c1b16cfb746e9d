package io.schedlens.simulator.live;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SimClockTest {

  @Test
  void shouldStandStillUntilStartedThenRunAtSpeed() throws Exception {
    long origin = System.currentTimeMillis() - 3_600_000;
    SimClock clock = new SimClock(origin, 1000);
    assertThat(clock.millis()).isEqualTo(origin);
    clock.start();
    clock.awaitVirtual(origin + 50_000); // 50 virtual seconds at 1000x: about 50 ms
    assertThat(clock.millis()).isBetween(origin + 50_000, origin + 50_000);
    clock.simulationDone();
    Thread.sleep(20);
    assertThat(clock.millis()).isGreaterThan(origin + 50_000);
  }

  @Test
  void shouldSlipBackToTheSimulationWhenItFallsBehindAndNeverGoBackwards() throws Exception {
    long origin = System.currentTimeMillis() - 3_600_000;
    SimClock clock = new SimClock(origin, 1000);
    clock.start();
    Thread.sleep(100); // the clock ran ~100 virtual seconds while the simulator was busy
    long before = clock.millis();
    clock.awaitVirtual(origin + 10_000); // the simulator is only at +10 s
    long at = clock.millis();
    assertThat(at).as("not ahead of the simulation").isEqualTo(origin + 10_000);
    assertThat(at)
        .as("never behind what it said before")
        .isGreaterThanOrEqualTo(Math.min(before, at));
    clock.awaitVirtual(origin + 20_000);
    assertThat(clock.millis()).isBetween(origin + 20_000, origin + 20_000);
  }

  @Test
  void shouldNeverRunMoreThan45MinutesAheadOfTheWallClock() {
    long origin = System.currentTimeMillis() + 2 * 3_600_000L; // an origin in the future
    SimClock clock = new SimClock(origin, 200);
    clock.start();
    clock.simulationDone();
    assertThat(clock.millis())
        .isLessThanOrEqualTo(System.currentTimeMillis() + SimClock.MAX_AHEAD_OF_WALL_MS);
  }
}
