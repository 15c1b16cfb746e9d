package io.schedlens.serving.pages;

import static io.schedlens.serving.pages.Html.esc;
import static io.schedlens.serving.pages.Html.px;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.Listing;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A workload's story (pure): desired against Ready replicas as a step chart, interruptions and
 * degraded intervals shaded with their causes, its pods as rows of a Gantt chart (each a link to
 * its page, its bands the pod page's phases), and its recoveries.
 */
final class WorkloadPage {

  private static final double ROW = 18;

  private WorkloadPage() {}

  static String render(WorkloadTimeline w, Listing<PodTimeline> pods, long now) {
    return render(w, pods, List.of(w), now);
  }

  /**
   * @param named every workload this name has had, newest first (a Job created again under its name
   *     is another workload); listed with links when there is more than this one
   */
  static String render(
      WorkloadTimeline w, Listing<PodTimeline> pods, List<WorkloadTimeline> named, long now) {
    List<PodTimeline> rows = new ArrayList<>(pods.items());
    rows.sort(
        Comparator.comparing(
                (PodTimeline p) -> p.getCreatedAt() == null ? Long.MAX_VALUE : p.getCreatedAt())
            .thenComparing(PodTimeline::getUid));
    long from = w.getUpdatedAt();
    long to = w.getUpdatedAt();
    for (ReplicaPoint p : w.getSeries()) {
      from = Math.min(from, p.getAt());
    }
    for (PodTimeline p : rows) {
      if (p.getCreatedAt() != null) {
        from = Math.min(from, p.getCreatedAt());
      }
      to = Math.max(to, PodPage.end(p, now));
    }
    TimeAxis axis = TimeAxis.of(from, to);
    String title = w.getNamespace() + "/" + w.getKind() + "/" + w.getName();
    StringBuilder b =
        new StringBuilder("<h1>")
            .append(esc(w.getKind()))
            .append(' ')
            .append(esc(w.getNamespace() + "/" + w.getName()))
            .append("</h1><p class=\"muted\">");
    b.append("desired ")
        .append(w.getDesired())
        .append(" (")
        .append(esc(w.getDesiredSource()))
        .append("), Ready ")
        .append(w.getReady())
        .append(" · ")
        .append(w.getPods())
        .append(" pods")
        .append(
            pods.count() > rows.size()
                ? " (the first " + rows.size() + " of the " + pods.count() + " held are drawn)"
                : "")
        .append(" · ")
        .append(w.getPreemptions())
        .append(" preemptions · ")
        .append(w.getEvictions())
        .append(" evictions · interrupted ")
        .append(Html.duration(w.getInterruptionMs()))
        .append(" · degraded ")
        .append(Html.duration(w.getDegradedMs()));
    if (w.getArm() != null) {
      b.append(" · arm ").append(esc(w.getArm()));
    }
    if (w.getRepeat() != null) {
      b.append(" · repeat ").append(esc(w.getRepeat()));
    }
    b.append("</p>");
    b.append(replicaChart(w, axis, to));
    b.append(gantt(rows, axis, now));
    b.append(
        intervals(
            "Interruptions (no Ready replica while one is wanted)",
            "interruptions",
            w.getInterruptions()));
    b.append(intervals("Degraded (fewer Ready than desired)", "degraded", w.getDegraded()));
    b.append(recoveries(w));
    if (named.size() > 1) {
      b.append(named(w, named));
    }
    return Html.page(w.getKind() + " " + title, b.toString());
  }

  /** The workloads of this name (repeats of a Job), newest first, this one marked. */
  private static String named(WorkloadTimeline w, List<WorkloadTimeline> named) {
    StringBuilder b = new StringBuilder();
    b.append("<h2 id=\"named-title\">Workloads of this name, newest first</h2>")
        .append("<ol id=\"named\" aria-labelledby=\"named-title\">");
    for (WorkloadTimeline x : named) {
      String label =
          (x.getControllerUid() == null ? "(recorded by name only)" : x.getControllerUid())
              + ", last change "
              + Html.time(x.getUpdatedAt());
      boolean self = WorkloadKey.of(x).identity().equals(WorkloadKey.of(w).identity());
      b.append("<li>")
          .append(
              self
                  ? esc(label) + " <span class=\"tag\">this one</span>"
                  : Html.link(Html.workloadHref(x), label))
          .append("</li>");
    }
    b.append("</ol>");
    return b.toString();
  }

  private static String replicaChart(WorkloadTimeline w, TimeAxis axis, long end) {
    double top = 10;
    double h = 110;
    int max = 1;
    for (ReplicaPoint p : w.getSeries()) {
      max = Math.max(max, Math.max(p.getDesired(), p.getReady()));
    }
    StringBuilder b = new StringBuilder("<h2 id=\"replicas-title\">Desired vs Ready replicas</h2>");
    b.append(axis.svgOpen("replicas", "replicas-title", h + 40))
        .append('>')
        .append(axis.ticks(top, top + h));
    b.append("<text x=\"4\" y=\"")
        .append(px(top + 12))
        .append("\">")
        .append(max)
        .append(" replicas</text><text x=\"4\" y=\"")
        .append(px(top + h))
        .append("\">0</text>");
    for (ServiceInterval i : w.getDegraded()) {
      b.append(shade("degraded", i, axis, top, h, end));
    }
    for (ServiceInterval i : w.getInterruptions()) {
      b.append(shade("interrupted", i, axis, top, h, end));
    }
    b.append(steps("desired", w.getSeries(), true, axis, top, h, max, end));
    b.append(steps("readyline", w.getSeries(), false, axis, top, h, max, end));
    b.append(
        "</svg><p class=\"legend\"><span class=\"muted\">- - desired</span>"
            + "<span style=\"color:#2a9d8f\">— Ready</span>"
            + Html.swatch("interrupted", "interrupted")
            + Html.swatch("degraded", "degraded")
            + "</p>");
    return b.toString();
  }

  private static String shade(
      String cls, ServiceInterval i, TimeAxis axis, double top, double h, long end) {
    long to = i.getEnd() == null ? end : i.getEnd();
    double x = axis.x(i.getStart());
    return "<rect class=\""
        + cls
        + "\" data-from=\""
        + i.getStart()
        + "\" data-to=\""
        + to
        + "\" x=\""
        + px(x)
        + "\" y=\""
        + px(top)
        + "\" width=\""
        + px(Math.max(0.5, axis.x(to) - x))
        + "\" height=\""
        + px(h)
        + "\"><title>"
        + cls
        + ": "
        + esc(i.getCause())
        + ", "
        + Html.time(i.getStart())
        + " → "
        + Html.time(i.getEnd())
        + " ("
        + Html.duration(i.getDurationMs())
        + ")</title></rect>";
  }

  private static String steps(
      String cls,
      List<ReplicaPoint> series,
      boolean desired,
      TimeAxis axis,
      double top,
      double h,
      int max,
      long end) {
    if (series.isEmpty()) {
      return "";
    }
    StringBuilder pts = new StringBuilder();
    double prevY = -1;
    for (ReplicaPoint p : series) {
      double x = axis.x(p.getAt());
      double y = top + h - (desired ? p.getDesired() : p.getReady()) / (double) max * h;
      if (prevY >= 0) {
        pts.append(px(x)).append(',').append(px(prevY)).append(' ');
      }
      pts.append(px(x)).append(',').append(px(y)).append(' ');
      prevY = y;
    }
    pts.append(px(axis.x(end))).append(',').append(px(prevY));
    return "<polyline class=\"" + cls + "\" points=\"" + pts + "\"/>";
  }

  private static String gantt(List<PodTimeline> pods, TimeAxis axis, long now) {
    if (pods.isEmpty()) {
      return "<h2>Pods</h2><p class=\"muted\">No pod timelines of this workload are held"
          + " (gone longer than api.final.retention?).</p>";
    }
    double top = 6;
    double h = pods.size() * ROW + 30;
    StringBuilder b = new StringBuilder("<h2 id=\"pods-title\">Pods</h2>");
    b.append(axis.svgOpen("gantt", "pods-title", h))
        .append('>')
        .append(axis.ticks(top, top + pods.size() * ROW));
    double y = top;
    for (PodTimeline p : pods) {
      b.append("<a href=\"")
          .append(esc(Html.podHref(p.getUid())))
          .append("\" class=\"row\"" + " data-uid=\"")
          .append(esc(p.getUid()))
          .append("\"><title>")
          .append(esc(p.getName()))
          .append(": ")
          .append(esc(p.getOutcome()))
          .append("</title><text x=\"4\" y=\"")
          .append(px(y + 13))
          .append("\">")
          .append(esc(shortName(p.getName())))
          .append("</text>");
      for (PodPage.Phase ph : PodPage.phases(p, PodPage.end(p, now))) {
        double x = axis.x(ph.from());
        b.append("<rect class=\"band band-")
            .append(ph.name())
            .append("\" data-phase=\"")
            .append(ph.name())
            .append("\" x=\"")
            .append(px(x))
            .append("\" y=\"")
            .append(px(y + 2))
            .append("\" width=\"")
            .append(px(Math.max(0.5, axis.x(ph.to()) - x)))
            .append("\" height=\"")
            .append(px(ROW - 4))
            .append("\"/>");
      }
      if (p.getPreemptedAt() != null) {
        double x = axis.x(p.getPreemptedAt());
        b.append("<line class=\"marker\" x1=\"")
            .append(px(x))
            .append("\" x2=\"")
            .append(px(x))
            .append("\" y1=\"")
            .append(px(y))
            .append("\" y2=\"")
            .append(px(y + ROW))
            .append("\"/>");
      }
      b.append("</a>");
      y += ROW;
    }
    b.append(
        "</svg><table><thead><tr><th scope=\"col\">pod</th><th scope=\"col\">outcome</th>"
            + "<th scope=\"col\">created</th><th scope=\"col\">pending</th><th scope=\"col\">"
            + "time to first OK</th><th scope=\"col\">disruption</th></tr></thead><tbody>");
    for (PodTimeline p : pods) {
      b.append("<tr><td>")
          .append(Html.link(Html.podHref(p.getUid()), p.getName()))
          .append("</td><td>")
          .append(esc(p.getOutcome()))
          .append("</td><td>")
          .append(Html.time(p.getCreatedAt()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(p.getPendingMs()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(p.getTimeToFirstOkMs()))
          .append("</td><td>")
          .append(p.getDisruption() == null ? "—" : esc(p.getDisruption().getCause()))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static String shortName(String name) {
    return name == null ? "" : name.length() > 18 ? "…" + name.substring(name.length() - 17) : name;
  }

  private static String intervals(String title, String id, List<ServiceInterval> list) {
    StringBuilder b = new StringBuilder("<h2>").append(esc(title)).append("</h2>");
    if (list.isEmpty()) {
      return b.append("<p class=\"muted\">None.</p>").toString();
    }
    b.append("<table id=\"")
        .append(id)
        .append(
            "\"><thead><tr><th scope=\"col\">from</th>"
                + "<th scope=\"col\">to</th><th scope=\"col\">duration</th><th scope=\"col\">cause</th>"
                + "<th scope=\"col\">pod</th><th scope=\"col\">errors</th><th scope=\"col\">SLO breaches"
                + "</th></tr></thead><tbody>");
    for (ServiceInterval i : list) {
      b.append("<tr><td>")
          .append(Html.time(i.getStart()))
          .append("</td><td>")
          .append(i.getEnd() == null ? "ongoing" : Html.time(i.getEnd()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(i.getDurationMs()))
          .append("</td><td>")
          .append(esc(i.getCause()))
          .append("</td><td>")
          .append(i.getPod() == null ? "—" : Html.link(Html.podHref(i.getPod()), i.getPod()))
          .append("</td><td class=\"n\">")
          .append(i.getErrors())
          .append("</td><td class=\"n\">")
          .append(i.getSloBreaches())
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static String recoveries(WorkloadTimeline w) {
    StringBuilder b = new StringBuilder("<h2>Recoveries</h2>");
    if (w.getRecoveries().isEmpty()) {
      return b.append("<p class=\"muted\">None.</p>").toString();
    }
    b.append(
        "<table id=\"recoveries\"><thead><tr><th scope=\"col\">disrupted pod</th>"
            + "<th scope=\"col\">cause</th><th scope=\"col\">at</th><th scope=\"col\">replacement"
            + "</th><th scope=\"col\">to scheduled</th><th scope=\"col\">to Ready</th>"
            + "<th scope=\"col\">to first OK</th></tr></thead><tbody>");
    for (Recovery r : w.getRecoveries()) {
      b.append("<tr><td>")
          .append(Html.link(Html.podHref(r.getPod()), r.getPod()))
          .append("</td><td>")
          .append(esc(r.getCause()))
          .append("</td><td>")
          .append(Html.time(r.getAt()))
          .append("</td><td>")
          .append(
              r.getReplacement() == null
                  ? "—"
                  : Html.link(Html.podHref(r.getReplacement()), r.getReplacement()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(r.getToScheduledMs()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(r.getToReadyMs()))
          .append("</td><td class=\"n\">")
          .append(Html.duration(r.getToFirstOkMs()))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }
}
