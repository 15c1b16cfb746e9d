package io.schedlens.base;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them in configuration: {@code 500ms}, {@code 15s}, {@code 2m}, {@code
 * 1h30m}, {@code 1d}, or ISO-8601 {@code PT2M}. A bare number is rejected: the unit must be said.
 */
public final class Durations {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  /** Parses a duration, or throws {@link IllegalArgumentException} saying what is accepted. */
  public static Duration parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    if (s.startsWith("pt") || s.startsWith("p")) {
      try {
        return Duration.parse(s.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw invalid(text);
      }
    }
    Matcher m = PART.matcher(s);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        throw invalid(text);
      }
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      end = m.end();
    }
    if (end == 0 || end != s.length()) {
      throw invalid(text);
    }
    return total;
  }

  /** Formats a duration the way {@link #parse} reads it, e.g. {@code 2m} or {@code 1h30m}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    StringBuilder sb = new StringBuilder();
    long ms = d.toMillis();
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    String[] names = {"d", "h", "m", "s", "ms"};
    for (int i = 0; i < units.length; i++) {
      if (ms >= units[i]) {
        sb.append(ms / units[i]).append(names[i]);
        ms %= units[i];
      }
    }
    return sb.toString();
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "'"
            + text
            + "' is not a duration: write a number with a unit, e.g. 500ms, 15s, 2m, 1h, 1d");
  }
}
