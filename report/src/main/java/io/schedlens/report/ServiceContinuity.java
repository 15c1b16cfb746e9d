package io.schedlens.report;

import io.schedlens.avro.Recovery;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.ExperimentReport.Stat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Service continuity per arm and workload, from the workload timelines: seconds without service
 * (interruption) and below strength (degraded), disruptions and how long each took to recover (to
 * the replacement's Ready and its first OK request), and container restarts — each per repeat, then
 * over repeats. Intervals and recoveries carry the arm and repeat of the pod whose loss began them,
 * so a Deployment re-used across runs is split correctly. For gangs (JobSet, TrainJob,
 * LeaderWorkerSet, RayCluster, RayJob), the GPU-seconds their early pods held waiting for the rest,
 * by the workload's own arm and repeat.
 */
public final class ServiceContinuity {

  /** One arm × workload. Durations in seconds; a recovery mean is over the repeat's recoveries. */
  public record Row(
      String arm,
      String workload,
      String workloadKind,
      Stat interruptionSeconds,
      Stat degradedSeconds,
      Stat disruptions,
      Stat recoveryToReadySeconds,
      Stat recoveryToFirstOkSeconds,
      Stat errorsInInterruptions,
      Stat restarts,
      Stat gangWaitGpuSeconds) {}

  private ServiceContinuity() {}

  /**
   * The rows of every arm × workload of {@code rows} (the pod report's), in its order.
   *
   * @param pods the pod facts, for restarts and for which repeats each row ran in
   */
  public static List<Row> of(
      List<ExperimentReport.Row> rows,
      Collection<PodFacts> pods,
      Collection<WorkloadTimeline> workloads) {
    List<Row> out = new ArrayList<>();
    if (workloads.isEmpty()) {
      return out;
    }
    for (ExperimentReport.Row row : rows) {
      List<String> repeats =
          pods.stream()
              .filter(p -> p.arm().equals(row.arm()) && p.workload().equals(row.workload()))
              .map(PodFacts::repeat)
              .distinct()
              .sorted(ExperimentReport::compareRepeats)
              .toList();
      List<ServiceInterval> interruptions = new ArrayList<>();
      List<ServiceInterval> degraded = new ArrayList<>();
      List<Recovery> recoveries = new ArrayList<>();
      for (WorkloadTimeline w : workloads) {
        String rowName = w.getApplication() != null ? w.getApplication() : w.getName();
        if (!rowName.equals(row.workload())) {
          continue;
        }
        w.getInterruptions().stream().filter(i -> in(row, i.getArm())).forEach(interruptions::add);
        w.getDegraded().stream().filter(i -> in(row, i.getArm())).forEach(degraded::add);
        w.getRecoveries().stream().filter(r -> in(row, r.getArm())).forEach(recoveries::add);
      }
      Map<String, Double> interrupted = new LinkedHashMap<>();
      Map<String, Double> below = new LinkedHashMap<>();
      Map<String, Double> disruptions = new LinkedHashMap<>();
      Map<String, Double> toReady = new LinkedHashMap<>();
      Map<String, Double> toFirstOk = new LinkedHashMap<>();
      Map<String, Double> errors = new LinkedHashMap<>();
      Map<String, Double> restarts = new LinkedHashMap<>();
      for (String repeat : repeats) {
        List<ServiceInterval> ri = of(interruptions, repeat);
        interrupted.put(repeat, seconds(ri));
        below.put(repeat, seconds(of(degraded, repeat)));
        errors.put(repeat, (double) ri.stream().mapToLong(ServiceInterval::getErrors).sum());
        List<Recovery> rr =
            recoveries.stream().filter(r -> repeat.equals(orEmpty(r.getRepeat()))).toList();
        disruptions.put(repeat, (double) rr.size());
        mean(rr, Recovery::getToReadyMs).ifPresent(v -> toReady.put(repeat, v / 1000.0));
        mean(rr, Recovery::getToFirstOkMs).ifPresent(v -> toFirstOk.put(repeat, v / 1000.0));
        restarts.put(
            repeat,
            sum(
                pods.stream()
                    .filter(
                        p ->
                            p.arm().equals(row.arm())
                                && p.workload().equals(row.workload())
                                && p.repeat().equals(repeat))
                    .toList(),
                PodFacts::restarts));
      }
      out.add(
          new Row(
              row.arm(),
              row.workload(),
              row.workloadKind(),
              Stat.of(interrupted),
              Stat.of(below),
              Stat.of(disruptions),
              Stat.of(toReady),
              Stat.of(toFirstOk),
              Stat.of(errors),
              Stat.of(restarts),
              gangWait(row, repeats, workloads)));
    }
    return out;
  }

  /**
   * The GPU-seconds the row's gangs held waiting, per repeat (by each gang's own arm and repeat);
   * null when the row has no gang.
   */
  private static Stat gangWait(
      ExperimentReport.Row row, List<String> repeats, Collection<WorkloadTimeline> workloads) {
    List<WorkloadTimeline> gangs = new ArrayList<>();
    for (WorkloadTimeline w : workloads) {
      String rowName = w.getApplication() != null ? w.getApplication() : w.getName();
      if (rowName.equals(row.workload())
          && w.getGangWaitGpuSeconds() != null
          && in(row, w.getArm())) {
        gangs.add(w);
      }
    }
    if (gangs.isEmpty()) {
      return null;
    }
    Map<String, Double> wait = new LinkedHashMap<>();
    for (String repeat : repeats) {
      wait.put(
          repeat,
          gangs.stream()
              .filter(w -> repeat.equals(orEmpty(w.getRepeat())))
              .mapToDouble(WorkloadTimeline::getGangWaitGpuSeconds)
              .sum());
    }
    return Stat.of(wait);
  }

  private static boolean in(ExperimentReport.Row row, String arm) {
    return row.arm().equals(orEmpty(arm));
  }

  private static List<ServiceInterval> of(List<ServiceInterval> intervals, String repeat) {
    return intervals.stream().filter(i -> repeat.equals(orEmpty(i.getRepeat()))).toList();
  }

  /** Closed intervals' seconds (one still open when the data ended has no duration yet). */
  private static double seconds(List<ServiceInterval> intervals) {
    double s = 0;
    for (ServiceInterval i : intervals) {
      if (i.getDurationMs() != null) {
        s += i.getDurationMs() / 1000.0;
      }
    }
    return s;
  }

  private static OptionalDouble mean(List<Recovery> recoveries, Function<Recovery, Long> f) {
    return recoveries.stream().map(f).filter(v -> v != null).mapToLong(Long::longValue).average();
  }

  private static <T> double sum(List<T> items, ToDoubleFunction<T> f) {
    return items.stream().mapToDouble(f).sum();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
