package io.schedlens.whatif;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.base.DisruptionCause;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.simulator.scenario.Scenario.Jittered;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Traffic;
import io.schedlens.timeline.WorkloadContinuity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A Deployment or StatefulSet of an observed run, as the simulator's scenario replays it. */
final class ObservedServing {

  private ObservedServing() {}

  /**
   * Whether the series tells the replicas over the run: it is whole (a series is cut to its latest
   * {@link WorkloadContinuity#MAX_SERIES} changes), or it began before the run.
   */
  static boolean covers(List<ReplicaPoint> series, ObservedRun run) {
    return !series.isEmpty()
        && (series.size() < WorkloadContinuity.MAX_SERIES || series.get(0).getAt() <= run.start());
  }

  /**
   * Desired and Ready replicas from the run's pods, by the pipeline's own inference for a workload
   * whose object it never saw ({@link WorkloadContinuity#view} without desired steps): a pod is
   * wanted from its creation until its deletion is asked for (a scale-down, the run's end), a pod
   * disrupted otherwise (preempted, evicted) until its replacement is created; Ready from its first
   * Ready until it was disrupted, deleted or ended.
   */
  static List<ReplicaPoint> inferredSeries(
      String namespace, String kind, String name, List<PodTimeline> pods, ObservedRun run) {
    List<WorkloadMember> members = new ArrayList<>();
    for (PodTimeline t : pods) {
      Disruption d = t.getDisruption();
      Long disruptedAt = d == null ? null : d.getAt();
      // a timeline shows a deletion request only as the disruption of a deleted pod
      Long stopped =
          d != null && DisruptionCause.DELETION.wire().equals(d.getCause())
              ? disruptedAt
              : t.getTerminatedAt();
      Long readyEnd =
          t.getReadyAt() == null
              ? null
              : earliest(stopped, earliest(disruptedAt, t.getTerminatedAt()));
      members.add(
          WorkloadMember.newBuilder()
              .setUid(t.getUid())
              .setName(t.getName())
              .setCreatedAt(t.getCreatedAt())
              .setScheduledAt(t.getScheduledAt())
              .setReadyAt(t.getReadyAt())
              .setReadyEndAt(readyEnd)
              .setStoppedAt(stopped)
              .setOutcome(t.getOutcome())
              .setDisruptionCause(d == null ? null : d.getCause())
              .setDisruptionAt(disruptedAt)
              .build());
    }
    return WorkloadContinuity.view(
            WorkloadKey.of(namespace, kind, name),
            members,
            List.of(),
            List.of(),
            List.of(),
            run.end())
        .getSeries();
  }

  private static Long earliest(Long a, Long b) {
    return a == null ? b : b == null ? a : Math.min(a, b);
  }

  static ServingSpec of(
      ObservedRun run,
      String kind,
      String name,
      List<PodTimeline> pods,
      List<ReplicaPoint> series,
      Map<String, Double> slos) {
    // the series within the run: the state at its start, then every change in it
    List<ReplicaStep> steps = new ArrayList<>();
    int desired = 0;
    int ready = 0;
    for (var p : series) {
      if (p.getAt() <= run.start()) {
        desired = p.getDesired();
        ready = p.getReady();
      }
    }
    steps.add(new ReplicaStep(Duration.ZERO, Duration.ZERO, desired));
    long readySince = ready > 0 ? run.start() : -1;
    long servedMs = 0;
    for (var p : series) {
      if (p.getAt() <= run.start() || p.getAt() > run.end()) {
        continue;
      }
      if (p.getDesired() != desired) {
        steps.add(
            new ReplicaStep(
                Duration.ofMillis(p.getAt() - run.start()), Duration.ZERO, p.getDesired()));
        desired = p.getDesired();
      }
      if (p.getReady() > 0 && readySince < 0) {
        readySince = p.getAt();
      } else if (p.getReady() == 0 && readySince >= 0) {
        servedMs += p.getAt() - readySince;
        readySince = -1;
      }
    }
    if (readySince >= 0) {
      servedMs += run.end() - readySince;
    }
    List<Long> loads = new ArrayList<>();
    Traffic traffic = traffic(name, pods, servedMs, loads, slos);
    return new ServingSpec(
        kind.equals("StatefulSet"),
        steps,
        new Jittered(Duration.ofMillis(ObservedArrivals.median(loads, 0)), Duration.ZERO),
        traffic);
  }

  /**
   * The workload's traffic as its pods served it over {@code servedMs} with a Ready replica; its
   * pods' model-load times to {@code loads}, its latency SLO to {@code slos}. Null when it served
   * nothing.
   */
  private static Traffic traffic(
      String name,
      List<PodTimeline> pods,
      long servedMs,
      List<Long> loads,
      Map<String, Double> slos) {
    long requests = 0;
    long errors = 0;
    double p50 = 0;
    double p95 = 0;
    Double slo = null;
    for (PodTimeline t : pods) {
      if (t.getModelLoadMs() != null) {
        loads.add(t.getModelLoadMs());
      }
      requests += t.getRequests();
      errors += t.getErrors();
      if (t.getLatencyP50Ms() != null && t.getLatencyP95Ms() != null) {
        p50 += t.getLatencyP50Ms() * t.getRequests();
        p95 += t.getLatencyP95Ms() * t.getRequests();
      }
      if (t.getSeries() != null && t.getSeries().getSloMs() != null) {
        slo = t.getSeries().getSloMs();
      }
    }
    Traffic traffic = null;
    if (requests > 0 && servedMs > 0) {
      double median = p50 / requests;
      double spread = p95 > 0 && median > 0 ? Math.log((p95 / requests) / median) / 1.645 : 0.3;
      traffic =
          new Traffic(
              name,
              requests * 1000.0 / servedMs,
              median,
              Math.max(0.01, spread),
              1e9, // the observed latency is already the latency at the observed load
              (double) errors / requests,
              Duration.ofSeconds(1));
      if (slo != null) {
        slos.put(name, slo);
      }
    }
    return traffic;
  }
}
