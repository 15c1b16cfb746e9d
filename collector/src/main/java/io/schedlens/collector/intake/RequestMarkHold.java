package io.schedlens.collector.intake;

import io.schedlens.collector.kafka.MarkLimit;
import java.time.Clock;
import java.time.Duration;
import java.util.TreeMap;

/**
 * How far the request topic's progress marks may go, so that a Kafka outage of any length, or an
 * intake slowed down by one, never turns request lines into late data.
 *
 * <p>A mark at T promises that every line up to T has been written. The collector writes marks at
 * its clock less the progress allowance, which assumes that a line reaches the intake within the
 * allowance. That stops being true as soon as the intake holds the shipper up: a 503 (the shipper
 * sends the batch again later), or an answer that takes longer than the allowance (Kafka slow to
 * acknowledge; the shipper's next lines wait behind it). From such trouble, the marks stay at the
 * least of: the troubled request's start less the allowance, and its oldest line. The hold lasts
 * while the shipper is behind: while batches keep being refused or slow, or keep carrying lines
 * more than twice the allowance (at least 10 s) old (its backlog, sent once it is let through);
 * then a while longer: twice the allowance after slow answers alone, and {@code
 * intake.resend.window} after a refusal, the longest a shipper waits between two attempts. Besides,
 * a mark never passes the start of a request still being handled (less the allowance).
 *
 * <p>A line resent later than the window after the last sign of a backlog can still be late, which
 * is why the window is a setting. The hold costs time, not data: while it lasts, the streams app's
 * request seconds are not complete and final timelines wait.
 */
public final class RequestMarkHold implements MarkLimit {

  private final Clock clock;
  private final long allowanceMs;
  private final long windowMs;
  private final long settleMs;
  private final long lagToleranceMs;
  private final TreeMap<Long, Integer> inFlight = new TreeMap<>();
  private long heldAt = NONE;
  private long lastBehind;
  private long lastRefusal = NONE;

  /**
   * @param clock the collector's clock, the one its marks are stamped with; every time here is in
   *     it (the demo's runs faster than the wall's)
   */
  public RequestMarkHold(Clock clock, Duration allowance, Duration window) {
    this.clock = clock;
    this.allowanceMs = allowance.toMillis();
    this.windowMs = window.toMillis();
    // After trouble without a refusal (slow answers only), nothing will be sent again: the hold
    // lasts while the backlog comes, and this long after its last batch.
    this.settleMs = Math.max(2 * allowanceMs, 1_000);
    // A batch whose oldest line is older than this is the shipper catching up (its flush interval
    // and a tail's delay stay well under it).
    this.lagToleranceMs = Math.max(2 * allowanceMs, 10_000);
  }

  /** A request starts being handled; returns its start, to give to {@link #end}. */
  public synchronized long begin() {
    long start = clock.millis();
    inFlight.merge(start, 1, Integer::sum);
    return start;
  }

  /**
   * A request has been answered.
   *
   * @param start what {@link #begin} returned
   * @param refused whether it was answered 503 (the shipper sends it again)
   * @param oldestLine the time of its oldest usable line, or {@link Long#MAX_VALUE} if none
   */
  public synchronized void end(long start, boolean refused, long oldestLine) {
    inFlight.computeIfPresent(start, (k, n) -> n == 1 ? null : n - 1);
    long now = clock.millis();
    boolean slow = now - start > allowanceMs;
    if (refused || slow) {
      hold(Math.min(start - allowanceMs, before(oldestLine)), now);
      if (refused) {
        lastRefusal = now;
      }
    } else if (heldAt != NONE
        && oldestLine != Long.MAX_VALUE
        && now - oldestLine > lagToleranceMs) {
      // The shipper's backlog: lines written while the intake held it up, or while it caught up
      // since; it is still behind.
      hold(before(oldestLine), now);
    }
  }

  private static long before(long time) {
    return time == Long.MAX_VALUE ? time : time - 1;
  }

  private void hold(long at, long now) {
    heldAt = heldAt == NONE ? at : Math.min(heldAt, at);
    lastBehind = now;
  }

  @Override
  public synchronized long latest() {
    long now = clock.millis();
    if (heldAt != NONE
        && now - lastBehind > settleMs
        && (lastRefusal == NONE || now - lastRefusal > windowMs)) {
      heldAt = NONE;
      lastRefusal = NONE;
    }
    long limit = heldAt == NONE ? UNLIMITED : heldAt;
    if (!inFlight.isEmpty()) {
      limit = Math.min(limit, inFlight.firstKey() - allowanceMs);
    }
    return limit;
  }
}
