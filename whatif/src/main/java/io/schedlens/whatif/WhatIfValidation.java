package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ExperimentReport.Row;
import io.schedlens.report.ExperimentReport.Stat;
import io.schedlens.report.PodFacts;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.timeline.TimelineSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * How far a prediction is from what really happened, on a simulated experiment whose every arm was
 * observed through the pipeline's topology:
 *
 * <ul>
 *   <li><b>calibration</b>: each arm's runs predicted under that arm's own policy reproduce its
 *       numbers: mean pending within 5 %, p95 pending within 10 %, preemptions and wasted GPU-hours
 *       within 10 % (each with a small absolute floor: a few seconds, half a preemption, a
 *       GPU-minute, where 10 % of almost nothing is nothing); where Jobs waited in a Kueue queue,
 *       mean queue wait within 5 % and p95 queue wait within 10 %;
 *   <li><b>counterfactual</b>: the control arm's runs predicted under the treatment's policy,
 *       against the treatment the experiment really ran: per workload, the change from control in
 *       the observed direction and the predicted value inside the treatment's spread over repeats
 *       (or within 15 %), queue wait p95 too where the workload queued; and the preempted pods (by
 *       repeat, workload and creation order) found with precision and recall of at least 0.8.
 * </ul>
 */
public final class WhatIfValidation {

  /**
   * One comparison.
   *
   * @param what {@code calibration <arm>} or {@code counterfactual}
   * @param low the lowest observed value over repeats (counterfactual), else the observed value
   * @param high the highest
   * @param error relative error of the predicted against the observed mean
   */
  public record Check(
      String scenario,
      String what,
      String workload,
      String metric,
      double observed,
      double low,
      double high,
      double predicted,
      double error,
      boolean ok,
      String why) {}

  /**
   * The checks of one scenario, with its predictions.
   *
   * @param references figures that are not checked but tell how far a check can go: the preempted
   *     pods matched in each arm's calibration (the same policy and arrivals, other random draws),
   *     and between the counterfactual and the same prediction with the next seed
   */
  public record Result(String scenario, List<Check> checks, List<Check> references, long millis) {

    public boolean ok() {
      return checks.stream().allMatch(Check::ok);
    }
  }

  private static final double STARVATION_MS = 600_000;

  private WhatIfValidation() {}

  /**
   * Observes every arm of {@code scenario}, then predicts: each arm under its own policy, and
   * {@code control} under {@code treatment}'s.
   */
  public static Result run(Scenario scenario, String control, String treatment) throws IOException {
    long t0 = System.nanoTime();
    long origin = 1_796_000_000_000L;
    SimulatedExperiment seen = new SimulatedExperiment(scenario, origin);
    // each observed run lasted the scenario's duration from its true start, which its first pod's
    // creation may follow by the arrival jitter
    long period = scenario.duration().toMillis() + scenario.gap().toMillis();
    Function<ObservedRun, Duration> length =
        run -> {
          long start = origin + (run.start() - origin) / period * period;
          return Duration.ofMillis(start + scenario.duration().toMillis() - run.start());
        };
    TimelineSettings settings = TimelineSettings.defaults().withSlos(scenario.slos());
    List<Check> checks = new ArrayList<>();
    List<Check> references = new ArrayList<>();
    Map<String, List<WhatIf.Prediction>> byArm = new TreeMap<>();
    for (Arm arm : scenario.arms()) {
      List<ObservedRun> runs = seen.runs(arm.name());
      List<WhatIf.Prediction> p =
          new WhatIf(ScenarioPolicy.of(scenario, arm), settings, length)
              .predict(runs, WhatIf.Progress.NONE);
      byArm.put(arm.name(), p);
      calibration(scenario.name(), arm.name(), runs, p, checks);
      double[] matched =
          victimScores(
              runs.stream().flatMap(x -> x.pods().stream()).toList(),
              p.stream().flatMap(x -> x.timelines().values().stream()).toList());
      references.add(
          reference(
              scenario.name(), "calibration " + arm.name(), "precision", matched[0], SAME_POLICY));
      references.add(
          reference(
              scenario.name(), "calibration " + arm.name(), "recall", matched[1], SAME_POLICY));
    }
    Arm treatmentArm =
        scenario.arms().stream().filter(a -> a.name().equals(treatment)).findFirst().orElseThrow();
    List<ObservedRun> controlRuns = seen.runs(control);
    Policy policy = ScenarioPolicy.of(scenario, treatmentArm);
    List<WhatIf.Prediction> cf =
        new WhatIf(policy, settings, length).predict(controlRuns, WhatIf.Progress.NONE);
    counterfactual(scenario.name(), controlRuns, seen.runs(treatment), cf, checks);
    // the same prediction with the next seed: how closely the simulated cluster repeats its own
    // victims from the same arrivals, which no prediction can be expected to beat
    List<WhatIf.Prediction> again =
        new WhatIf(policy.withSeed(policy.seed() + 1), settings, length)
            .predict(controlRuns, WhatIf.Progress.NONE);
    double[] repeated =
        victimScores(
            cf.stream().flatMap(x -> x.timelines().values().stream()).toList(),
            again.stream().flatMap(x -> x.timelines().values().stream()).toList());
    references.add(
        reference(scenario.name(), "counterfactual seed+1", "precision", repeated[0], NEXT_SEED));
    references.add(
        reference(scenario.name(), "counterfactual seed+1", "recall", repeated[1], NEXT_SEED));
    return new Result(scenario.name(), checks, references, (System.nanoTime() - t0) / 1_000_000);
  }

  private static void calibration(
      String scenario,
      String arm,
      List<ObservedRun> runs,
      List<WhatIf.Prediction> predictions,
      List<Check> checks) {
    String what = "calibration " + arm;
    List<List<PodFacts>> observed = new ArrayList<>();
    List<List<PodFacts>> predicted = new ArrayList<>();
    for (WhatIf.Prediction p : predictions) {
      observed.add(p.observed().pods().stream().map(PodFacts::of).toList());
      predicted.add(p.timelines().values().stream().map(PodFacts::of).toList());
    }
    List<Metric> metrics = new ArrayList<>(CALIBRATED);
    if (observed.stream().flatMap(List::stream).anyMatch(f -> f.queueWaitMs() != null)) {
      metrics.addAll(CALIBRATED_QUEUE);
    }
    for (Metric m : metrics) {
      checks.add(
          within(
              scenario,
              what,
              "all",
              m.name(),
              perRun(observed, m.perRun()),
              perRun(predicted, m.perRun()),
              m.share(),
              m.floor()));
    }
  }

  /**
   * A number a calibration holds a prediction to: its value per run, and how far off it may be (a
   * share of the observed value, or an absolute floor where that share is almost nothing).
   */
  private record Metric(
      String name, ToDoubleFunction<List<PodFacts>> perRun, double share, double floor) {}

  private static final List<Metric> CALIBRATED =
      List.of(
          new Metric("mean pending s", WhatIfValidation::meanPending, 0.05, 2),
          new Metric("p95 pending s", WhatIfValidation::p95Pending, 0.10, 2),
          new Metric("preemptions per run", WhatIfValidation::preemptions, 0.10, 0.5),
          new Metric("wasted GPU-h per run", WhatIfValidation::wastedHours, 0.10, 1.0 / 60));

  /** Held where some pod waited in a Kueue queue. */
  private static final List<Metric> CALIBRATED_QUEUE =
      List.of(
          new Metric("mean queue wait s", WhatIfValidation::meanQueueWait, 0.05, 2),
          new Metric("p95 queue wait s", WhatIfValidation::p95QueueWait, 0.10, 2));

  private static double perRun(List<List<PodFacts>> runs, ToDoubleFunction<List<PodFacts>> f) {
    return runs.stream().mapToDouble(f).average().orElse(Double.NaN);
  }

  private static double meanPending(List<PodFacts> pods) {
    return pods.stream()
            .filter(p -> p.pendingMs() != null)
            .mapToLong(PodFacts::pendingMs)
            .average()
            .orElse(0)
        / 1000;
  }

  private static double p95Pending(List<PodFacts> pods) {
    return p95(pods, PodFacts::pendingMs);
  }

  /** Mean queue wait of the pods that waited in a Kueue queue, in seconds (0: none did). */
  private static double meanQueueWait(List<PodFacts> pods) {
    return pods.stream()
            .filter(p -> p.queueWaitMs() != null)
            .mapToLong(PodFacts::queueWaitMs)
            .average()
            .orElse(0)
        / 1000;
  }

  private static double p95QueueWait(List<PodFacts> pods) {
    return p95(pods, PodFacts::queueWaitMs);
  }

  private static double p95(List<PodFacts> pods, Function<PodFacts, Long> ms) {
    List<Long> v = pods.stream().map(ms).filter(x -> x != null).sorted().toList();
    return v.isEmpty() ? 0 : v.get((int) Math.ceil(0.95 * v.size()) - 1) / 1000.0;
  }

  private static double preemptions(List<PodFacts> pods) {
    return pods.stream().filter(PodFacts::preempted).count();
  }

  private static double wastedHours(List<PodFacts> pods) {
    return pods.stream().mapToDouble(PodFacts::wastedGpuSeconds).sum() / 3600;
  }

  private static Check within(
      String scenario,
      String what,
      String workload,
      String metric,
      double observed,
      double predicted,
      double share,
      double floor) {
    double error = relative(observed, predicted);
    boolean ok = Math.abs(predicted - observed) <= Math.max(share * Math.abs(observed), floor);
    return new Check(
        scenario,
        what,
        workload,
        metric,
        observed,
        observed,
        observed,
        predicted,
        error,
        ok,
        ok ? "" : "off by more than " + Math.round(share * 100) + " %");
  }

  private static double relative(double observed, double predicted) {
    if (observed == 0) {
      return predicted == 0 ? 0 : Double.POSITIVE_INFINITY;
    }
    return (predicted - observed) / Math.abs(observed);
  }

  private static void counterfactual(
      String scenario,
      List<ObservedRun> controlRuns,
      List<ObservedRun> treatmentRuns,
      List<WhatIf.Prediction> predictions,
      List<Check> checks) {
    List<PodFacts> facts = new ArrayList<>();
    controlRuns.forEach(
        r -> r.pods().forEach(t -> facts.add(WhatIf.relabel(PodFacts.of(t), "control"))));
    treatmentRuns.forEach(
        r -> r.pods().forEach(t -> facts.add(WhatIf.relabel(PodFacts.of(t), "treatment"))));
    predictions.forEach(p -> p.timelines().values().forEach(t -> facts.add(PodFacts.of(t))));
    ExperimentReport r = ExperimentReport.of(scenario, facts, (long) STARVATION_MS);
    for (Row c : r.rows()) {
      if (!c.arm().equals("control")) {
        continue;
      }
      Row t = r.row("treatment", c.workload());
      Row p = r.row(WhatIf.PREDICTED, c.workload());
      if (t == null || p == null) {
        continue;
      }
      checks.addAll(changes(scenario, c, t, p));
    }
    double[] matched =
        victimScores(
            treatmentRuns.stream().flatMap(x -> x.pods().stream()).toList(),
            predictions.stream().flatMap(x -> x.timelines().values().stream()).toList());
    checks.add(score(scenario, "preempted pods: precision", matched[0]));
    checks.add(score(scenario, "preempted pods: recall", matched[1]));
  }

  /**
   * The checks of one workload: control's change to the treatment, observed and predicted (a Job:
   * pending, preemptions, wasted GPU-hours; a serving workload: pending, first OK request).
   */
  private static List<Check> changes(String scenario, Row c, Row t, Row p) {
    List<Check> out = new ArrayList<>();
    out.add(
        change(
            scenario,
            c.workload(),
            "pending p95 s",
            c.pendingP95Ms(),
            t.pendingP95Ms(),
            p.pendingP95Ms(),
            1000,
            2));
    if (c.queued() || t.queued() || p.queued()) {
      out.add(
          change(
              scenario,
              c.workload(),
              "queue wait p95 s",
              c.queueWaitP95Ms(),
              t.queueWaitP95Ms(),
              p.queueWaitP95Ms(),
              1000,
              2));
    }
    if (c.workloadKind().equals("Job")) {
      out.add(
          change(
              scenario,
              c.workload(),
              "preemptions per run",
              c.preemptions(),
              t.preemptions(),
              p.preemptions(),
              1,
              0.5));
      out.add(
          change(
              scenario,
              c.workload(),
              "wasted GPU-h per run",
              c.wastedGpuSeconds(),
              t.wastedGpuSeconds(),
              p.wastedGpuSeconds(),
              3600,
              1.0 / 60));
    } else {
      out.add(
          change(
              scenario,
              c.workload(),
              "first OK p50 s",
              c.timeToFirstOkP50Ms(),
              t.timeToFirstOkP50Ms(),
              p.timeToFirstOkP50Ms(),
              1000,
              2));
    }
    return out;
  }

  /** Precision and recall of the predicted preempted pods, matched per run and workload. */
  private static double[] victimScores(
      Collection<PodTimeline> observedPods, Collection<PodTimeline> predictedPods) {
    Map<String, Integer> observedVictims = victims(observedPods);
    Map<String, Integer> predictedVictims = victims(predictedPods);
    int observed = observedVictims.values().stream().mapToInt(Integer::intValue).sum();
    int predicted = predictedVictims.values().stream().mapToInt(Integer::intValue).sum();
    int both = 0;
    for (Map.Entry<String, Integer> e : observedVictims.entrySet()) {
      both += Math.min(e.getValue(), predictedVictims.getOrDefault(e.getKey(), 0));
    }
    double precision = predicted == 0 ? (observed == 0 ? 1 : 0) : (double) both / predicted;
    double recall = observed == 0 ? (predicted == 0 ? 1 : 0) : (double) both / observed;
    return new double[] {precision, recall};
  }

  private static final String SAME_POLICY =
      "not checked: how well the same policy finds its own victims again";
  private static final String NEXT_SEED =
      "not checked: how well the prediction with the next seed finds the prediction's victims";

  private static Check reference(
      String scenario, String what, String metric, double value, String why) {
    return new Check(
        scenario, what, "all", "preempted pods: " + metric, 1, 1, 1, value, value - 1, true, why);
  }

  private static Check score(String scenario, String metric, double value) {
    boolean ok = value >= 0.8;
    return new Check(
        scenario,
        "counterfactual",
        "all",
        metric,
        1,
        1,
        1,
        value,
        value - 1,
        ok,
        ok ? "" : "below 0.8");
  }

  /**
   * Preempted pods counted per run and workload ({@code repeat/workload}). The pods of one Job or
   * Deployment are alike (same template, same priority), so which of them the scheduler picks is
   * decided by milliseconds of start time; how many of each workload's pods it preempts in a run is
   * what a policy decides, and what is matched.
   */
  static Map<String, Integer> victims(Collection<PodTimeline> pods) {
    Map<String, Integer> out = new TreeMap<>();
    for (PodTimeline t : pods) {
      if (t.getPreemptedAt() != null) {
        String w =
            t.getRepeat()
                + "/"
                + (t.getWorkload() == null ? t.getName() : t.getWorkload().getName());
        out.merge(w, 1, Integer::sum);
      }
    }
    return out;
  }

  private static Check change(
      String scenario,
      String workload,
      String metric,
      Stat control,
      Stat treatment,
      Stat predicted,
      double unit,
      double floor) {
    double c = control == null ? 0 : control.mean() / unit;
    double t = treatment == null ? 0 : treatment.mean() / unit;
    double lo = treatment == null ? 0 : treatment.min() / unit;
    double hi = treatment == null ? 0 : treatment.max() / unit;
    double p = predicted == null ? 0 : predicted.mean() / unit;
    boolean material = Math.abs(t - c) > Math.max(0.05 * Math.abs(c), floor);
    boolean direction = !material || Math.signum(p - c) == Math.signum(t - c);
    boolean inside =
        (p >= lo - 1e-9 && p <= hi + 1e-9)
            || Math.abs(p - t) <= Math.max(0.15 * Math.abs(t), floor);
    String why =
        !direction
            ? "changes the other way (control " + round(c) + ")"
            : !inside ? "outside the treatment's spread and off by more than 15 %" : "";
    return new Check(
        scenario,
        "counterfactual",
        workload,
        metric,
        t,
        lo,
        hi,
        p,
        relative(t, p),
        direction && inside,
        why);
  }

  private static String round(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
