package io.schedlens.serving.pages;

import static io.schedlens.serving.pages.Html.esc;
import static io.schedlens.serving.pages.Html.px;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.PodTimeline;
import io.schedlens.base.GpuShares;
import io.schedlens.timeline.LatencyBins;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The pod page's charts on the shared time axis: GPU allocated against busy, requests, latency. */
final class PodCharts {

  private PodCharts() {}

  /** GPUs allocated (while running) against busy GPUs from DCGM, and the wasted span shaded. */
  static String gpu(PodTimeline t, TimeAxis axis, long end) {
    PodSeries s = t.getSeries();
    if (t.getGpus() == 0
        && (s == null || s.getPoints().stream().allMatch(p -> p.getSampledMicros() == 0))) {
      return "<h2>GPU</h2><p class=\"muted\">No GPU requested and no DCGM samples.</p>";
    }
    double top = 10;
    double h = 120;
    double max = Math.max(1, t.getGpus());
    StringBuilder b = new StringBuilder("<h2 id=\"gpu-title\">GPU: allocated vs busy</h2>");
    b.append("<p id=\"gpu-held\">Held: ").append(esc(held(t))).append("</p>");
    b.append(axis.svgOpen("gpu", "gpu-title gpu-desc", h + 40)).append('>');
    b.append("<desc id=\"gpu-desc\">")
        .append(
            esc(
                held(t)
                    + " allocated; "
                    + Html.number(t.getBusyGpuSeconds(), "")
                    + " of "
                    + Html.number(t.getAllocatedGpuSeconds(), "")
                    + " allocated GPU-seconds busy"
                    + (share(t) == 1.0 ? "" : " (GPU-equivalents)")))
        .append("</desc>");
    b.append(axis.ticks(top, top + h));
    b.append("<text x=\"4\" y=\"")
        .append(px(top + 12))
        .append("\">")
        .append(px(max))
        .append(" GPU</text><text x=\"4\" y=\"")
        .append(px(top + h))
        .append("\">0</text>");
    allocatedAndWasted(b, t, axis, end, top, h);
    if (s != null) {
      b.append(polylines("busy", busyPoints(t, s, axis, end, top, h, max)));
    }
    b.append(
            "</svg><p class=\"legend\">"
                + Html.swatch("alloc", "allocated")
                + Html.swatch("wasted", "wasted since the last checkpoint")
                + "<span>— busy (utilisation × GPUs, per ")
        .append(s == null ? "—" : Html.duration(s.getStepMs()))
        .append("; gaps are missing samples, not idle time)</span></p>");
    return b.toString();
  }

  /** Request and error rate, latency p50/p99 per step against the SLO, breaches marked. */
  static String service(PodTimeline t, TimeAxis axis, long from, long end) {
    PodSeries s = t.getSeries();
    if (s == null || t.getRequests() == 0) {
      return "<h2>Requests</h2><p class=\"muted\">No requests logged for this pod.</p>";
    }
    double top = 10;
    double h = 90;
    double maxRate = 0;
    double maxLatency = s.getSloMs() == null ? 0 : s.getSloMs();
    for (PodPoint p : s.getPoints()) {
      double seconds = StepInLife.of(p.getAt(), s.getStepMs(), from, end).seconds();
      maxRate = Math.max(maxRate, p.getRequests() / seconds);
      Double p99 = LatencyBins.quantile(p.getLatency(), 0.99);
      if (p99 != null) {
        maxLatency = Math.max(maxLatency, p99);
      }
    }
    maxRate = Math.max(maxRate, 0.01) * 1.1;
    maxLatency = Math.max(maxLatency, 1) * 1.1;
    return rates(s, axis, from, end, top, h, maxRate)
        + latency(s, axis, from, end, top, h, maxLatency);
  }

  /** Polylines through the points, broken where a point is null. */
  private static String polylines(String cls, List<double[]> pts) {
    StringBuilder b = new StringBuilder();
    StringBuilder run = new StringBuilder();
    for (double[] p : pts) {
      if (p == null) {
        if (run.length() > 0) {
          b.append("<polyline class=\"")
              .append(cls)
              .append("\" points=\"")
              .append(run)
              .append("\"/>");
          run.setLength(0);
        }
        continue;
      }
      run.append(px(p[0])).append(',').append(px(p[1])).append(' ');
    }
    if (run.length() > 0) {
      b.append("<polyline class=\"").append(cls).append("\" points=\"").append(run).append("\"/>");
    }
    return b.toString();
  }

  /** The part of a physical GPU each device is: 1 for a whole GPU, and on older timelines. */
  static double share(PodTimeline t) {
    return t.getGpuShare() == null ? 1.0 : t.getGpuShare();
  }

  /**
   * What the pod held: "2 GPU(s)", or for a MIG slice or a shared replica its resource and the part
   * of a GPU each device is ("1 × nvidia.com/mig-1g.10gb, 1/7 of a GPU each").
   */
  static String held(PodTimeline t) {
    String resource = t.getGpuResource();
    boolean whole = resource == null || (GpuShares.WHOLE.equals(resource) && share(t) == 1.0);
    if (whole && !Boolean.TRUE.equals(t.getGpuShared())) {
      return t.getGpus() + " GPU(s)";
    }
    String part = fraction(share(t)) + " of a GPU each";
    if (Boolean.TRUE.equals(t.getGpuShared())) {
      part +=
          share(t) == 1.0 ? ", shared with other pods (replicas per GPU not known)" : ", shared";
    }
    return t.getGpus() + " × " + resource + ", " + part;
  }

  /** 1/7 for a seventh, 3/7, 1/4; else the number. */
  private static String fraction(double share) {
    for (int of : new int[] {7, 4, 8, 2, 3}) {
      double n = share * of;
      if (Math.abs(n - Math.rint(n)) < 1e-9 && n >= 1) {
        return Math.rint(n) == of ? "all" : (long) Math.rint(n) + "/" + of;
      }
    }
    return String.format(Locale.ROOT, "%.3f", share);
  }

  private static void allocatedAndWasted(
      StringBuilder b, PodTimeline t, TimeAxis axis, long end, double top, double h) {
    if (t.getRunningAt() != null && t.getGpus() > 0) {
      double x = axis.x(t.getRunningAt());
      b.append("<rect class=\"alloc\" data-from=\"")
          .append(t.getRunningAt())
          .append("\" x=\"")
          .append(px(x))
          .append("\" y=\"")
          .append(px(top))
          .append("\" width=\"")
          .append(px(Math.max(0.5, axis.x(end) - x)))
          .append("\" height=\"")
          .append(px(h))
          .append("\"><title>allocated: ")
          .append(t.getGpus())
          .append(" GPU(s)</title></rect>");
    }
    Double wasted = t.getWastedGpuSeconds();
    if (wasted != null && wasted > 0 && t.getGpus() > 0) {
      long from = end - Math.round(wasted / (t.getGpus() * share(t)) * 1000);
      double x = axis.x(from);
      b.append("<rect class=\"wasted\" id=\"wasted\" data-from=\"")
          .append(from)
          .append("\" data-to=\"")
          .append(end)
          .append("\" x=\"")
          .append(px(x))
          .append("\" y=\"")
          .append(px(top))
          .append("\" width=\"")
          .append(px(Math.max(0.5, axis.x(end) - x)))
          .append("\" height=\"")
          .append(px(h))
          .append("\"><title>wasted since the last" + " checkpoint: ")
          .append(Html.number(wasted, "GPU-seconds"))
          .append("</title></rect>");
    }
  }

  /** Busy GPUs per step (utilisation × GPUs); null where no sample stands for the step. */
  private static List<double[]> busyPoints(
      PodTimeline t, PodSeries s, TimeAxis axis, long end, double top, double h, double max) {
    List<double[]> pts = new ArrayList<>();
    for (PodPoint p : s.getPoints()) {
      if (p.getSampledMicros() == 0) {
        pts.add(null); // missing data: the line breaks
        continue;
      }
      double util = p.getBusyMicros() / (double) p.getSampledMicros();
      double busyGpus = util * Math.max(1, t.getGpus());
      long from = t.getCreatedAt() == null ? t.getUpdatedAt() : t.getCreatedAt();
      pts.add(
          new double[] {
            StepInLife.of(p.getAt(), s.getStepMs(), from, end).x(axis), top + h - busyGpus / max * h
          });
    }
    return pts;
  }

  private static String rates(
      PodSeries s, TimeAxis axis, long from, long end, double top, double h, double maxRate) {
    StringBuilder b = new StringBuilder("<h2 id=\"req-title\">Requests and errors per second</h2>");
    b.append(axis.svgOpen("requests", "req-title", h + 40))
        .append('>')
        .append(axis.ticks(top, top + h));
    b.append("<text x=\"4\" y=\"")
        .append(px(top + 12))
        .append("\">")
        .append(Html.number(maxRate, "/s"))
        .append("</text>");
    List<double[]> rate = new ArrayList<>();
    List<double[]> errors = new ArrayList<>();
    for (PodPoint p : s.getPoints()) {
      StepInLife in = StepInLife.of(p.getAt(), s.getStepMs(), from, end);
      double x = in.x(axis);
      double step = in.seconds();
      rate.add(new double[] {x, top + h - p.getRequests() / step / maxRate * h});
      errors.add(new double[] {x, top + h - p.getErrors() / step / maxRate * h});
    }
    b.append(polylines("rate", rate)).append(polylines("err", errors)).append("</svg>");
    b.append(
        "<p class=\"legend\"><span style=\"color:#0550ae\">— requests/s</span>"
            + "<span style=\"color:#cf222e\">— errors/s</span></p>");
    return b.toString();
  }

  private static String latency(
      PodSeries s, TimeAxis axis, long from, long end, double top, double h, double maxLatency) {
    StringBuilder b = new StringBuilder();
    b.append("<h2 id=\"lat-title\">Latency p50 / p99 against the SLO</h2>");
    b.append(axis.svgOpen("latency", "lat-title", h + 40))
        .append(" data-ms-max=\"")
        .append(px(maxLatency))
        .append("\">")
        .append(axis.ticks(top, top + h));
    b.append("<text x=\"4\" y=\"")
        .append(px(top + 12))
        .append("\">")
        .append(Html.number(maxLatency, "ms"))
        .append("</text>");
    if (s.getSloMs() != null) {
      double y = top + h - s.getSloMs() / maxLatency * h;
      b.append("<line class=\"slo\" id=\"slo\" data-ms=\"")
          .append(px(s.getSloMs()))
          .append("\" x1=\"")
          .append(px(axis.x0()))
          .append("\" x2=\"")
          .append(px(axis.x1()))
          .append("\" y1=\"")
          .append(px(y))
          .append("\" y2=\"")
          .append(px(y))
          .append("\"><title>SLO ")
          .append(Html.number(s.getSloMs(), "ms"))
          .append("</title></line><text x=\"4\" y=\"")
          .append(px(y + 4))
          .append("\" class=\"bad\">SLO ")
          .append(Html.number(s.getSloMs(), "ms"))
          .append("</text>");
    }
    List<double[]> p50 = new ArrayList<>();
    List<double[]> p99 = new ArrayList<>();
    StringBuilder breaches = new StringBuilder();
    for (PodPoint p : s.getPoints()) {
      double x = StepInLife.of(p.getAt(), s.getStepMs(), from, end).x(axis);
      Double q50 = LatencyBins.quantile(p.getLatency(), 0.50);
      Double q99 = LatencyBins.quantile(p.getLatency(), 0.99);
      p50.add(q50 == null ? null : new double[] {x, top + h - q50 / maxLatency * h});
      p99.add(q99 == null ? null : new double[] {x, top + h - q99 / maxLatency * h});
      if (p.getSloBreaches() > 0) {
        double y = q99 == null ? top : top + h - q99 / maxLatency * h;
        breaches
            .append("<circle class=\"breach\" data-at=\"")
            .append(p.getAt())
            .append("\" cx=\"")
            .append(px(x))
            .append("\" cy=\"")
            .append(px(y))
            .append("\" r=\"4\"><title>")
            .append(p.getSloBreaches())
            .append(" request(s) over the SLO from ")
            .append(Html.time(p.getAt()))
            .append("</title></circle>");
      }
    }
    b.append(polylines("p50", p50)).append(polylines("p99", p99)).append(breaches);
    b.append(
            "</svg><p class=\"legend\"><span style=\"color:#2a9d8f\">— p50</span>"
                + "<span style=\"color:#6f42c1\">— p99</span><span class=\"bad\">- - SLO</span>"
                + "<span class=\"bad\">● breaches</span><span class=\"muted\">per ")
        .append(Html.duration(s.getStepMs()))
        .append(", from a histogram within 9 %</span></p>");
    return b.toString();
  }
}
