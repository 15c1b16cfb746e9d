package io.schedlens.common.http;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A warning that anyone can cause (a malformed request), written at most once per period with the
 * count of those left out since, so that a client cannot fill the log.
 */
final class RateLimitedLog {

  private final Logger log;
  private final long periodNanos;
  private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong skipped = new AtomicLong();

  RateLimitedLog(Logger log, Duration period) {
    this.log = log;
    this.periodNanos = period.toNanos();
  }

  void log(String message) {
    long now = System.nanoTime();
    long due = next.get();
    if ((due == Long.MIN_VALUE || now - due >= 0) && next.compareAndSet(due, now + periodNanos)) {
      long left = skipped.getAndSet(0);
      log.warn("{}{}", message, left == 0 ? "" : " (and " + left + " more like it since the last)");
    } else {
      skipped.incrementAndGet();
    }
  }
}
