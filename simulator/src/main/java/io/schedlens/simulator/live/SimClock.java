package io.schedlens.simulator.live;

import io.schedlens.simulator.Simulator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Virtual time, accelerated: {@code origin + (wall time since start) × speed}. One clock shared by
 * the simulator (which waits on it before each action), its API server and the collector (read
 * times, scrape times), so that a run of simulated hours takes seconds and every component agrees
 * on what time it is.
 */
public final class SimClock extends Clock implements Simulator.Pacer {

  private final long originMs;
  private final double speed;
  private volatile long wallStartNanos;
  private volatile boolean started;

  /**
   * A clock standing at {@code originMs} until {@link #start()}.
   *
   * @param originMs virtual epoch ms at start
   * @param speed virtual seconds per wall second
   */
  public SimClock(long originMs, double speed) {
    if (speed <= 0) {
      throw new IllegalArgumentException("speed must be positive, got " + speed);
    }
    this.originMs = originMs;
    this.speed = speed;
  }

  /** Virtual time starts to run (once everything that reads the clock is up). */
  public void start() {
    wallStartNanos = System.nanoTime();
    started = true;
  }

  public double speed() {
    return speed;
  }

  @Override
  public long millis() {
    if (!started) {
      return originMs;
    }
    return originMs + (long) ((System.nanoTime() - wallStartNanos) / 1e6 * speed);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  /** Wall milliseconds that {@code virtualMs} of virtual time take. */
  public long wallMillis(long virtualMs) {
    return (long) Math.ceil(virtualMs / speed);
  }

  @Override
  public void awaitVirtual(long at) throws InterruptedException {
    long ahead = at - millis();
    if (ahead > 0) {
      long wallNanos = (long) (ahead / speed * 1e6);
      if (wallNanos > 200_000) {
        Thread.sleep(wallNanos / 1_000_000, (int) (wallNanos % 1_000_000));
      }
    }
  }
}
