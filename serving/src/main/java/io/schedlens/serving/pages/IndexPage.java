package io.schedlens.serving.pages;

import static io.schedlens.serving.pages.Html.esc;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.serving.api.Listing;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The on-call entry page (pure): pods pending now (oldest first, with the scheduler's reasons),
 * starving pods, the preemptions of the last hours (victim → preemptor), interrupted workloads;
 * filtered by namespace, priority class and arm; every row a link.
 */
final class IndexPage {

  /** What the index shows, already filtered. */
  record Data(
      Listing<PodTimeline> pending,
      Listing<PodTimeline> starving,
      Listing<PodTimeline> preempted,
      List<WorkloadTimeline> interrupted,
      Map<String, String> filters,
      long now,
      long preemptionWindowMs) {}

  static final List<String> FILTERS = List.of("namespace", "priorityClass", "arm");

  private IndexPage() {}

  static String render(Data d) {
    StringBuilder b = new StringBuilder("<h1>schedlens: who waits, who gets killed</h1>");
    b.append("<p class=\"muted\">As of ").append(Html.time(d.now())).append(".</p>");
    b.append(filterForm(d));
    pending(b, d);
    starving(b, d);
    preemptions(b, d);
    interrupted(b, d);
    return Html.page("on call", b.toString());
  }

  private static void pending(StringBuilder b, Data d) {
    List<PodTimeline> pending = d.pending().items();
    b.append("<h2 id=\"pending-title\">Pending now (").append(d.pending().count()).append(")</h2>");
    b.append(shownOf(d.pending()));
    if (pending.isEmpty()) {
      b.append("<p class=\"muted\">No pod is pending.</p>");
    } else {
      b.append(
          "<table id=\"pending\" aria-labelledby=\"pending-title\"><thead><tr>"
              + "<th scope=\"col\">pod</th><th scope=\"col\">priority class</th><th scope=\"col\">"
              + "pending for</th><th scope=\"col\">why (latest FailedScheduling)</th>"
              + "<th scope=\"col\">nominated</th></tr></thead><tbody>");
      for (PodTimeline p : pending) {
        b.append("<tr><td>")
            .append(podLink(p))
            .append("</td><td>")
            .append(esc(dash(p.getPriorityClass())))
            .append("</td><td class=\"n\">")
            .append(Html.duration(p.getCreatedAt() == null ? null : d.now() - p.getCreatedAt()))
            .append("</td><td>")
            .append(reasons(p))
            .append("</td><td>")
            .append(esc(dash(p.getNominatedNode())))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
  }

  private static void starving(StringBuilder b, Data d) {
    b.append("<h2 id=\"starving-title\">Starving (").append(d.starving().count()).append(")</h2>");
    b.append(shownOf(d.starving()));
    if (d.starving().items().isEmpty()) {
      b.append("<p class=\"muted\">No pod is starving.</p>");
    } else {
      b.append(
          "<table id=\"starving\" aria-labelledby=\"starving-title\"><thead><tr>"
              + "<th scope=\"col\">pod</th><th scope=\"col\">workload</th><th scope=\"col\">"
              + "outcome</th><th scope=\"col\">pending</th><th scope=\"col\">preemptions of its"
              + " workload</th></tr></thead><tbody>");
      for (PodTimeline p : d.starving().items()) {
        b.append("<tr><td>")
            .append(podLink(p))
            .append("</td><td>")
            .append(workloadLink(p))
            .append("</td><td>")
            .append(esc(p.getOutcome()))
            .append("</td><td class=\"n\">")
            .append(Html.duration(p.getPendingMs()))
            .append("</td><td class=\"n\">")
            .append(p.getPreemptionsOfWorkload())
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
  }

  private static void preemptions(StringBuilder b, Data d) {
    List<PodTimeline> preempted = new ArrayList<>(d.preempted().items());
    preempted.sort(
        Comparator.comparing(PodTimeline::getPreemptedAt)
            .reversed()
            .thenComparing(PodTimeline::getUid));
    b.append("<h2 id=\"preemptions-title\">Preemptions in the last ")
        .append(Html.duration(d.preemptionWindowMs()))
        .append(" (")
        .append(d.preempted().count())
        .append(")</h2>");
    b.append(shownOf(d.preempted()));
    if (preempted.isEmpty()) {
      b.append("<p class=\"muted\">No preemption.</p>");
    } else {
      b.append(
          "<table id=\"preemptions\" aria-labelledby=\"preemptions-title\"><thead><tr>"
              + "<th scope=\"col\">at</th><th scope=\"col\">victim</th><th scope=\"col\">victim class"
              + "</th><th scope=\"col\">preemptor</th><th scope=\"col\">preemptor class</th>"
              + "<th scope=\"col\">wasted GPU-s</th></tr></thead><tbody>");
      for (PodTimeline p : preempted) {
        var by = p.getPreemptor();
        b.append("<tr><td>")
            .append(Html.time(p.getPreemptedAt()))
            .append("</td><td>")
            .append(podLink(p))
            .append("</td><td>")
            .append(esc(dash(p.getPriorityClass())))
            .append("</td><td>");
        if (by == null) {
          b.append("unknown");
        } else if (by.getUid() != null) {
          b.append(Html.link(Html.podHref(by.getUid()), by.getNamespace() + "/" + by.getName()));
        } else {
          b.append(
              Html.link(
                  Html.podByNameHref(by.getNamespace(), by.getName()),
                  by.getNamespace() + "/" + by.getName()));
        }
        b.append("</td><td>")
            .append(esc(by == null ? "—" : dash(by.getPriorityClass())))
            .append("</td><td class=\"n\">")
            .append(Html.number(p.getWastedGpuSeconds(), ""))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
  }

  private static void interrupted(StringBuilder b, Data d) {
    b.append("<h2 id=\"interrupted-title\">Interrupted workloads (")
        .append(d.interrupted().size())
        .append(")</h2>");
    if (d.interrupted().isEmpty()) {
      b.append("<p class=\"muted\">Every workload that wants a replica has a Ready one.</p>");
    } else {
      b.append(
          "<table id=\"interrupted\" aria-labelledby=\"interrupted-title\"><thead><tr>"
              + "<th scope=\"col\">workload</th><th scope=\"col\">desired</th><th scope=\"col\">"
              + "Ready</th><th scope=\"col\">interrupted so far</th></tr></thead><tbody>");
      for (WorkloadTimeline w : d.interrupted()) {
        b.append("<tr><td>")
            .append(
                Html.link(
                    Html.workloadHref(w), w.getNamespace() + "/" + w.getKind() + "/" + w.getName()))
            .append("</td><td class=\"n\">")
            .append(w.getDesired())
            .append("</td><td class=\"n\">")
            .append(w.getReady())
            .append("</td><td class=\"n\">")
            .append(Html.duration(w.getInterruptionMs()))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
  }

  /** Says so when a list shows fewer rows than match (the first ones by creation). */
  private static String shownOf(Listing<PodTimeline> l) {
    if (l.count() <= l.items().size()) {
      return "";
    }
    return "<p class=\"muted\">The first "
        + l.items().size()
        + " by creation are shown; narrow the filters, or page through all of them with"
        + " /api/pods.</p>";
  }

  private static String filterForm(Data d) {
    TreeSet<String> namespaces = new TreeSet<>();
    TreeSet<String> classes = new TreeSet<>();
    TreeSet<String> arms = new TreeSet<>();
    for (Listing<PodTimeline> l : List.of(d.pending(), d.starving(), d.preempted())) {
      for (PodTimeline p : l.items()) {
        add(namespaces, p.getNamespace());
        add(classes, p.getPriorityClass());
        add(arms, p.getArm());
      }
    }
    StringBuilder b = new StringBuilder("<form class=\"filters\" method=\"get\" action=\"/\">");
    b.append(textFilter("namespace", "Namespace", d.filters(), namespaces))
        .append(textFilter("priorityClass", "Priority class", d.filters(), classes))
        .append(textFilter("arm", "Arm", d.filters(), arms))
        .append("<button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>");
    return b.toString();
  }

  private static String textFilter(
      String key, String label, Map<String, String> filters, TreeSet<String> known) {
    StringBuilder b =
        new StringBuilder("<label>")
            .append(label)
            .append(" <input name=\"")
            .append(key)
            .append("\" list=\"")
            .append(key)
            .append("-values\" value=\"")
            .append(esc(filters.getOrDefault(key, "")))
            .append("\"></label><datalist id=\"")
            .append(key)
            .append("-values\">");
    for (String v : known) {
      b.append("<option value=\"").append(esc(v)).append("\">");
    }
    return b.append("</datalist>").toString();
  }

  private static void add(TreeSet<String> set, String v) {
    if (v != null && !v.isEmpty()) {
      set.add(v);
    }
  }

  static String podLink(PodTimeline p) {
    return Html.link(Html.podHref(p.getUid()), p.getNamespace() + "/" + p.getName());
  }

  private static String workloadLink(PodTimeline p) {
    if (p.getWorkload() == null) {
      return "—";
    }
    return Html.link(
        Html.workloadHref(p.getNamespace(), p.getWorkload().getKind(), p.getWorkload().getName()),
        p.getWorkload().getKind() + "/" + p.getWorkload().getName());
  }

  private static String reasons(PodTimeline p) {
    if (p.getPendingReasons().isEmpty()) {
      return p.getFailedSchedulingCount() == 0
          ? "—"
          : "FailedScheduling × " + p.getFailedSchedulingCount();
    }
    List<String> rs = new ArrayList<>();
    p.getPendingReasons().forEach((r, n) -> rs.add(esc(r) + " (" + n + ")"));
    return String.join(", ", rs)
        + " <span class=\"muted\">× "
        + p.getFailedSchedulingCount()
        + "</span>";
  }

  private static String dash(String s) {
    return s == null || s.isEmpty() ? "—" : s;
  }
}
