package io.schedlens.report;

/** Durations for people: {@code 850 ms}, {@code 42 s}, {@code 7 min 32 s}, {@code 1 h 05 min}. */
public final class Format {

  private Format() {}

  /**
   * " in ARM", or nothing for the pods of no experiment arm (a cluster outside an experiment: the
   * report's one arm has no name).
   */
  public static String inArm(String arm) {
    return arm == null || arm.isEmpty() ? "" : " in " + arm;
  }

  /** Compact, for table cells: {@code 850ms}, {@code 42s}, {@code 7m32s}, {@code 1h05m}. */
  public static String compact(double ms) {
    if (Double.isNaN(ms)) {
      return "–";
    }
    if (ms < 1000) {
      return Math.round(ms) + "ms";
    }
    long s = Math.round(ms / 1000);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + String.format("%02d", s % 60) + "s";
    }
    return (s / 3600) + "h" + String.format("%02d", (s % 3600) / 60) + "m";
  }

  public static String duration(double ms) {
    if (Double.isNaN(ms)) {
      return "–";
    }
    if (ms < 1000) {
      return Math.round(ms) + " ms";
    }
    long s = Math.round(ms / 1000);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return (s / 60) + " min " + String.format("%02d", s % 60) + " s";
    }
    return (s / 3600) + " h " + String.format("%02d", (s % 3600) / 60) + " min";
  }
}
