package io.schedlens.whatif;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import io.schedlens.report.Format;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answer in words: per application, observed against predicted, on the number its users feel (a
 * service: time to the first OK request, and requests with no Ready replica to serve them; a batch
 * job: pending p95, preemptions, wasted GPU-hours), and starvation. Pure.
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

  private WhatIfAnswer() {}

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

  /** One sentence per application that changes, and one on starvation. */
  public static List<String> verdict(
      ExperimentReport report, Unserved unserved, Policy policy, String observedArm) {
    List<String> out = new ArrayList<>();
    double starvingBefore = 0;
    double starvingAfter = 0;
    for (Row o : report.rows()) {
      if (!o.arm().equals(observedArm)) {
        continue;
      }
      Row p = report.row(WhatIf.PREDICTED, o.workload());
      if (p == null) {
        continue;
      }
      starvingBefore += mean(o.starvingPods());
      starvingAfter += mean(p.starvingPods());
      String cls = String.join(", ", p.priorityClasses());
      if (!o.workloadKind().equals("Job")) {
        double u0 = unserved.observed().getOrDefault(o.workload(), 0.0);
        double u1 = unserved.predicted().getOrDefault(o.workload(), 0.0);
        out.add(
            String.format(
                Locale.ROOT,
                "%s (%s): first OK request after %s instead of %s (p50 from creation); %s SLO"
                    + " breaches per run instead of %s, and %s requests with no Ready replica"
                    + " (counted as %s) instead of %s.",
                o.workload(),
                cls,
                Format.duration(mean(p.timeToFirstOkP50Ms())),
                Format.duration(mean(o.timeToFirstOkP50Ms())),
                count(mean(p.sloBreaches())),
                count(mean(o.sloBreaches())),
                count(u1),
                policy.unserved().name().toLowerCase(Locale.ROOT),
                count(u0)));
      } else {
        out.add(
            String.format(
                Locale.ROOT,
                "%s (%s): pending p95 %s instead of %s; %s preemptions per run instead of %s,"
                    + " wasting %.2f GPU-hours instead of %.2f.",
                o.workload(),
                cls,
                Format.duration(mean(p.pendingP95Ms())),
                Format.duration(mean(o.pendingP95Ms())),
                count(mean(p.preemptions())),
                count(mean(o.preemptions())),
                mean(p.wastedGpuSeconds()) / 3600,
                mean(o.wastedGpuSeconds()) / 3600));
      }
    }
    out.add(
        String.format(
            Locale.ROOT,
            "Starving pods per run: %s predicted, %s observed.",
            count(starvingAfter),
            count(starvingBefore)));
    return out;
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
