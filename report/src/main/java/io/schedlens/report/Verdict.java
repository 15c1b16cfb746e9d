package io.schedlens.report;

import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The answer to the platform team's question, per arm against the control, in plain words: did the
 * arm cut serving workloads' pending time and time to the first OK request, at what cost in batch
 * wasted GPU time and batch pending, does anything starve, and is each difference larger than the
 * spread between repeats.
 *
 * <p>"Larger than the spread" is the strict reading: every repeat of one arm is on the same side of
 * every repeat of the other (the ranges over repeats do not overlap). With one repeat there is no
 * spread to compare with, and the verdict says so.
 */
public record Verdict(String arm, String control, List<String> answers, String summary) {

  /** How a difference between two arms compares with the spread between repeats. */
  enum Evidence {
    CLEAR,
    WITHIN_SPREAD,
    ONE_REPEAT;

    String words() {
      return switch (this) {
        case CLEAR -> "larger than the spread between repeats";
        case WITHIN_SPREAD -> "within the spread between repeats: not shown";
        case ONE_REPEAT -> "one repeat only: no spread to compare with";
      };
    }
  }

  static Evidence evidence(Stat a, Stat c) {
    if (a.repeats() < 2 || c.repeats() < 2) {
      return Evidence.ONE_REPEAT;
    }
    return a.max() < c.min() || a.min() > c.max() ? Evidence.CLEAR : Evidence.WITHIN_SPREAD;
  }

  /** One verdict per arm other than the control. */
  public static List<Verdict> of(ExperimentReport r) {
    List<Verdict> out = new ArrayList<>();
    for (String arm : r.arms()) {
      if (!arm.equals(r.control())) {
        out.add(of(r, arm));
      }
    }
    return out;
  }

  static Verdict of(ExperimentReport r, String arm) {
    String control = r.control();
    List<String> answers = new ArrayList<>();
    List<String> gains = new ArrayList<>();
    List<String> costs = new ArrayList<>();
    List<String> starving = new ArrayList<>();
    for (Row a : r.rows()) {
      if (!a.arm().equals(arm)) {
        continue;
      }
      Row c = r.row(control, a.workload());
      boolean batch = "Job".equals(a.workloadKind());
      if (c != null) {
        if (!batch) {
          compare(answers, gains, costs, a, c, "pending p95", Row::pendingP95Ms, true);
          compare(
              answers,
              gains,
              costs,
              a,
              c,
              "time to first OK request p50",
              Row::timeToFirstOkP50Ms,
              true);
        } else {
          compare(answers, gains, costs, a, c, "pending p50", Row::pendingP50Ms, true);
          Stat wa = a.wastedGpuSeconds();
          Stat wc = c.wastedGpuSeconds();
          if (wa != null && wc != null && (wa.mean() > 0 || wc.mean() > 0)) {
            Evidence e = evidence(wa, wc);
            String s =
                String.format(
                    "%s: wasted GPU time %.2f GPU-hours per repeat in %s against %.2f in %s (%s).",
                    a.workload(), wa.mean() / 3600, arm, wc.mean() / 3600, control, e.words());
            answers.add(s);
            if (wa.mean() > wc.mean()) {
              costs.add(
                  String.format(
                      "%s loses %.2f GPU-hours more per repeat",
                      a.workload(), (wa.mean() - wc.mean()) / 3600));
            }
          }
        }
      }
      if (a.starvingPods() != null && a.starvingPods().mean() > 0) {
        starving.add(a.workload());
      }
    }
    if (starving.isEmpty()) {
      answers.add("Nothing starves" + Format.inArm(arm) + ".");
    } else {
      answers.add("Starving" + Format.inArm(arm) + ": " + String.join(", ", starving) + ".");
    }
    StringBuilder summary = new StringBuilder();
    summary.append(arm).append(" against ").append(control).append(": ");
    summary.append(gains.isEmpty() ? "no clear gain" : String.join("; ", gains));
    summary.append(
        costs.isEmpty() ? "; no clear cost" : "; at a cost: " + String.join("; ", costs));
    summary.append(
        starving.isEmpty()
            ? "; nothing starves."
            : "; starving: " + String.join(", ", starving) + ".");
    return new Verdict(arm, control, List.copyOf(answers), summary.toString());
  }

  private static void compare(
      List<String> answers,
      List<String> gains,
      List<String> costs,
      Row a,
      Row c,
      String what,
      Function<Row, Stat> metric,
      boolean lowerIsBetter) {
    Stat sa = metric.apply(a);
    Stat sc = metric.apply(c);
    if (sa == null || sc == null) {
      return;
    }
    Evidence e = evidence(sa, sc);
    boolean better = lowerIsBetter ? sa.mean() < sc.mean() : sa.mean() > sc.mean();
    boolean same = sa.mean() == sc.mean();
    String change = same ? "unchanged" : better ? "better" : "worse";
    answers.add(
        String.format(
            "%s: %s %s in %s against %s in %s — %s, %s.",
            a.workload(),
            what,
            Format.duration(sa.mean()),
            a.arm(),
            Format.duration(sc.mean()),
            c.arm(),
            change,
            e.words()));
    if (e == Evidence.CLEAR && !same) {
      String line =
          String.format(
              "%s %s %s → %s",
              a.workload(), what, Format.duration(sc.mean()), Format.duration(sa.mean()));
      (better ? gains : costs).add(line);
    }
  }
}
