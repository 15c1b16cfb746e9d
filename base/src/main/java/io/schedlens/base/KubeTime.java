package io.schedlens.base;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Times as the Kubernetes API writes them, both ways: {@code metav1.Time} (creationTimestamp,
 * condition transitions, container states, core/v1 event timestamps; RFC 3339 to the second, e.g.
 * {@code 2023-07-11T04:20:29Z}) and {@code metav1.MicroTime} (events.k8s.io eventTime, series
 * lastObservedTime; to the microsecond, e.g. {@code 2023-07-11T04:25:44.224298Z}). The collector
 * reads them, the simulator writes them.
 */
public final class KubeTime {

  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private KubeTime() {}

  /** Epoch milliseconds (microseconds truncated), or null for a null, empty or unreadable time. */
  public static Long millis(String time) {
    return Rfc3339.toEpochMilli(time);
  }

  /** metav1.Time: truncated to the second. */
  public static String seconds(long epochMs) {
    return SECONDS.format(Instant.ofEpochMilli(epochMs));
  }

  /** metav1.MicroTime. */
  public static String micros(long epochMs) {
    return MICROS.format(Instant.ofEpochMilli(epochMs));
  }

  /** The time a metav1.Time field shows for an instant: truncated to the second. */
  public static long truncated(long epochMs) {
    return Instant.ofEpochMilli(epochMs).truncatedTo(ChronoUnit.SECONDS).toEpochMilli();
  }
}
