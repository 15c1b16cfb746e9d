package io.schedlens.serving.pages;

import static io.schedlens.serving.pages.Html.esc;
import static io.schedlens.serving.pages.Html.px;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
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
    queued(t, out);
    Long gated = t.getGatedMs();
    if (gated != null && gated > 0) {
      // Kueue's pod integration, or another gate: the first part of Pending.
      long until = Math.min(created + gated, Math.max(created, end));
      if (until > created) {
        out.add(
            new Phase(
                "gated",
                "Pending behind scheduling gates (e.g. Kueue's admission)",
                created,
                until));
      }
      starts[0] = until;
    }
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

  /**
   * The wait in a Kueue queue before the pod existed (a suspended Job has no pods): from the
   * workload's last start of waiting to the admission that created the pod. A gated pod's wait is
   * its gated part of Pending instead.
   */
  private static void queued(PodTimeline t, List<Phase> out) {
    Long admitted = t.getAdmittedAt();
    Long wait = t.getQueueWaitMs();
    if (admitted == null || wait == null || wait <= 0 || admitted > t.getCreatedAt() + 2_000) {
      return;
    }
    out.add(
        new Phase(
            "queued",
            "Waiting in Kueue queue "
                + (t.getQueue() == null ? "" : t.getQueue() + " ")
                + "(suspended, no pod yet)",
            admitted - wait,
            Math.min(admitted, t.getCreatedAt())));
  }

  /** Where the page's time axis starts for this pod: its queue wait, else its creation. */
  static long start(PodTimeline t) {
    long created = t.getCreatedAt() == null ? t.getUpdatedAt() : t.getCreatedAt();
    List<Phase> queue = new ArrayList<>();
    if (t.getCreatedAt() != null) {
      queued(t, queue);
    }
    return queue.isEmpty() ? created : Math.min(created, queue.get(0).from());
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
    TimeAxis axis = TimeAxis.of(start(t), end);
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
    b.append(PodCharts.gpu(t, axis, end));
    b.append(PodCharts.service(t, axis, created, end));
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
    if (t.getAdmittedAt() != null) {
      b.append("<li id=\"queue\">Admitted by Kueue from queue ")
          .append(esc(orDash(t.getQueue())))
          .append(" at ")
          .append(Html.time(t.getAdmittedAt()))
          .append(" after waiting ")
          .append(Html.duration(t.getQueueWaitMs()));
      if (t.getGatedMs() != null) {
        b.append("; gated ").append(Html.duration(t.getGatedMs())).append(" of its Pending");
      }
      b.append(".</li>");
    }
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
    preemption(b, t, related);
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

  /** Its preemption and its preemptor, or the victims it preempted. */
  private static void preemption(StringBuilder b, PodTimeline t, Map<String, PodTimeline> related) {
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
          {"queued", "in Kueue's queue"},
          {"gated", "gated"},
          {"pending", "pending"},
          {"starting", "starting"},
          {"loading", "running, not Ready"},
          {"ready", "Ready"},
          {"serving", "serving"}
        }) {
      boolean kueue = l[0].equals("queued") || l[0].equals("gated");
      if (!kueue || phases.stream().anyMatch(p -> p.name().equals(l[0]))) {
        b.append(Html.swatch("band-" + l[0], l[1]));
      }
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
