package io.schedlens.collector.k8s;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Kubernetes time strings to epoch milliseconds: {@code Time} (RFC 3339, second granularity, e.g.
 * {@code 2023-07-11T04:20:29Z}) and {@code MicroTime} (with microseconds, e.g. {@code
 * 2023-07-11T04:25:44.224298Z}), truncated to milliseconds.
 */
public final class KubeTime {

  private KubeTime() {}

  /** Epoch milliseconds, or null for a null, empty or unreadable time. */
  public static Long millis(String time) {
    if (time == null || time.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
