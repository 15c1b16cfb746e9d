package io.schedlens.projections;

import java.time.Duration;
import java.time.Instant;

/**
 * What an input's numbers may be and still be believed, judged per input (a request-log line, a GPU
 * sample, an event): a time too far in the future (Kafka refuses records more than an hour ahead,
 * {@code message.timestamp.after.max.ms}, and would fail the whole batch with them) or absurdly
 * old, a latency that no request can have. One bad input is rejected on its own, with its reason;
 * its neighbours go on. Pure.
 *
 * @param maxFuture how far after the collector's clock an input's time may be
 * @param maxAge how far before the collector's clock an input's time may be
 * @param maxLatencyMs the largest latency or time to first token believed, in milliseconds
 */
public record InputBounds(Duration maxFuture, Duration maxAge, double maxLatencyMs) {

  /** The reason of an input whose time is out of range. */
  public static final String TIME_OUT_OF_RANGE = "time-out-of-range";

  /** The reason of a request whose latency is out of range. */
  public static final String LATENCY_OUT_OF_RANGE = "latency-out-of-range";

  /** The collector's defaults: 5 minutes ahead, 7 days back (the input topics' retention), 1 h. */
  public static InputBounds defaults() {
    return new InputBounds(Duration.ofMinutes(5), Duration.ofDays(7), 3_600_000.0);
  }

  /** For recorded data (a replay): any time, the same latency bound. */
  public static InputBounds anyTime() {
    return new InputBounds(
        Duration.ofMillis(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE), 3_600_000.0);
  }

  /** Why {@code time} cannot be taken at {@code now}, or null when it can. */
  public String timeProblem(long time, long now) {
    if (time > now && time - now > maxFuture.toMillis()) {
      return "time "
          + Instant.ofEpochMilli(time)
          + " is "
          + Duration.ofMillis(time - now)
          + " after the collector's clock ("
          + Instant.ofEpochMilli(now)
          + "), more than "
          + maxFuture
          + ": check the sender's clock";
    }
    if (time < now && now - time > maxAge.toMillis()) {
      return "time "
          + Instant.ofEpochMilli(time)
          + " is more than "
          + maxAge
          + " before the collector's clock ("
          + Instant.ofEpochMilli(now)
          + ")";
    }
    return null;
  }

  /** Why a latency (ms) cannot be taken, or null when it can. */
  public String latencyProblem(String field, Double ms) {
    if (ms != null && ms > maxLatencyMs) {
      return field + " " + ms + " ms is over the " + (long) maxLatencyMs + " ms believed possible";
    }
    return null;
  }
}
