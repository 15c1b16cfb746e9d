package io.schedlens.report;

import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What the numbers say, in sentences: for every arm against the control, whether each service got
 * faster (Pending and time to the first OK request, repeat by repeat), what the batch workloads
 * paid (preemptions, wasted GPU time), whose running pods Kueue preempted, and who starves.
 */
final class Findings {

  private Findings() {}

  static List<String> of(
      ExperimentReport r, List<String> workloads, Map<String, String> kinds, long starvationMs) {
    List<String> out = new ArrayList<>();
    String control = r.control();
    for (String arm : r.arms()) {
      if (arm.equals(control)) {
        continue;
      }
      for (String w : workloads) {
        Row a = r.row(arm, w);
        Row c = r.row(control, w);
        if (a == null || c == null) {
          continue;
        }
        boolean service = !"Job".equals(kinds.get(w));
        if (service) {
          compare(
              out,
              w,
              "time to the first OK request p50",
              arm,
              control,
              a,
              c,
              Row::timeToFirstOkP50Ms);
        }
        if (a.queued() && c.queued()) {
          compare(out, w, "queue wait p50", arm, control, a, c, Row::queueWaitP50Ms);
        }
        compare(out, w, "Pending p50", arm, control, a, c, Row::pendingP50Ms);
        if (service) {
          compare(out, w, "Pending max", arm, control, a, c, Row::pendingMaxMs);
          double breachesA = mean(a.sloBreaches());
          double breachesC = mean(c.sloBreaches());
          double reqA = mean(a.requests());
          double reqC = mean(c.requests());
          if (reqA > 0 || reqC > 0) {
            out.add(
                String.format(
                    "%s: %s of requests broke the latency SLO in %s, %s in %s.",
                    w, percent(breachesA, reqA), arm, percent(breachesC, reqC), control));
          }
        }
        double preA = mean(a.preemptions());
        double preC = mean(c.preemptions());
        if (preA > 0 || preC > 0) {
          out.add(
              String.format(
                  "%s: preempted %s times per repeat in %s (%s in %s); work lost: %s per repeat (%s in %s).",
                  w,
                  number(preA),
                  arm,
                  number(preC),
                  control,
                  gpuTime(mean(a.wastedGpuSeconds())),
                  gpuTime(mean(c.wastedGpuSeconds())),
                  control));
        }
      }
    }
    queuePreemptions(r, workloads, out);
    for (String arm : r.arms()) {
      List<String> starving = new ArrayList<>();
      for (String w : workloads) {
        Row row = r.row(arm, w);
        if (row != null && mean(row.starvingPods()) > 0) {
          starving.add(w + " (" + number(mean(row.starvingPods())) + " pods per repeat)");
        }
      }
      if (starving.isEmpty()) {
        out.add(String.format("No workload starves%s.", Format.inArm(arm)));
      } else {
        out.add(
            String.format(
                "Starving%s (pending over %s, or preempted repeatedly without completing): %s.",
                Format.inArm(arm), Format.duration(starvationMs), String.join(", ", starving)));
      }
    }
    return out;
  }

  /** Kueue's preemptions in each arm: their running victims and the work they lost. */
  private static void queuePreemptions(
      ExperimentReport r, List<String> workloads, List<String> out) {
    for (String arm : r.arms()) {
      for (String w : workloads) {
        Row row = r.row(arm, w);
        double victims = row == null ? 0 : mean(row.queuePreemptions());
        if (victims > 0) {
          out.add(
              String.format(
                  "%s: Kueue preempted %s running pods per repeat%s (each its Workload's, evicted"
                      + " to give quota to another); work lost: %s per repeat.",
                  w,
                  number(victims),
                  Format.inArm(arm),
                  gpuTime(mean(row.queueWastedGpuSeconds()))));
        }
      }
    }
  }

  private static void compare(
      List<String> out,
      String w,
      String what,
      String arm,
      String control,
      Row a,
      Row c,
      Function<Row, Stat> metric) {
    Stat sa = metric.apply(a);
    Stat sc = metric.apply(c);
    if (sa == null || sc == null) {
      return;
    }
    int lower = 0;
    int paired = 0;
    for (Map.Entry<String, Double> e : sa.byRepeat().entrySet()) {
      Double other = sc.byRepeat().get(e.getKey());
      if (other != null) {
        paired++;
        if (e.getValue() < other) {
          lower++;
        }
      }
    }
    String direction =
        sa.mean() < sc.mean() ? "lower" : sa.mean() > sc.mean() ? "higher" : "the same";
    out.add(
        String.format(
            "%s: %s %s in %s against %s in %s (mean over repeats: %s); lower in %d of %d repeats.",
            w,
            what,
            Format.duration(sa.mean()),
            arm,
            Format.duration(sc.mean()),
            control,
            direction,
            lower,
            paired));
  }

  static double mean(Stat s) {
    return s == null ? 0 : s.mean();
  }

  private static String percent(double part, double whole) {
    return whole <= 0 ? "n/a" : String.format("%.1f%%", 100.0 * part / whole);
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format("%.1f", v);
  }

  private static String gpuTime(double gpuSeconds) {
    return String.format("%.2f GPU-hours", gpuSeconds / 3600.0);
  }
}
