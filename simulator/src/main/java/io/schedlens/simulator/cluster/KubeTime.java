package io.schedlens.simulator.cluster;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Times as the Kubernetes API writes them: {@code metav1.Time} (creationTimestamp, condition
 * transitions, container states, core/v1 event timestamps) to the second, {@code metav1.MicroTime}
 * (events.k8s.io eventTime, series lastObservedTime) to the microsecond.
 */
public final class KubeTime {

  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private KubeTime() {}

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
