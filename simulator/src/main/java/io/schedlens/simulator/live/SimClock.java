package io.schedlens.simulator.live;

import io.schedlens.simulator.Simulator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * Virtual time, accelerated: {@code origin + (wall time since start) × speed}. One clock shared by
 * the simulator (which waits on it before each action), its API server and the collector (read
 * times, scrape times), so that a run of simulated hours takes seconds and every component agrees
 * on what time it is.
 *
 * <p>Two bounds keep it honest on a busy machine. It never runs ahead of the simulation: when the
 * simulator reaches an action later than the clock says (it fell behind), the clock slips back to
 * the action's time and goes on from there, so that what the collector stamps matches the cluster
 * it reads. And it never runs more than {@link #MAX_AHEAD_OF_WALL_MS} ahead of the wall clock:
 * Kafka refuses record times more than an hour in the future ({@code
 * message.timestamp.after.max.ms}), and after the simulation the clock keeps running while the demo
 * waits for the last timelines.
 */
public final class SimClock extends Clock implements Simulator.Pacer {

  /** How far virtual time may run ahead of the wall clock. */
  public static final long MAX_AHEAD_OF_WALL_MS = 45 * 60_000L;

  private final LongSupplier nanoTime;
  private final LongSupplier wallMillis;
  private final long originMs;
  private final double speed;
  private volatile long anchorVirtualMs;
  private volatile long anchorWallNanos;

  /**
   * The time of the action the simulator is at: the clock does not pass it (before the simulator's
   * first step, the origin; after {@link #simulationDone()}, no bound).
   */
  private volatile long ceilingMs;

  private volatile boolean started;

  /**
   * A clock standing at {@code originMs} until {@link #start()}.
   *
   * @param originMs virtual epoch ms at start
   * @param speed virtual seconds per wall second
   */
  public SimClock(long originMs, double speed) {
    this(originMs, speed, System::nanoTime, System::currentTimeMillis);
  }

  /** With its own sources of monotonic and wall time (tests drive these by hand). */
  SimClock(long originMs, double speed, LongSupplier nanoTime, LongSupplier wallMillis) {
    this.nanoTime = nanoTime;
    this.wallMillis = wallMillis;
    if (speed <= 0) {
      throw new IllegalArgumentException("speed must be positive, got " + speed);
    }
    this.originMs = originMs;
    this.speed = speed;
    this.anchorVirtualMs = originMs;
    this.ceilingMs = originMs;
  }

  /** Virtual time starts to run (once everything that reads the clock is up). */
  public void start() {
    anchorWallNanos = nanoTime.getAsLong();
    anchorVirtualMs = originMs;
    started = true;
  }

  /** The simulation is over: the clock runs on at speed, still bounded by the wall clock. */
  public void simulationDone() {
    ceilingMs = Long.MAX_VALUE;
  }

  public double speed() {
    return speed;
  }

  private long unbounded() {
    return anchorVirtualMs + (long) ((nanoTime.getAsLong() - anchorWallNanos) / 1e6 * speed);
  }

  @Override
  public long millis() {
    if (!started) {
      return originMs;
    }
    long v = Math.min(unbounded(), ceilingMs);
    return Math.min(v, wallMillis.getAsLong() + MAX_AHEAD_OF_WALL_MS);
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
    if (!started) {
      return;
    }
    synchronized (this) {
      if (unbounded() >= at) {
        // Behind: the clock slips back to the simulation's time instead of running away from it.
        anchorVirtualMs = at;
        anchorWallNanos = nanoTime.getAsLong();
      }
      ceilingMs = at;
    }
    while (true) {
      long u = unbounded();
      long w = wallMillis.getAsLong() + MAX_AHEAD_OF_WALL_MS;
      if (Math.min(u, w) >= at) {
        return;
      }
      // virtual time to go at speed, or (held by the wall-clock bound) real time to go
      long wallNanos = u <= w ? (long) ((at - u) / speed * 1e6) : (at - w) * 1_000_000L;
      wallNanos = Math.max(wallNanos, 200_000);
      Thread.sleep(wallNanos / 1_000_000, (int) (wallNanos % 1_000_000));
    }
  }
}
