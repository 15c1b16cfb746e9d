package io.schedlens.report;

import io.schedlens.base.Durations;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rollback conditions decided before the experiment, checked per arm against the control: PASS or
 * FAIL each, so that "placement improved but users got more errors" is called out, not hidden in a
 * table.
 *
 * <ul>
 *   <li>{@code slo-breach-ratio<=control}: no serving workload's share of requests over their
 *       latency SLO rises above the control's — above the control's worst repeat, so that noise
 *       between repeats is not a failure.
 *   <li>{@code no-starving}: no workload has starving pods in the arm.
 *   <li>{@code batch-pending-p95<=DURATION}: every batch (Job) workload's pending p95 stays under
 *       the bound in every repeat.
 *   <li>{@code wasted-gpu-hours<=N}: batch work lost to early ends stays under N GPU-hours per
 *       repeat (mean over repeats), over all batch workloads together.
 *   <li>{@code interruption<=control}: no serving workload's service interruption (seconds without
 *       a Ready replica while one was wanted, per repeat) rises above the control's worst repeat:
 *       faster placement that costs users their server on every rollout or drain is a failure.
 * </ul>
 */
public final class Guardrails {

  public static final List<String> DEFAULT = List.of("slo-breach-ratio<=control", "no-starving");

  /** One rule for one arm. */
  public record Result(String arm, String rule, boolean pass, String detail) {}

  private static final Pattern BATCH_PENDING = Pattern.compile("batch-pending-p95<=(\\S+)");
  private static final Pattern WASTED = Pattern.compile("wasted-gpu-hours<=([0-9.]+)");

  private Guardrails() {}

  /** Throws {@link IllegalArgumentException} naming a rule that is not understood. */
  public static void validate(List<String> rules) {
    for (String rule : rules) {
      String r = rule.strip();
      if (r.equals("slo-breach-ratio<=control")
          || r.equals("no-starving")
          || r.equals("interruption<=control")) {
        continue;
      }
      Matcher b = BATCH_PENDING.matcher(r);
      if (b.matches()) {
        Durations.parse(b.group(1));
        continue;
      }
      if (WASTED.matcher(r).matches()) {
        continue;
      }
      throw new IllegalArgumentException(
          "guardrail '"
              + rule
              + "' is not one of slo-breach-ratio<=control, no-starving, interruption<=control, batch-pending-p95<=DURATION, wasted-gpu-hours<=NUMBER");
    }
  }

  public static List<Result> evaluate(ExperimentReport r, List<String> rules) {
    validate(rules);
    List<Result> out = new ArrayList<>();
    for (String arm : r.arms()) {
      if (arm.equals(r.control())) {
        continue;
      }
      for (String rule : rules) {
        out.add(evaluate(r, arm, rule.strip()));
      }
    }
    return out;
  }

  private static Result evaluate(ExperimentReport r, String arm, String rule) {
    List<Row> mine = r.rows().stream().filter(x -> x.arm().equals(arm)).toList();
    if (rule.equals("no-starving")) {
      return noStarving(arm, rule, mine);
    }
    if (rule.equals("slo-breach-ratio<=control")) {
      return sloBreachRatio(r, arm, rule, mine);
    }
    if (rule.equals("interruption<=control")) {
      return interruption(r, arm, rule);
    }
    Matcher b = BATCH_PENDING.matcher(rule);
    if (b.matches()) {
      return batchPending(arm, rule, mine, Durations.parse(b.group(1)));
    }
    Matcher w = WASTED.matcher(rule);
    w.matches();
    double bound = Double.parseDouble(w.group(1));
    double hours =
        mine.stream()
                .filter(x -> "Job".equals(x.workloadKind()) && x.wastedGpuSeconds() != null)
                .mapToDouble(x -> x.wastedGpuSeconds().mean())
                .sum()
            / 3600.0;
    return new Result(arm, rule, hours <= bound, String.format("%.2f GPU-hours per repeat", hours));
  }

  private static Result noStarving(String arm, String rule, List<Row> mine) {
    List<String> starving =
        mine.stream()
            .filter(x -> x.starvingPods() != null && x.starvingPods().max() > 0)
            .map(Row::workload)
            .toList();
    return new Result(
        arm,
        rule,
        starving.isEmpty(),
        starving.isEmpty() ? "no workload starves" : "starving: " + String.join(", ", starving));
  }

  private static Result sloBreachRatio(
      ExperimentReport r, String arm, String rule, List<Row> mine) {
    List<String> worse = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Row a : mine) {
      Row c = r.row(r.control(), a.workload());
      if ("Job".equals(a.workloadKind()) || c == null) {
        continue;
      }
      double[] ratiosA = ratios(a);
      double[] rc = ratios(c);
      if (ratiosA == null || rc == null) {
        continue;
      }
      double ra = ratiosA[2];
      String line =
          String.format(
              "%s %.2f%% (control %.2f%%–%.2f%%)",
              a.workload(), 100 * ra, 100 * rc[0], 100 * rc[1]);
      seen.add(line);
      if (ra > rc[1]) {
        worse.add(line);
      }
    }
    if (seen.isEmpty()) {
      return new Result(arm, rule, true, "no serving workload with requests to compare");
    }
    return new Result(
        arm,
        rule,
        worse.isEmpty(),
        worse.isEmpty() ? String.join("; ", seen) : "rose: " + String.join("; ", worse));
  }

  private static Result interruption(ExperimentReport r, String arm, String rule) {
    List<String> worse = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (ServiceContinuity.Row a : r.continuity()) {
      ServiceContinuity.Row c = r.continuity(r.control(), a.workload());
      if (!a.arm().equals(arm)
          || "Job".equals(a.workloadKind())
          || c == null
          || a.interruptionSeconds() == null
          || c.interruptionSeconds() == null) {
        continue;
      }
      String line =
          String.format(
              "%s %s per repeat at worst (control at worst %s)",
              a.workload(),
              Format.duration(a.interruptionSeconds().max() * 1000),
              Format.duration(c.interruptionSeconds().max() * 1000));
      seen.add(line);
      if (a.interruptionSeconds().max() > c.interruptionSeconds().max()) {
        worse.add(line);
      }
    }
    if (seen.isEmpty()) {
      return new Result(arm, rule, true, "no workload timelines of serving workloads to compare");
    }
    return new Result(
        arm,
        rule,
        worse.isEmpty(),
        worse.isEmpty() ? String.join("; ", seen) : "rose: " + String.join("; ", worse));
  }

  private static Result batchPending(String arm, String rule, List<Row> mine, Duration bound) {
    List<String> over = new ArrayList<>();
    for (Row a : mine) {
      if ("Job".equals(a.workloadKind())
          && a.pendingP95Ms() != null
          && a.pendingP95Ms().max() > bound.toMillis()) {
        over.add(
            a.workload() + " " + Format.duration(a.pendingP95Ms().max()) + " in its worst repeat");
      }
    }
    return new Result(
        arm,
        rule,
        over.isEmpty(),
        over.isEmpty()
            ? "every batch workload under " + Durations.format(bound)
            : "over: " + String.join("; ", over));
  }

  /** min, max and mean over repeats of SLO breaches / requests; null without requests. */
  private static double[] ratios(Row row) {
    Stat b = row.sloBreaches();
    Stat q = row.requests();
    if (b == null || q == null) {
      return null;
    }
    double min = Double.MAX_VALUE;
    double max = -1;
    double sum = 0;
    int n = 0;
    for (Map.Entry<String, Double> e : q.byRepeat().entrySet()) {
      double requests = e.getValue();
      if (requests <= 0) {
        continue;
      }
      double ratio = b.byRepeat().getOrDefault(e.getKey(), 0.0) / requests;
      min = Math.min(min, ratio);
      max = Math.max(max, ratio);
      sum += ratio;
      n++;
    }
    return n == 0 ? null : new double[] {min, max, sum / n};
  }
}
