package io.schedlens.whatif;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import io.schedlens.report.Format;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * The answer in words: per application, observed against predicted, on the number its users feel (a
 * service: time to the first OK request, and requests with no Ready replica to serve them; a batch
 * job: its Kueue queue wait p95 where it queued, pending p95, preemptions, wasted GPU-hours), and
 * starvation. Pure.
 */
public final class WhatIfAnswer {

  /**
   * Requests that found no Ready replica, per application, estimated the same way on both sides:
   * the application's observed request rate (over the time it had a Ready replica) times the time
   * it wanted a replica and had none Ready.
   *
   * @param observed per application, mean per run
   * @param predicted per application, mean per run
   */
  public record Unserved(Map<String, Double> observed, Map<String, Double> predicted) {}

  /**
   * The GPU-seconds gangs' running pods held while another pod of the gang was pending ({@code
   * gangWaitGpuSeconds} of the workload timelines), per application with a gang.
   *
   * @param observed per application, mean per run
   * @param predicted per application, mean per run
   */
  public record GangWait(Map<String, Double> observed, Map<String, Double> predicted) {}

  private WhatIfAnswer() {}

  /** The gangs' wait over observed runs and their predictions. */
  public static GangWait gangWait(List<WhatIf.Prediction> predictions) {
    Map<String, Double> observed = new TreeMap<>();
    Map<String, Double> predicted = new TreeMap<>();
    for (WhatIf.Prediction p : predictions) {
      for (WorkloadTimeline w : p.observed().workloads()) {
        if (w.getGangWaitGpuSeconds() != null) {
          String app = w.getApplication() != null ? w.getApplication() : w.getName();
          observed.merge(app, w.getGangWaitGpuSeconds(), Double::sum);
        }
      }
      for (WorkloadTimeline w : p.workloads()) {
        if (w.getGangWaitGpuSeconds() != null) {
          String app = p.scenario().applications().getOrDefault(w.getName(), w.getName());
          predicted.merge(app, w.getGangWaitGpuSeconds(), Double::sum);
        }
      }
    }
    int runs = predictions.size();
    observed.replaceAll((k, v) -> v / runs);
    predicted.replaceAll((k, v) -> v / runs);
    return new GangWait(observed, predicted);
  }

  /** The estimate over observed runs and their predictions. */
  public static Unserved unserved(List<WhatIf.Prediction> predictions) {
    Map<String, Double> observed = new TreeMap<>();
    Map<String, Double> predicted = new TreeMap<>();
    for (WhatIf.Prediction p : predictions) {
      ObservedRun run = p.observed();
      Map<String, Double> rates = p.scenario().requestRates();
      for (WorkloadTimeline w : run.workloads()) {
        add(observed, w, run, rates, p);
      }
      for (WorkloadTimeline w : p.workloads()) {
        add(predicted, w, run, rates, p);
      }
    }
    int runs = predictions.size();
    observed.replaceAll((k, v) -> v / runs);
    predicted.replaceAll((k, v) -> v / runs);
    return new Unserved(observed, predicted);
  }

  private static void add(
      Map<String, Double> into,
      WorkloadTimeline w,
      ObservedRun run,
      Map<String, Double> rates,
      WhatIf.Prediction p) {
    Double rate = rates.get(w.getName());
    if (rate == null) {
      return;
    }
    String app = p.scenario().applications().getOrDefault(w.getName(), w.getName());
    into.merge(app, rate * noReadyMs(w, run.start(), run.end()) / 1000.0, Double::sum);
  }

  /** Milliseconds in [start, end] the workload wanted a replica and had none Ready. */
  static long noReadyMs(WorkloadTimeline w, long start, long end) {
    long total = 0;
    long since = -1;
    for (var point : w.getSeries()) {
      long at = Math.max(start, Math.min(end, point.getAt()));
      boolean unserved = point.getDesired() > 0 && point.getReady() == 0;
      if (since >= 0) {
        total += at - since;
        since = -1;
      }
      if (unserved && point.getAt() < end) {
        since = at;
      }
    }
    if (since >= 0) {
      total += end - since;
    }
    return total;
  }

  /**
   * One sentence per application that changes, and one on starvation, from the first prediction;
   * with more than one (the same runs predicted with other seeds), each predicted figure also says
   * its range over all of them: how far the simulated cluster's own chance moves it.
   *
   * @param reports per prediction, observed and predicted arms, the first the answer's own
   * @param unserved per prediction, in the same order
   * @param gangWaits per prediction, in the same order
   */
  public static List<String> verdict(
      List<ExperimentReport> reports,
      List<Unserved> unserved,
      List<GangWait> gangWaits,
      Policy policy,
      String observedArm) {
    ExperimentReport report = reports.get(0);
    List<String> out = new ArrayList<>();
    double starvingBefore = 0;
    List<Double> starvingAfter = new ArrayList<>(Collections.nCopies(reports.size(), 0.0));
    for (Row o : report.rows()) {
      if (!o.arm().equals(observedArm)) {
        continue;
      }
      List<Row> predicted = new ArrayList<>();
      for (ExperimentReport r : reports) {
        predicted.add(r.row(WhatIf.PREDICTED, o.workload()));
      }
      Row p = predicted.get(0);
      if (p == null) {
        continue;
      }
      starvingBefore += mean(o.starvingPods());
      for (int i = 0; i < predicted.size(); i++) {
        if (predicted.get(i) != null) {
          starvingAfter.set(i, starvingAfter.get(i) + mean(predicted.get(i).starvingPods()));
        }
      }
      String cls = String.join(", ", p.priorityClasses());
      if (!ObservedArrivals.JOB_LIKE.contains(o.workloadKind())) {
        List<Double> u1 = new ArrayList<>();
        unserved.forEach(u -> u1.add(u.predicted().getOrDefault(o.workload(), 0.0)));
        double u0 = unserved.get(0).observed().getOrDefault(o.workload(), 0.0);
        out.add(
            String.format(
                Locale.ROOT,
                "%s (%s): first OK request after %s instead of %s (p50 from creation); %s SLO"
                    + " breaches per run instead of %s, and %s requests with no Ready replica"
                    + " (counted as %s) instead of %s.",
                o.workload(),
                cls,
                figure(means(predicted, Row::timeToFirstOkP50Ms), Format::duration),
                Format.duration(mean(o.timeToFirstOkP50Ms())),
                figure(means(predicted, Row::sloBreaches), WhatIfAnswer::count),
                count(mean(o.sloBreaches())),
                figure(u1, WhatIfAnswer::count),
                policy.unserved().name().toLowerCase(Locale.ROOT),
                count(u0)));
      } else {
        out.add(
            String.format(
                Locale.ROOT,
                "%s (%s): %spending p95 %s instead of %s; %s preemptions per run instead of %s,"
                    + " wasting %s GPU-hours instead of %.2f%s.",
                o.workload(),
                cls,
                queueWait(o, predicted),
                figure(means(predicted, Row::pendingP95Ms), Format::duration),
                Format.duration(mean(o.pendingP95Ms())),
                figure(means(predicted, Row::preemptions), WhatIfAnswer::count),
                count(mean(o.preemptions())),
                figure(
                    means(predicted, Row::wastedGpuSeconds).stream().map(v -> v / 3600).toList(),
                    v -> String.format(Locale.ROOT, "%.2f", v)),
                mean(o.wastedGpuSeconds()) / 3600,
                gangWait(gangWaits, o.workload())));
      }
    }
    out.add(
        String.format(
            Locale.ROOT,
            "Starving pods per run: %s predicted, %s observed.",
            figure(starvingAfter, WhatIfAnswer::count),
            count(starvingBefore)));
    return out;
  }

  /**
   * For a Job that waited (or is predicted to wait) in a Kueue queue, its queue wait p95 (no pod
   * exists while it lasts), predicted against observed; empty for the others.
   */
  private static String queueWait(Row observed, List<Row> predicted) {
    boolean queued = observed.queued() || predicted.stream().anyMatch(r -> r != null && r.queued());
    if (!queued) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "queue wait p95 %s instead of %s, then ",
        figure(means(predicted, Row::queueWaitP95Ms), WhatIfAnswer::duration),
        duration(mean(observed.queueWaitP95Ms())));
  }

  private static String duration(double ms) {
    return Double.isNaN(ms) ? "none" : Format.duration(ms);
  }

  /**
   * For an application with a gang, the GPU-seconds its gangs held waiting per run, predicted
   * against observed; empty for the others.
   */
  private static String gangWait(List<GangWait> gangWaits, String application) {
    GangWait first = gangWaits.get(0);
    if (!first.observed().containsKey(application) && !first.predicted().containsKey(application)) {
      return "";
    }
    List<Double> held = new ArrayList<>();
    gangWaits.forEach(g -> held.add(g.predicted().getOrDefault(application, 0.0)));
    // GPU-seconds, as the report's "gang wait GPU-s": a gang's wait is often minutes, not hours
    return String.format(
        Locale.ROOT,
        "; its gangs held %s GPU-seconds idle waiting for their last pods instead of %.0f",
        figure(held, v -> String.format(Locale.ROOT, "%.0f", v)),
        first.observed().getOrDefault(application, 0.0));
  }

  /** The mean over runs of one figure, per prediction (NaN where a prediction lacks the row). */
  private static List<Double> means(List<Row> rows, Function<Row, Stat> f) {
    return rows.stream().map(r -> mean(r, f)).toList();
  }

  private static double mean(Row r, Function<Row, Stat> f) {
    return r == null ? Double.NaN : mean(f.apply(r));
  }

  /**
   * The first prediction's figure; with more predictions, and its range over them: {@code 12 (9 to
   * 14 over 5 seeds)}, or {@code 12 (the same over 5 seeds)}.
   */
  static String figure(List<Double> values, DoubleFunction<String> format) {
    String first = format.apply(values.get(0));
    if (values.size() == 1) {
      return first;
    }
    double[] defined =
        values.stream().mapToDouble(Double::doubleValue).filter(v -> !Double.isNaN(v)).toArray();
    if (defined.length == 0) {
      return first;
    }
    String low = format.apply(Arrays.stream(defined).min().orElseThrow());
    String high = format.apply(Arrays.stream(defined).max().orElseThrow());
    return low.equals(high)
        ? first + " (the same over " + values.size() + " seeds)"
        : first + " (" + low + " to " + high + " over " + values.size() + " seeds)";
  }

  private static double mean(Stat s) {
    return s == null ? Double.NaN : s.mean();
  }

  private static String count(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    return Math.abs(v - Math.round(v)) < 0.05
        ? Long.toString(Math.round(v))
        : String.format(Locale.ROOT, "%.1f", v);
  }
}
