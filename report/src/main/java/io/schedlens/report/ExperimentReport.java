package io.schedlens.report;

import io.schedlens.avro.WorkloadTimeline;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The comparison of an experiment's arms: for each arm and workload, each number computed per
 * repeat (pods, Pending p50/p95/max, time to Ready and to the first OK request, preemptions as
 * victim, wasted GPU-seconds, requests and SLO breaches, starving pods), then its mean and range
 * over the repeats; and findings that compare every arm with the control, repeat by repeat.
 *
 * <p>Workloads, not PriorityClasses, are the rows: the control arm of a priority experiment has no
 * PriorityClasses, so the same workload is the like-for-like comparison. The class each arm gave
 * the workload is shown beside it.
 */
public final class ExperimentReport {

  /** A number over repeats: mean, smallest, largest, and in how many repeats it was defined. */
  public record Stat(
      double mean, double min, double max, int repeats, Map<String, Double> byRepeat) {

    static Stat of(Map<String, Double> byRepeat) {
      if (byRepeat.isEmpty()) {
        return null;
      }
      double sum = 0;
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (double v : byRepeat.values()) {
        sum += v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      return new Stat(sum / byRepeat.size(), min, max, byRepeat.size(), Map.copyOf(byRepeat));
    }
  }

  /** One arm × workload. */
  public record Row(
      String arm,
      String workload,
      String workloadKind,
      Set<String> priorityClasses,
      int repeats,
      Stat pods,
      Stat pendingP50Ms,
      Stat pendingP95Ms,
      Stat pendingMaxMs,
      Stat timeToReadyP50Ms,
      Stat timeToFirstOkP50Ms,
      Stat preemptions,
      Stat wastedGpuSeconds,
      Stat requests,
      Stat sloBreaches,
      Stat starvingPods,
      Stat queueWaitP50Ms,
      Stat queueWaitP95Ms,
      Stat queuePreemptions,
      Stat queueWastedGpuSeconds) {

    /** Whether some pod of the row waited in a Kueue queue. */
    public boolean queued() {
      return queueWaitP95Ms != null;
    }
  }

  /** Whether some pod of the report waited in a Kueue queue: its tables show the queue wait. */
  public boolean queued() {
    return rows.stream().anyMatch(Row::queued);
  }

  private final String experiment;
  private final String control;
  private final List<String> arms;
  private final List<String> repeats;
  private final List<Row> rows;
  private final List<String> findings;
  private final List<ServiceContinuity.Row> continuity;
  private final Conditions conditions;

  private ExperimentReport(
      String experiment,
      String control,
      List<String> arms,
      List<String> repeats,
      List<Row> rows,
      List<String> findings,
      List<ServiceContinuity.Row> continuity,
      Conditions conditions) {
    this.experiment = experiment;
    this.control = control;
    this.arms = arms;
    this.repeats = repeats;
    this.rows = rows;
    this.findings = findings;
    this.continuity = continuity;
    this.conditions = conditions;
  }

  /** The experiment's stated conditions and the GPUs seen; {@link Conditions#NONE} when unknown. */
  public Conditions conditions() {
    return conditions;
  }

  /** The same report headed by these conditions. */
  public ExperimentReport withConditions(Conditions c) {
    return new ExperimentReport(
        experiment,
        control,
        arms,
        repeats,
        rows,
        findings,
        continuity,
        c == null ? Conditions.NONE : c);
  }

  public String experiment() {
    return experiment;
  }

  /** The arm the others are compared with: {@code control} when there is one, else the first. */
  public String control() {
    return control;
  }

  public List<String> arms() {
    return arms;
  }

  public List<String> repeats() {
    return repeats;
  }

  public List<Row> rows() {
    return rows;
  }

  public List<String> findings() {
    return findings;
  }

  /** Service continuity per arm and workload; empty without workload timelines. */
  public List<ServiceContinuity.Row> continuity() {
    return continuity;
  }

  public ServiceContinuity.Row continuity(String arm, String workload) {
    return continuity.stream()
        .filter(r -> r.arm().equals(arm) && r.workload().equals(workload))
        .findFirst()
        .orElse(null);
  }

  public Row row(String arm, String workload) {
    return rows.stream()
        .filter(r -> r.arm().equals(arm) && r.workload().equals(workload))
        .findFirst()
        .orElse(null);
  }

  /**
   * Builds the report.
   *
   * @param starvationPendingMs the starvation threshold the timelines were computed with (for the
   *     wording of findings)
   */
  public static ExperimentReport of(
      String experiment, Collection<PodFacts> pods, long starvationPendingMs) {
    return of(experiment, pods, starvationPendingMs, List.of());
  }

  /**
   * Builds the report with service continuity from the workload timelines ({@code
   * workloads.jsonl}).
   */
  public static ExperimentReport of(
      String experiment,
      Collection<PodFacts> pods,
      long starvationPendingMs,
      Collection<WorkloadTimeline> workloadTimelines) {
    List<String> arms =
        new ArrayList<>(new LinkedHashSet<>(pods.stream().map(PodFacts::arm).toList()));
    arms.sort((a, b) -> a.equals("control") ? -1 : b.equals("control") ? 1 : a.compareTo(b));
    String control = arms.isEmpty() ? "" : arms.get(0);
    List<String> repeats =
        new ArrayList<>(new TreeSet<>(pods.stream().map(PodFacts::repeat).toList()));
    repeats.sort(ExperimentReport::compareRepeats);
    Map<String, String> kinds = new LinkedHashMap<>();
    pods.forEach(p -> kinds.putIfAbsent(p.workload(), p.workloadKind()));
    List<String> workloads = new ArrayList<>(kinds.keySet());
    workloads.sort(
        (a, b) -> {
          // Services first, then batch, by name.
          boolean sa = !kinds.get(a).equals("Job");
          boolean sb = !kinds.get(b).equals("Job");
          return sa != sb ? (sa ? -1 : 1) : a.compareTo(b);
        });
    List<Row> rows = new ArrayList<>();
    for (String arm : arms) {
      for (String w : workloads) {
        List<PodFacts> mine =
            pods.stream().filter(p -> p.arm().equals(arm) && p.workload().equals(w)).toList();
        if (mine.isEmpty()) {
          continue;
        }
        Map<String, List<PodFacts>> byRepeat = new TreeMap<>(ExperimentReport::compareRepeats);
        for (String r : repeats) {
          byRepeat.put(r, mine.stream().filter(p -> p.repeat().equals(r)).toList());
        }
        Set<String> classes = new TreeSet<>();
        mine.forEach(p -> classes.add(p.priorityClass() == null ? "(none)" : p.priorityClass()));
        rows.add(
            new Row(
                arm,
                w,
                kinds.get(w),
                classes,
                (int) byRepeat.values().stream().filter(l -> !l.isEmpty()).count(),
                per(byRepeat, l -> (double) l.size()),
                per(byRepeat, l -> quantile(values(l, PodFacts::pendingMs), 0.50)),
                per(byRepeat, l -> quantile(values(l, PodFacts::pendingMs), 0.95)),
                per(byRepeat, l -> quantile(values(l, PodFacts::pendingMs), 1.0)),
                per(byRepeat, l -> quantile(values(l, PodFacts::timeToReadyMs), 0.50)),
                per(byRepeat, l -> quantile(values(l, PodFacts::timeToFirstOkMs), 0.50)),
                per(byRepeat, l -> (double) l.stream().filter(PodFacts::preempted).count()),
                per(byRepeat, l -> l.stream().mapToDouble(PodFacts::wastedGpuSeconds).sum()),
                per(byRepeat, l -> (double) l.stream().mapToLong(PodFacts::requests).sum()),
                per(byRepeat, l -> (double) l.stream().mapToLong(PodFacts::sloBreaches).sum()),
                per(byRepeat, l -> (double) l.stream().filter(PodFacts::starving).count()),
                per(byRepeat, l -> quantile(values(l, PodFacts::queueWaitMs), 0.50)),
                per(byRepeat, l -> quantile(values(l, PodFacts::queueWaitMs), 0.95)),
                per(byRepeat, l -> (double) l.stream().filter(PodFacts::queuePreempted).count()),
                per(
                    byRepeat,
                    l ->
                        l.stream()
                            .filter(PodFacts::queuePreempted)
                            .mapToDouble(PodFacts::wastedGpuSeconds)
                            .sum())));
      }
    }
    ExperimentReport draft =
        new ExperimentReport(
            experiment, control, arms, repeats, rows, List.of(), List.of(), Conditions.NONE);
    return new ExperimentReport(
        experiment,
        control,
        arms,
        repeats,
        rows,
        Findings.of(draft, workloads, kinds, starvationPendingMs),
        ServiceContinuity.of(rows, pods, workloadTimelines),
        Conditions.NONE);
  }

  static int compareRepeats(String a, String b) {
    try {
      return Integer.compare(Integer.parseInt(a), Integer.parseInt(b));
    } catch (NumberFormatException e) {
      return a.compareTo(b);
    }
  }

  private static Stat per(
      Map<String, List<PodFacts>> byRepeat, Function<List<PodFacts>, Double> f) {
    Map<String, Double> values = new LinkedHashMap<>();
    byRepeat.forEach(
        (r, l) -> {
          if (!l.isEmpty()) {
            Double v = f.apply(l);
            if (v != null) {
              values.put(r, v);
            }
          }
        });
    return Stat.of(values);
  }

  private static List<Double> values(List<PodFacts> pods, Function<PodFacts, Long> f) {
    List<Double> out = new ArrayList<>();
    for (PodFacts p : pods) {
      Long v = f.apply(p);
      if (v != null) {
        out.add(v.doubleValue());
      }
    }
    out.sort(Double::compare);
    return out;
  }

  /** Nearest-rank quantile of sorted values; null when there are none. */
  static Double quantile(List<Double> sorted, double q) {
    if (sorted.isEmpty()) {
      return null;
    }
    int rank = (int) Math.ceil(q * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
