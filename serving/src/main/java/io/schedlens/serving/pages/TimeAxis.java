package io.schedlens.serving.pages;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The one horizontal scale every chart of a page shares, so that a phase band, a GPU point and a
 * latency point at the same time sit at the same x. Times are epoch ms; x is in SVG user units. The
 * scale is written on each chart ({@code data-t0}, {@code data-t1}, {@code data-x0}, {@code
 * data-x1}), so that what a browser renders can be checked against the timeline's times.
 */
record TimeAxis(long t0, long t1, double x0, double x1) {

  static final double WIDTH = 1000;
  static final double LEFT = 130;
  static final double RIGHT = 985;

  private static final long[] STEPS = {
    1_000,
    5_000,
    15_000,
    30_000,
    60_000,
    300_000,
    900_000,
    1_800_000,
    3_600_000,
    3 * 3_600_000,
    6 * 3_600_000,
    12 * 3_600_000,
    86_400_000,
    2 * 86_400_000,
    7 * 86_400_000
  };

  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("MM-dd HH:mm").withZone(ZoneOffset.UTC);

  /** An axis from {@code from} to {@code to}, a little wider so marks at the ends show. */
  static TimeAxis of(long from, long to) {
    long span = Math.max(1_000, to - from);
    long pad = Math.max(500, span / 40);
    return new TimeAxis(from - pad, to + pad, LEFT, RIGHT);
  }

  double x(long t) {
    double f = (t - t0) / (double) (t1 - t0);
    return x0 + Math.max(0, Math.min(1, f)) * (x1 - x0);
  }

  /**
   * The opening of a chart's {@code <svg>} on this axis, without its closing {@code >}: its id, the
   * ids of the elements that name and describe it, its size, and the scale.
   */
  String svgOpen(String id, String labelledBy, double height) {
    return "<svg id=\""
        + id
        + "\" role=\"img\" aria-labelledby=\""
        + labelledBy
        + "\" viewBox=\"0 0 "
        + Html.px(WIDTH)
        + " "
        + Html.px(height)
        + "\" width=\""
        + Html.px(WIDTH)
        + "\" height=\""
        + Html.px(height)
        + "\""
        + dataAttributes();
  }

  /** The scale as data attributes of a chart. */
  String dataAttributes() {
    return " data-t0=\""
        + t0
        + "\" data-t1=\""
        + t1
        + "\" data-x0=\""
        + Html.px(x0)
        + "\" data-x1=\""
        + Html.px(x1)
        + "\" data-width=\""
        + Html.px(WIDTH)
        + "\"";
  }

  /** Tick lines and labels for a chart whose plot spans {@code top} to {@code bottom}. */
  String ticks(double top, double bottom) {
    long span = t1 - t0;
    long step = STEPS[STEPS.length - 1];
    for (long s : STEPS) {
      if (span / s <= 8) {
        step = s;
        break;
      }
    }
    DateTimeFormatter f = span > 2 * 86_400_000L ? DAY : CLOCK;
    StringBuilder b = new StringBuilder("<g class=\"axis\" aria-hidden=\"true\">");
    for (long t = Math.floorDiv(t0, step) * step + step; t < t1; t += step) {
      double x = x(t);
      b.append("<line x1=\"")
          .append(Html.px(x))
          .append("\" x2=\"")
          .append(Html.px(x))
          .append("\" y1=\"")
          .append(Html.px(top))
          .append("\" y2=\"")
          .append(Html.px(bottom))
          .append("\"/><text x=\"")
          .append(Html.px(x))
          .append("\" y=\"")
          .append(Html.px(bottom + 14))
          .append("\" text-anchor=\"middle\">")
          .append(f.format(Instant.ofEpochMilli(t)))
          .append("</text>");
    }
    return b.append("</g>").toString();
  }
}
