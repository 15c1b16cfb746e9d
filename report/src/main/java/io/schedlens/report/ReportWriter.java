package io.schedlens.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The report as a console table, Markdown ({@code report.md}) and JSON ({@code report.json}). A
 * cell is the mean over repeats, with the range {@code [min–max]} when there are several.
 */
public final class ReportWriter {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private record Column(String title, Function<Row, Stat> stat, boolean duration, String unit) {}

  private static final List<Column> COLUMNS =
      List.of(
          new Column("pods", Row::pods, false, ""),
          new Column("Pending p50", Row::pendingP50Ms, true, ""),
          new Column("Pending p95", Row::pendingP95Ms, true, ""),
          new Column("Pending max", Row::pendingMaxMs, true, ""),
          new Column("to Ready p50", Row::timeToReadyP50Ms, true, ""),
          new Column("to 1st OK p50", Row::timeToFirstOkP50Ms, true, ""),
          new Column("preempted", Row::preemptions, false, ""),
          new Column("wasted GPU-s", Row::wastedGpuSeconds, false, ""),
          new Column("SLO breaches", Row::sloBreaches, false, ""),
          new Column("starving", Row::starvingPods, false, ""));

  /** Shown where some pod waited in a Kueue queue (its Job suspended, no pod yet). */
  private static final List<Column> QUEUE_COLUMNS =
      List.of(
          new Column("queue wait p50", Row::queueWaitP50Ms, true, ""),
          new Column("queue wait p95", Row::queueWaitP95Ms, true, ""));

  /** The pod table's columns for this report. */
  private static List<Column> columns(ExperimentReport r) {
    if (!r.queued()) {
      return COLUMNS;
    }
    List<Column> all = new ArrayList<>(COLUMNS.subList(0, 1));
    all.addAll(QUEUE_COLUMNS);
    all.addAll(COLUMNS.subList(1, COLUMNS.size()));
    return all;
  }

  private record ServiceColumn(
      String title, Function<ServiceContinuity.Row, Stat> stat, boolean seconds) {}

  private static final List<ServiceColumn> SERVICE_COLUMNS =
      List.of(
          new ServiceColumn("interrupted", ServiceContinuity.Row::interruptionSeconds, true),
          new ServiceColumn("degraded", ServiceContinuity.Row::degradedSeconds, true),
          new ServiceColumn("disruptions", ServiceContinuity.Row::disruptions, false),
          new ServiceColumn(
              "recovery to Ready", ServiceContinuity.Row::recoveryToReadySeconds, true),
          new ServiceColumn(
              "recovery to 1st OK", ServiceContinuity.Row::recoveryToFirstOkSeconds, true),
          new ServiceColumn(
              "errors while interrupted", ServiceContinuity.Row::errorsInInterruptions, false),
          new ServiceColumn("restarts", ServiceContinuity.Row::restarts, false),
          new ServiceColumn("gang wait GPU-s", ServiceContinuity.Row::gangWaitGpuSeconds, false));

  private ReportWriter() {}

  /**
   * The report for the terminal as {@code demo} and {@code replay} print it: the pod table, the
   * service-continuity table, then the findings, between blank lines.
   */
  public static String terminal(ExperimentReport r) {
    StringBuilder b = new StringBuilder("\n");
    b.append(table(r)).append(continuityTable(r)).append('\n');
    r.findings().forEach(f -> b.append("  - ").append(f).append('\n'));
    return b.append('\n').toString();
  }

  /** The service-continuity table for the terminal; empty without workload timelines. */
  public static String continuityTable(ExperimentReport r) {
    if (r.continuity().isEmpty()) {
      return "";
    }
    List<String[]> lines = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("arm", "application"));
    SERVICE_COLUMNS.forEach(c -> head.add(c.title()));
    lines.add(head.toArray(String[]::new));
    for (ServiceContinuity.Row row : r.continuity()) {
      List<String> cells = new ArrayList<>(List.of(row.arm(), row.workload()));
      for (ServiceColumn c : SERVICE_COLUMNS) {
        cells.add(serviceCell(c, row));
      }
      lines.add(cells.toArray(String[]::new));
    }
    return fixedWidth(lines, 2);
  }

  private static String serviceCell(ServiceColumn c, ServiceContinuity.Row row) {
    Stat st = c.stat().apply(row);
    if (st == null) {
      return "–";
    }
    if (!c.seconds()) {
      return cell(st, false);
    }
    // Seconds to the compact duration form the pod table uses (it takes milliseconds).
    Map<String, Double> ms = new LinkedHashMap<>();
    st.byRepeat().forEach((k, v) -> ms.put(k, v * 1000));
    return cell(Stat.of(ms), true);
  }

  /** A fixed-width table for the terminal. */
  public static String table(ExperimentReport r) {
    List<String[]> lines = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("arm", "application", "kind", "class"));
    List<Column> columns = columns(r);
    columns.forEach(c -> head.add(c.title()));
    lines.add(head.toArray(String[]::new));
    for (Row row : r.rows()) {
      List<String> cells =
          new ArrayList<>(List.of(row.arm(), row.workload(), row.workloadKind(), classes(row)));
      for (Column c : columns) {
        cells.add(cell(c.stat().apply(row), c.duration()));
      }
      lines.add(cells.toArray(String[]::new));
    }
    return fixedWidth(lines, 4);
  }

  /** Columns padded to their widest cell: the first {@code textColumns} left, numbers right. */
  private static String fixedWidth(List<String[]> lines, int textColumns) {
    int[] width = new int[lines.get(0).length];
    for (String[] l : lines) {
      for (int i = 0; i < l.length; i++) {
        width[i] = Math.max(width[i], l[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (int n = 0; n < lines.size(); n++) {
      String[] l = lines.get(n);
      for (int i = 0; i < l.length; i++) {
        b.append(i < textColumns ? pad(l[i], width[i]) : padLeft(l[i], width[i]));
        b.append(i == l.length - 1 ? "" : "  ");
      }
      b.append('\n');
      if (n == 0) {
        int total = 0;
        for (int w : width) {
          total += w + 2;
        }
        b.append("-".repeat(total - 2)).append('\n');
      }
    }
    return b.toString();
  }

  public static final String PENDING_PNG = "pending-by-workload-and-arm.png";
  public static final String WASTED_PNG = "wasted-gpu-by-arm.png";

  /** Writes report.md, report.json and the two charts into {@code dir}, default guardrails. */
  public static List<Guardrails.Result> writeAll(Path dir, ExperimentReport r, String intro)
      throws IOException {
    return writeAll(dir, r, intro, Guardrails.DEFAULT);
  }

  /**
   * Writes report.md, report.json and the two charts into {@code dir}; returns the guardrails'
   * results it wrote.
   */
  public static List<Guardrails.Result> writeAll(
      Path dir, ExperimentReport r, String intro, List<String> guardrails) throws IOException {
    Files.createDirectories(dir);
    List<Guardrails.Result> checked = Guardrails.evaluate(r, guardrails);
    Files.writeString(dir.resolve("report.md"), markdown(r, intro, checked));
    Files.writeString(dir.resolve("report.json"), json(r, checked));
    Files.write(dir.resolve(PENDING_PNG), Charts.pending(r));
    Files.write(dir.resolve(WASTED_PNG), Charts.wasted(r));
    return checked;
  }

  /** The verdict per arm and the guardrails checked. */
  private static void verdicts(
      StringBuilder b, ExperimentReport r, List<Guardrails.Result> guardrails) {
    for (Verdict v : Verdict.of(r)) {
      b.append("## Verdict: ")
          .append(v.arm())
          .append(" against ")
          .append(v.control())
          .append("\n\n");
      b.append("**").append(v.summary()).append("**\n\n");
      v.answers().forEach(a -> b.append("- ").append(a).append('\n'));
      b.append('\n');
    }
    if (!guardrails.isEmpty()) {
      b.append("## Guardrails\n\n| arm | guardrail | result | detail |\n|---|---|---|---|\n");
      for (Guardrails.Result g : guardrails) {
        b.append("| ")
            .append(g.arm())
            .append(" | `")
            .append(g.rule())
            .append("` | **")
            .append(g.pass() ? "PASS" : "FAIL")
            .append("** | ")
            .append(g.detail())
            .append(" |\n");
      }
      b.append('\n');
    }
  }

  /** The table per arm and workload, and the service continuity's when there is one. */
  private static void tables(StringBuilder b, ExperimentReport r) {
    b.append("\n## Per arm and application\n\n");
    b.append("| arm | application | kind | priority class |");
    List<Column> columns = columns(r);
    columns.forEach(c -> b.append(' ').append(c.title()).append(" |"));
    b.append('\n').append("|---|---|---|---|");
    columns.forEach(c -> b.append("---:|"));
    b.append('\n');
    for (Row row : r.rows()) {
      b.append("| ")
          .append(row.arm())
          .append(" | ")
          .append(row.workload())
          .append(" | ")
          .append(row.workloadKind())
          .append(" | ")
          .append(classes(row))
          .append(" |");
      for (Column c : columns) {
        b.append(' ').append(cell(c.stat().apply(row), c.duration())).append(" |");
      }
      b.append('\n');
    }
    if (!r.continuity().isEmpty()) {
      b.append("\n## Service continuity per arm and application\n\n| arm | application |");
      SERVICE_COLUMNS.forEach(c -> b.append(' ').append(c.title()).append(" |"));
      b.append("\n|---|---|");
      SERVICE_COLUMNS.forEach(c -> b.append("---:|"));
      b.append('\n');
      for (ServiceContinuity.Row row : r.continuity()) {
        b.append("| ").append(row.arm()).append(" | ").append(row.workload()).append(" |");
        for (ServiceColumn c : SERVICE_COLUMNS) {
          b.append(' ').append(serviceCell(c, row)).append(" |");
        }
        b.append('\n');
      }
      b.append(
          "\ninterrupted: no Ready replica while one was wanted, from the loss of a Ready replica"
              + " (a cold start or scale-up is not one); degraded: some but fewer Ready than wanted;"
              + " both per repeat. disruptions: pods ended early (preemption, eviction, ...)."
              + " recovery: from the disruption to its replacement's Ready and first OK request"
              + " (mean over the repeat's disruptions). errors while interrupted: request errors"
              + " of the workload's pods inside interruptions. gang wait: GPU-seconds a gang's"
              + " running pods (JobSet, TrainJob, LeaderWorkerSet group, RayCluster, RayJob) held"
              + " while another of its pods was pending, per repeat.\n\n");
    }
  }

  public static String markdown(ExperimentReport r, String intro) {
    return markdown(r, intro, Guardrails.evaluate(r, Guardrails.DEFAULT));
  }

  public static String markdown(
      ExperimentReport r, String intro, List<Guardrails.Result> guardrails) {
    StringBuilder b = new StringBuilder();
    b.append("# Experiment ").append(r.experiment()).append("\n\n");
    if (intro != null && !intro.isBlank()) {
      b.append(intro.strip()).append("\n\n");
    }
    b.append("Arms: ")
        .append(String.join(", ", r.arms()))
        .append(" (compared with `")
        .append(r.control())
        .append("`); repeats: ")
        .append(String.join(", ", r.repeats()))
        .append(". Each cell is the mean over repeats, with the range [min–max] over repeats.\n\n");
    conditions(b, r);
    verdicts(b, r, guardrails);
    b.append("![Pending p95 by workload and arm](")
        .append(PENDING_PNG)
        .append(")\n\n![GPU work lost by arm](")
        .append(WASTED_PNG)
        .append(")\n\n");
    b.append("## Findings\n\n");
    r.findings().forEach(f -> b.append("- ").append(f).append('\n'));
    tables(b, r);
    b.append(
        "\nPending: creation to scheduling (a pod never scheduled: its whole life). to Ready, to 1st"
            + " OK: from creation. preempted: pods preempted as victims. wasted GPU-s: GPU time"
            + " lost since the last checkpoint by Job pods stopped before completing. starving:"
            + " pods pending too long, or whose workload was preempted repeatedly without"
            + " completing.\n");
    return b.toString();
  }

  /** The header: what the experiment's ConfigMap states, and the GPUs the data came from. */
  private static void conditions(StringBuilder b, ExperimentReport r) {
    Conditions c = r.conditions();
    if (c.isEmpty()) {
      b.append("_No experiment ConfigMap (labelled `schedlens.io/experiment: ")
          .append(r.experiment())
          .append("`) was seen: the conditions of this comparison are not stated._\n\n");
      return;
    }
    b.append("## Conditions\n\n");
    if (c.source() != null) {
      b.append("As stated in ConfigMap `").append(c.source()).append("`:\n\n");
      c.stated()
          .forEach((k, v) -> b.append("- **").append(k).append("**: ").append(v).append('\n'));
      Integer stated = c.statedRepeats();
      if (stated != null && stated != r.repeats().size()) {
        b.append("- **WARNING**: ")
            .append(stated)
            .append(" repeats stated, ")
            .append(r.repeats().size())
            .append(" found in the data.\n");
      }
    } else {
      b.append(
          "- No experiment ConfigMap was seen: the conditions of this comparison are not"
              + " stated.\n");
    }
    if (!c.gpuNodes().isEmpty()) {
      c.gpuNodes()
          .forEach(
              (model, nodes) ->
                  b.append("- **GPUs seen**: ")
                      .append(model)
                      .append(" on ")
                      .append(nodes.size())
                      .append(nodes.size() == 1 ? " node (" : " nodes (")
                      .append(String.join(", ", nodes))
                      .append(")\n"));
    }
    b.append('\n');
  }

  public static String json(ExperimentReport r) {
    return json(r, Guardrails.evaluate(r, Guardrails.DEFAULT));
  }

  public static String json(ExperimentReport r, List<Guardrails.Result> guardrails) {
    ObjectNode root = JSON.createObjectNode();
    root.put("experiment", r.experiment());
    root.put("control", r.control());
    root.set("arms", JSON.valueToTree(r.arms()));
    root.set("repeats", JSON.valueToTree(r.repeats()));
    root.set("conditions", JSON.valueToTree(r.conditions()));
    ArrayNode rows = root.putArray("rows");
    for (Row row : r.rows()) {
      ObjectNode o = rows.addObject();
      o.put("arm", row.arm());
      o.put("workload", row.workload());
      o.put("workloadKind", row.workloadKind());
      o.set("priorityClasses", JSON.valueToTree(row.priorityClasses()));
      o.put("repeats", row.repeats());
      stat(o, "pods", row.pods());
      stat(o, "pendingP50Ms", row.pendingP50Ms());
      stat(o, "pendingP95Ms", row.pendingP95Ms());
      stat(o, "pendingMaxMs", row.pendingMaxMs());
      stat(o, "timeToReadyP50Ms", row.timeToReadyP50Ms());
      stat(o, "timeToFirstOkP50Ms", row.timeToFirstOkP50Ms());
      stat(o, "preemptions", row.preemptions());
      stat(o, "wastedGpuSeconds", row.wastedGpuSeconds());
      stat(o, "requests", row.requests());
      stat(o, "sloBreaches", row.sloBreaches());
      stat(o, "starvingPods", row.starvingPods());
      if (r.queued()) {
        stat(o, "queueWaitP50Ms", row.queueWaitP50Ms());
        stat(o, "queueWaitP95Ms", row.queueWaitP95Ms());
        stat(o, "queuePreemptions", row.queuePreemptions());
        stat(o, "queueWastedGpuSeconds", row.queueWastedGpuSeconds());
      }
    }
    ArrayNode continuity = root.putArray("continuity");
    for (ServiceContinuity.Row row : r.continuity()) {
      ObjectNode o = continuity.addObject();
      o.put("arm", row.arm());
      o.put("workload", row.workload());
      o.put("workloadKind", row.workloadKind());
      stat(o, "interruptionSeconds", row.interruptionSeconds());
      stat(o, "degradedSeconds", row.degradedSeconds());
      stat(o, "disruptions", row.disruptions());
      stat(o, "recoveryToReadySeconds", row.recoveryToReadySeconds());
      stat(o, "recoveryToFirstOkSeconds", row.recoveryToFirstOkSeconds());
      stat(o, "errorsInInterruptions", row.errorsInInterruptions());
      stat(o, "restarts", row.restarts());
      stat(o, "gangWaitGpuSeconds", row.gangWaitGpuSeconds());
    }
    root.set("findings", JSON.valueToTree(r.findings()));
    ArrayNode rails = root.putArray("guardrails");
    for (Guardrails.Result g : guardrails) {
      ObjectNode o = rails.addObject();
      o.put("arm", g.arm());
      o.put("rule", g.rule());
      o.put("result", g.pass() ? "PASS" : "FAIL");
      o.put("detail", g.detail());
    }
    ArrayNode verdicts = root.putArray("verdicts");
    for (Verdict v : Verdict.of(r)) {
      ObjectNode o = verdicts.addObject();
      o.put("arm", v.arm());
      o.put("control", v.control());
      o.put("summary", v.summary());
      o.set("answers", JSON.valueToTree(v.answers()));
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void stat(ObjectNode o, String name, Stat s) {
    if (s == null) {
      o.putNull(name);
      return;
    }
    ObjectNode n = o.putObject(name);
    n.put("mean", s.mean());
    n.put("min", s.min());
    n.put("max", s.max());
    n.put("repeats", s.repeats());
    ObjectNode by = n.putObject("byRepeat");
    new TreeMap<>(s.byRepeat()).forEach(by::put);
  }

  private static String classes(Row row) {
    return String.join(",", row.priorityClasses());
  }

  static String cell(Stat s, boolean duration) {
    if (s == null) {
      return "–";
    }
    String mean = duration ? Format.compact(s.mean()) : number(s.mean());
    if (s.repeats() < 2 || s.min() == s.max()) {
      return mean;
    }
    String min = duration ? Format.compact(s.min()) : number(s.min());
    String max = duration ? Format.compact(s.max()) : number(s.max());
    return mean + " [" + min + "–" + max + "]";
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(v >= 100 ? "%.0f" : "%.1f", v);
  }

  private static String pad(String s, int w) {
    return s + " ".repeat(Math.max(0, w - s.length()));
  }

  private static String padLeft(String s, int w) {
    return " ".repeat(Math.max(0, w - s.length())) + s;
  }
}
