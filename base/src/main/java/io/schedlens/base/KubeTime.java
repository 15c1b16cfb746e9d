package io.schedlens.base;

import java.time.Instant;
import java.time.LocalDateTime;
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

  /**
   * metav1.Time: truncated to the second. Written by hand for the years 1 to 9999 (the simulator
   * writes several times into every pod it writes, millions in a what-if of a week, and the
   * formatter's general machinery was a tenth of its time); {@code KubeTimeTest} holds it to the
   * formatter.
   */
  public static String seconds(long epochMs) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMs, 1000), 0, ZoneOffset.UTC);
    int year = t.getYear();
    if (year < 1 || year > 9999) { // the formatter writes the year of the era
      return SECONDS.format(Instant.ofEpochMilli(epochMs));
    }
    char[] c = new char[20];
    digits(c, 0, year, 4);
    c[4] = '-';
    digits(c, 5, t.getMonthValue(), 2);
    c[7] = '-';
    digits(c, 8, t.getDayOfMonth(), 2);
    c[10] = 'T';
    digits(c, 11, t.getHour(), 2);
    c[13] = ':';
    digits(c, 14, t.getMinute(), 2);
    c[16] = ':';
    digits(c, 17, t.getSecond(), 2);
    c[19] = 'Z';
    return new String(c);
  }

  /** {@code value} as {@code width} decimal digits at {@code at}, zero-padded. */
  private static void digits(char[] c, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      c[i] = (char) ('0' + value % 10);
      value /= 10;
    }
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
