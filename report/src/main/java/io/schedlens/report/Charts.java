package io.schedlens.report;

import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.imageio.ImageIO;

/**
 * The report's two charts as PNG, so that a person can look rather than read: pending time of every
 * workload by arm, and batch work lost by arm. Grouped bars (one group per workload, one bar per
 * arm) at the mean over repeats, with a whisker from the smallest to the largest repeat.
 *
 * <p>Drawn with the JDK's own Java2D (headless): two bar charts do not justify a charting library's
 * weight in the launcher.
 */
public final class Charts {

  private static final Color[] ARM_COLORS = {
    new Color(0x5B8DEF), new Color(0xF2994A), new Color(0x27AE60), new Color(0x9B51E0)
  };
  private static final int W = 960;
  private static final int H = 480;

  private Charts() {}

  /** Pending p95 per workload and arm, in minutes. */
  public static byte[] pending(ExperimentReport r) {
    return bars(
        r,
        "Pending p95 by workload and arm (minutes; bar: mean over repeats, whisker: min–max)",
        row -> row.pendingP95Ms(),
        60_000.0,
        row -> true);
  }

  /** Wasted GPU time per batch workload and arm, in GPU-hours per repeat. */
  public static byte[] wasted(ExperimentReport r) {
    return bars(
        r,
        "GPU work lost when pods were ended early (GPU-hours per repeat; whisker: min–max)",
        Row::wastedGpuSeconds,
        3600.0,
        row -> "Job".equals(row.workloadKind()));
  }

  /** The value axis and its grid lines, from 0 to {@code top}. */
  private static void grid(
      Graphics2D g, FontMetrics fm, double top, int left, int right, int plotTop, int bottom) {
    for (int i = 0; i <= 4; i++) {
      double v = top * i / 4;
      int y = bottom - (int) Math.round((bottom - plotTop) * i / 4.0);
      g.setColor(new Color(0xE0E0E0));
      g.drawLine(left, y, right, y);
      g.setColor(Color.GRAY);
      String label = v == Math.rint(v) ? Long.toString((long) v) : String.format("%.2f", v);
      g.drawString(label, left - 8 - fm.stringWidth(label), y + 4);
    }
    g.setColor(Color.GRAY);
    g.drawLine(left, bottom, right, bottom);
  }

  /**
   * A bar per workload and arm, its whisker from the repeats' min to max.
   *
   * @param box left, right, top and bottom of the plot
   */
  private static void drawBars(
      Graphics2D g,
      FontMetrics fm,
      ExperimentReport r,
      List<String> workloads,
      Function<Row, Stat> metric,
      double unit,
      double top,
      int[] box) {
    int left = box[0];
    int right = box[1];
    int plotTop = box[2];
    int bottom = box[3];
    List<String> arms = r.arms();
    double groupWidth = (right - left) / (double) workloads.size();
    double barWidth = Math.min(60, groupWidth * 0.8 / arms.size());
    for (int wi = 0; wi < workloads.size(); wi++) {
      double groupLeft = left + wi * groupWidth + (groupWidth - barWidth * arms.size()) / 2;
      for (int ai = 0; ai < arms.size(); ai++) {
        Row row = r.row(arms.get(ai), workloads.get(wi));
        Stat s = row == null ? null : metric.apply(row);
        if (s == null) {
          continue;
        }
        int x = (int) Math.round(groupLeft + ai * barWidth);
        int h = (int) Math.round((bottom - plotTop) * (s.mean() / unit) / top);
        g.setColor(ARM_COLORS[ai % ARM_COLORS.length]);
        g.fillRect(x + 2, bottom - h, (int) barWidth - 4, h);
        int yMin = bottom - (int) Math.round((bottom - plotTop) * (s.min() / unit) / top);
        int yMax = bottom - (int) Math.round((bottom - plotTop) * (s.max() / unit) / top);
        int cx = x + (int) barWidth / 2;
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(cx, yMin, cx, yMax);
        g.drawLine(cx - 5, yMin, cx + 5, yMin);
        g.drawLine(cx - 5, yMax, cx + 5, yMax);
      }
      g.setColor(Color.DARK_GRAY);
      String name = workloads.get(wi);
      int cx = (int) Math.round(left + wi * groupWidth + groupWidth / 2);
      g.drawString(name, cx - fm.stringWidth(name) / 2, bottom + 18);
    }
  }

  private static byte[] bars(
      ExperimentReport r,
      String title,
      Function<Row, Stat> metric,
      double unit,
      Predicate<Row> include) {
    System.setProperty("java.awt.headless", "true");
    List<String> workloads = new ArrayList<>();
    for (Row row : r.rows()) {
      if (include.test(row) && !workloads.contains(row.workload())) {
        workloads.add(row.workload());
      }
    }
    double top = 0;
    for (Row row : r.rows()) {
      Stat s = metric.apply(row);
      if (s != null && include.test(row)) {
        top = Math.max(top, s.max() / unit);
      }
    }
    top = niceCeiling(top);

    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    g.setColor(Color.DARK_GRAY);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, 20, 28);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics fm = g.getFontMetrics();

    int left = 70;
    int right = W - 20;
    int plotTop = 60;
    int bottom = H - 80;
    grid(g, fm, top, left, right, plotTop, bottom);
    List<String> arms = r.arms();
    if (workloads.isEmpty() || top <= 0) {
      g.setColor(Color.GRAY);
      g.drawString("nothing to show: all zero", left + 20, (plotTop + bottom) / 2);
    } else {
      drawBars(g, fm, r, workloads, metric, unit, top, new int[] {left, right, plotTop, bottom});
    }
    // legend
    int lx = left;
    for (int ai = 0; ai < arms.size(); ai++) {
      g.setColor(ARM_COLORS[ai % ARM_COLORS.length]);
      g.fillRect(lx, H - 40, 14, 14);
      g.setColor(Color.DARK_GRAY);
      g.drawString(arms.get(ai), lx + 20, H - 28);
      lx += 40 + fm.stringWidth(arms.get(ai));
    }
    g.dispose();
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try {
      ImageIO.write(img, "png", png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return png.toByteArray();
  }

  private static double niceCeiling(double v) {
    if (v <= 0) {
      return 0;
    }
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * magnitude >= v) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }
}
