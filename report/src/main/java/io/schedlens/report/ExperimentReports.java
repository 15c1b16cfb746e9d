package io.schedlens.report;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The reports of {@code ./schedlens report}: the timelines grouped by experiment, one report each,
 * written to its directory with the guardrails checked.
 */
public final class ExperimentReports {

  /** Where timelines that name no experiment are grouped. */
  public static final String NO_EXPERIMENT = "(no experiment)";

  private ExperimentReports() {}

  /**
   * One experiment's report, written.
   *
   * @param dir where report.md, report.json and the charts are
   * @param guardrails each guardrail checked against the report
   */
  public record Written(Path dir, ExperimentReport report, List<Guardrails.Result> guardrails) {}

  /** What to report on, and how. */
  public record Request(
      String from, String only, long starvationMs, List<String> guardrails, Path outDir) {}

  /** The timelines by experiment, only {@code only}'s when it is not empty. */
  public static Map<String, List<PodTimeline>> byExperiment(
      List<PodTimeline> timelines, String only) {
    Map<String, List<PodTimeline>> by = new TreeMap<>();
    for (PodTimeline t : timelines) {
      String e = t.getExperiment() == null ? NO_EXPERIMENT : t.getExperiment();
      if (only.isEmpty() || only.equals(e)) {
        by.computeIfAbsent(e, x -> new ArrayList<>()).add(t);
      }
    }
    return by;
  }

  /**
   * A report per experiment of {@code byExperiment}, each in its directory (the output directory
   * itself when there is one experiment).
   */
  public static List<Written> write(
      Request request,
      Map<String, List<PodTimeline>> byExperiment,
      List<WorkloadTimeline> workloads,
      Function<String, Conditions> conditions,
      InputGaps gaps)
      throws IOException {
    List<Written> written = new ArrayList<>();
    for (var e : byExperiment.entrySet()) {
      String experiment = e.getKey();
      Path dir =
          byExperiment.size() == 1 ? request.outDir() : request.outDir().resolve(safe(experiment));
      List<PodTimeline> mine = e.getValue();
      ExperimentReport report =
          ExperimentReport.of(
                  experiment,
                  mine.stream().map(PodFacts::of).toList(),
                  request.starvationMs(),
                  workloads.stream()
                      .filter(
                          w ->
                              experiment.equals(
                                  w.getExperiment() == null ? NO_EXPERIMENT : w.getExperiment()))
                      .toList())
              .withConditions(conditions.apply(experiment));
      List<Guardrails.Result> checked =
          ReportWriter.writeAll(
              dir, report, intro(request.from(), mine, gaps), request.guardrails());
      written.add(new Written(dir, report, checked));
    }
    return written;
  }

  private static String intro(String from, List<PodTimeline> mine, InputGaps gaps) {
    long notFinal = mine.stream().filter(t -> !t.getFinal$()).count();
    long cut = mine.stream().filter(t -> t.getEndedBy() != null).count();
    return gaps.markdown()
        + (gaps.isEmpty() ? "" : "\n")
        + "From "
        + mine.size()
        + " pod timelines of "
        + from
        + (notFinal > 0
            ? " (" + notFinal + " not final: pods still running or waiting when read)."
            : ".")
        + (cut > 0
            ? " "
                + cut
                + " of them were closed where their recording ended (endedBy), their numbers"
                + " as of their latest recorded input."
            : "");
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
