package io.schedlens.serving.pages;

import static io.schedlens.serving.pages.Html.esc;
import static io.schedlens.serving.pages.Html.px;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.PodTimeline;
import io.schedlens.timeline.LatencyBins;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * A pod's story on one page (pure: a timeline in, HTML out): its phases as bands on a time axis,
 * the scheduler's reasons, the preemptor or victims as links, GPU allocation against real
 * utilisation, requests, errors and latency against the SLO, and DESIGN's numbers with their
 * definitions (the published schema's own documentation) on hover.
 */
final class PodPage {

  /** A phase of a pod's life: a band from {@code from} to {@code to}. */
  record Phase(String name, String label, long from, long to) {}

  private static final double LANE_TOP = 24;
  private static final double LANE_HEIGHT = 30;

  private PodPage() {}

  /**
   * The phases in the order they happen, each ending where the next begins; a phase that did not
   * take time (a Job without a readiness probe is Ready when it runs) or never began is left out.
   *
   * @param end where the last phase ends: the pod's end, else the time the page shows it at
   */
  static List<Phase> phases(PodTimeline t, long end) {
    List<Phase> out = new ArrayList<>();
    Long created = t.getCreatedAt();
    if (created == null) {
      return out;
    }
    Long[] starts = {
      created, t.getScheduledAt(), t.getRunningAt(), t.getReadyAt(), t.getFirstOkRequestAt()
    };
    String[] names = {"pending", "starting", "loading", "ready", "serving"};
    String[] labels = {
      "Pending (unscheduled)",
      "Scheduled, containers starting",
      "Running, not Ready (model loading)",
      t.getRequests() > 0 ? "Ready, no OK request yet" : "Ready",
      "Serving (first OK request onwards)"
    };
    for (int i = 0; i < starts.length; i++) {
      if (starts[i] == null) {
        break;
      }
      long from = starts[i];
      long to = end;
      for (int j = i + 1; j < starts.length; j++) {
        if (starts[j] != null) {
          to = starts[j];
          break;
        }
      }
      to = Math.min(to, Math.max(from, end));
      if (to > from) {
        out.add(new Phase(names[i], labels[i], from, to));
      }
    }
    return out;
  }

  /** Where the page's time axis ends for this pod. */
  static long end(PodTimeline t, long now) {
    if (t.getTerminatedAt() != null) {
      return t.getTerminatedAt();
    }
    return t.getFinal$() ? t.getUpdatedAt() : Math.max(t.getUpdatedAt(), now);
  }

  /**
   * @param related timelines of the pods this one links to (preemptor, victims), by UID, as far as
   *     known
   * @param now the time a pod still alive is shown at, epoch ms
   */
  static String render(PodTimeline t, Map<String, PodTimeline> related, long now) {
    long created = t.getCreatedAt() == null ? t.getUpdatedAt() : t.getCreatedAt();
    long end = end(t, now);
    TimeAxis axis = TimeAxis.of(created, end);
    String title = t.getNamespace() + "/" + t.getName();
    StringBuilder b = new StringBuilder();
    b.append("<h1>Pod ")
        .append(esc(title))
        .append(" <span class=\"tag\" id=\"outcome\">")
        .append(esc(t.getOutcome()))
        .append("</span>");
    if (t.getStarving()) {
      b.append(" <span class=\"tag bad\">starving</span>");
    }
    b.append("</h1><p class=\"muted\">UID <code id=\"uid\">")
        .append(esc(t.getUid()))
        .append("</code>");
    if (t.getWorkload() != null) {
      b.append(" · ")
          .append(esc(t.getWorkload().getKind()))
          .append(' ')
          .append(
              Html.link(
                  Html.workloadHref(
                      t.getNamespace(), t.getWorkload().getKind(), t.getWorkload().getName()),
                  t.getWorkload().getName()));
    }
    b.append(" · priority class ")
        .append(esc(orDash(t.getPriorityClass())))
        .append(" (")
        .append(t.getPriority() == null ? "—" : t.getPriority())
        .append(")");
    if (t.getArm() != null) {
      b.append(" · arm ").append(esc(t.getArm()));
    }
    if (t.getRepeat() != null) {
      b.append(" · repeat ").append(esc(t.getRepeat()));
    }
    b.append(" · node ").append(esc(orDash(t.getNode())));
    if (!t.getFinal$()) {
      b.append(" · <strong>live</strong>, shown at ").append(Html.time(end));
    }
    b.append("</p>");
    b.append("<div class=\"layout\"><div class=\"charts\">");
    b.append(story(t, related));
    b.append(phasesChart(t, axis, end));
    b.append(gpuChart(t, axis, end));
    b.append(serviceChart(t, axis, created, end));
    b.append("</div><aside>").append(numbers(t)).append("</aside></div>");
    return Html.page("Pod " + title, b.toString());
  }

  /** The scheduler's and the disruption's story in words, with links. */
  private static String story(PodTimeline t, Map<String, PodTimeline> related) {
    StringBuilder b = new StringBuilder("<h2>What happened</h2><ul id=\"story\">");
    b.append("<li>Created ")
        .append(Html.time(t.getCreatedAt()))
        .append("; pending ")
        .append(Html.duration(t.getPendingMs()));
    if (t.getNeverScheduled()) {
      b.append(" and never scheduled");
    }
    b.append(".</li>");
    if (t.getFailedSchedulingCount() > 0 || !t.getPendingReasons().isEmpty()) {
      b.append("<li id=\"reasons\">FailedScheduling × ").append(t.getFailedSchedulingCount());
      if (!t.getPendingReasons().isEmpty()) {
        b.append(": ");
        List<String> rs = new ArrayList<>();
        t.getPendingReasons()
            .forEach(
                (reason, nodes) ->
                    rs.add(
                        "<span class=\"reason\">"
                            + esc(reason)
                            + "</span> ("
                            + nodes
                            + " node"
                            + (nodes == 1 ? "" : "s")
                            + ")"));
        b.append(String.join(", ", rs));
      }
      b.append(".</li>");
    }
    if (t.getPreemptionAttempted() || t.getNominatedNode() != null) {
      b.append("<li>The scheduler tried preemption for it");
      if (t.getNominatedNode() != null) {
        b.append("; nominated node ").append(esc(t.getNominatedNode()));
      }
      b.append(".</li>");
    }
    if (t.getPreemptedAt() != null) {
      b.append("<li id=\"preempted\">Preempted ").append(Html.time(t.getPreemptedAt()));
      PodRef p = t.getPreemptor();
      if (p != null) {
        b.append(" by ")
            .append(podRef(p))
            .append(" (priority class ")
            .append(esc(orDash(p.getPriorityClass())))
            .append(", ")
            .append(p.getPriority() == null ? "—" : p.getPriority())
            .append(")");
        if (p.getInferred()) {
          b.append(" <span class=\"muted\">(inferred: the pod that took the node next)</span>");
        }
      }
      b.append(".</li>");
    }
    if (!t.getVictims().isEmpty()) {
      b.append("<li id=\"victims\">Preempted ")
          .append(t.getVictims().size())
          .append(" pod(s) to get its place: ");
      List<String> links = new ArrayList<>();
      for (String v : t.getVictims()) {
        PodTimeline vt = related.get(v);
        links.add(
            Html.link(Html.podHref(v), vt == null ? v : vt.getNamespace() + "/" + vt.getName()));
      }
      b.append(String.join(", ", links)).append(".</li>");
    }
    if (t.getDisruption() != null) {
      b.append("<li id=\"disruption\">Ended early: <strong>")
          .append(esc(t.getDisruption().getCause()))
          .append("</strong> at ")
          .append(Html.time(t.getDisruption().getAt()));
      if (t.getDisruption().getBy() != null) {
        b.append(" by ").append(esc(t.getDisruption().getBy()));
      }
      if (t.getWastedGpuSeconds() != null) {
        b.append("; wasted ")
            .append(Html.number(t.getWastedGpuSeconds(), "GPU-seconds"))
            .append(" since its last checkpoint");
      }
      b.append(".</li>");
    }
    b.append("<li>Outcome <strong>").append(esc(t.getOutcome())).append("</strong>");
    if (t.getTerminatedAt() != null) {
      b.append(" at ").append(Html.time(t.getTerminatedAt()));
    }
    b.append(".</li></ul>");
    return b.toString();
  }

  private static String podRef(PodRef p) {
    String text = p.getNamespace() + "/" + p.getName();
    if (p.getUid() != null) {
      return Html.link(Html.podHref(p.getUid()), text);
    }
    if (p.getNamespace() != null && p.getName() != null) {
      return Html.link(Html.podByNameHref(p.getNamespace(), p.getName()), text);
    }
    return esc(text);
  }

  private static String phasesChart(PodTimeline t, TimeAxis axis, long end) {
    List<Phase> phases = phases(t, end);
    double height = LANE_TOP + LANE_HEIGHT + 60;
    StringBuilder b = new StringBuilder("<h2 id=\"phases-title\">Phases</h2>");
    b.append(axis.svgOpen("phases", "phases-title phases-desc", height)).append('>');
    StringBuilder desc = new StringBuilder();
    for (Phase p : phases) {
      desc.append(p.label()).append(' ').append(Html.duration(p.to() - p.from())).append(". ");
    }
    b.append("<desc id=\"phases-desc\">").append(esc(desc.toString())).append("</desc>");
    b.append(axis.ticks(LANE_TOP - 4, LANE_TOP + LANE_HEIGHT + 4));
    b.append("<text x=\"4\" y=\"").append(px(LANE_TOP + 19)).append("\">phase</text>");
    for (Phase p : phases) {
      double x = axis.x(p.from());
      double w = Math.max(0.5, axis.x(p.to()) - x);
      b.append("<rect class=\"band band-")
          .append(p.name())
          .append("\" data-phase=\"")
          .append(p.name())
          .append("\" data-from=\"")
          .append(p.from())
          .append("\" data-to=\"")
          .append(p.to())
          .append("\" x=\"")
          .append(px(x))
          .append("\" y=\"")
          .append(px(LANE_TOP))
          .append("\" width=\"")
          .append(px(w))
          .append("\" height=\"")
          .append(px(LANE_HEIGHT))
          .append("\"><title>")
          .append(esc(p.label()))
          .append(": ")
          .append(Html.time(p.from()))
          .append(" → ")
          .append(Html.time(p.to()))
          .append(" (")
          .append(Html.duration(p.to() - p.from()))
          .append(")</title></rect>");
    }
    double y = LANE_TOP + LANE_HEIGHT + 34;
    if (t.getPreemptedAt() != null) {
      b.append(marker(axis, t.getPreemptedAt(), "preempted", "preempted", y));
    }
    if (t.getDisruption() != null
        && t.getDisruption().getAt() != null
        && t.getPreemptedAt() == null) {
      b.append(
          marker(axis, t.getDisruption().getAt(), "disruption", t.getDisruption().getCause(), y));
    }
    if (t.getTerminatedAt() != null) {
      b.append(marker(axis, t.getTerminatedAt(), "end", t.getOutcome(), y + 14));
    }
    b.append("</svg><p class=\"legend\" aria-hidden=\"true\">");
    for (String[] l :
        new String[][] {
          {"pending", "pending"},
          {"starting", "starting"},
          {"loading", "running, not Ready"},
          {"ready", "Ready"},
          {"serving", "serving"}
        }) {
      b.append(Html.swatch("band-" + l[0], l[1]));
    }
    return b.append("</p>").toString();
  }

  private static String marker(TimeAxis axis, long t, String id, String label, double y) {
    double x = axis.x(t);
    return "<g class=\"mark\" data-mark=\""
        + id
        + "\" data-at=\""
        + t
        + "\"><line class=\"marker\""
        + " x1=\""
        + px(x)
        + "\" x2=\""
        + px(x)
        + "\" y1=\""
        + px(LANE_TOP - 8)
        + "\" y2=\""
        + px(LANE_TOP + LANE_HEIGHT + 8)
        + "\"/><text x=\""
        + px(x)
        + "\" y=\""
        + px(y)
        + "\" text-anchor=\"middle\">"
        + esc(label)
        + "</text><title>"
        + esc(label)
        + " at "
        + Html.time(t)
        + "</title></g>";
  }

  /** GPUs allocated (while running) against busy GPUs from DCGM, and the wasted span shaded. */
  private static String gpuChart(PodTimeline t, TimeAxis axis, long end) {
    PodSeries s = t.getSeries();
    if (t.getGpus() == 0
        && (s == null || s.getPoints().stream().allMatch(p -> p.getSampledMicros() == 0))) {
      return "<h2>GPU</h2><p class=\"muted\">No GPU requested and no DCGM samples.</p>";
    }
    double top = 10;
    double h = 120;
    double max = Math.max(1, t.getGpus());
    StringBuilder b = new StringBuilder("<h2 id=\"gpu-title\">GPU: allocated vs busy</h2>");
    b.append(axis.svgOpen("gpu", "gpu-title gpu-desc", h + 40)).append('>');
    b.append("<desc id=\"gpu-desc\">")
        .append(
            esc(
                t.getGpus()
                    + " GPU(s) allocated; "
                    + Html.number(t.getBusyGpuSeconds(), "")
                    + " of "
                    + Html.number(t.getAllocatedGpuSeconds(), "")
                    + " allocated GPU-seconds busy"))
        .append("</desc>");
    b.append(axis.ticks(top, top + h));
    b.append("<text x=\"4\" y=\"")
        .append(px(top + 12))
        .append("\">")
        .append(px(max))
        .append(" GPU</text><text x=\"4\" y=\"")
        .append(px(top + h))
        .append("\">0</text>");
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
      long from = end - Math.round(wasted / t.getGpus() * 1000);
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
    if (s != null) {
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
              StepInLife.of(p.getAt(), s.getStepMs(), from, end).x(axis),
              top + h - busyGpus / max * h
            });
      }
      b.append(polylines("busy", pts));
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
  private static String serviceChart(PodTimeline t, TimeAxis axis, long from, long end) {
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

  /** DESIGN section 4's numbers, each with the schema's definition on hover. */
  static String numbers(PodTimeline t) {
    StringBuilder b =
        new StringBuilder(
            "<h2 id=\"numbers-title\">Numbers</h2><table id=\"numbers\" aria-labelledby=\"numbers-title\">"
                + "<thead><tr><th scope=\"col\">field</th><th scope=\"col\">value</th></tr></thead><tbody>");
    for (Schema.Field f : PodTimeline.getClassSchema().getFields()) {
      String name = f.name();
      Object v = t.get(f.pos());
      String value;
      if (v instanceof Double d) {
        value = Html.number(d, name.endsWith("Ms") ? "ms" : "");
      } else if (name.endsWith("At") && (v == null || v instanceof Long)) {
        value = Html.time((Long) v);
      } else if (name.endsWith("Ms") && (v == null || v instanceof Long)) {
        value = Html.duration((Long) v);
      } else if (v instanceof Number || v instanceof Boolean || v instanceof CharSequence) {
        value = esc(String.valueOf(v));
      } else if (v == null && !isComplex(f)) {
        value = "—";
      } else {
        continue; // lists, maps and records are on the page itself
      }
      b.append("<tr data-field=\"")
          .append(name)
          .append("\"><th scope=\"row\"><abbr title=\"")
          .append(esc(f.doc()))
          .append("\">")
          .append(name)
          .append("</abbr></th><td class=\"n\">")
          .append(value)
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static boolean isComplex(Schema.Field f) {
    Schema s = f.schema();
    if (s.getType() == Schema.Type.UNION) {
      for (Schema x : s.getTypes()) {
        if (x.getType() != Schema.Type.NULL) {
          s = x;
        }
      }
    }
    return switch (s.getType()) {
      case RECORD, ARRAY, MAP -> true;
      default -> false;
    };
  }

  private static String orDash(String s) {
    return s == null ? "—" : s;
  }
}
