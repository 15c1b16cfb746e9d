package io.schedlens.timeline;

import java.time.Duration;
import java.util.Map;

/**
 * What the timeline logic needs to know besides its inputs.
 *
 * @param grace how late an input may arrive and still count exactly as if it had been on time; also
 *     how long after a pod is gone its final timeline waits
 * @param gpuSampleInterval the scrape interval: the span the first sample of a GPU stands for
 * @param gpuMaxGap the longest span one sample may stand for (longer gaps are missing data)
 * @param slosMs latency SLOs in milliseconds by service name, then by priority class
 * @param starvationPending a pod pending longer than this is starving
 * @param starvationPreemptions a workload preempted this often without completing is starving
 * @param experimentKey label holding the experiment name
 * @param armKey label holding the experiment arm
 * @param repeatKey label holding the repeat number
 * @param applicationKey label naming the application a pod belongs to (the experiment report's
 *     rows), e.g. {@code app.kubernetes.io/name}
 * @param checkpointAnnotation annotation holding the time of the last durable checkpoint
 */
public record TimelineSettings(
    Duration grace,
    Duration gpuSampleInterval,
    Duration gpuMaxGap,
    Map<String, Double> slosMs,
    Duration starvationPending,
    int starvationPreemptions,
    String experimentKey,
    String armKey,
    String repeatKey,
    String applicationKey,
    String checkpointAnnotation) {

  public TimelineSettings {
    slosMs = Map.copyOf(slosMs);
  }

  /** The latency SLO of a service, in ms, or null: the one lookup of {@code --slo} by service. */
  public Double serviceSlo(String service) {
    return service == null ? null : slosMs.get(service);
  }

  /** The latency SLO of a priority class, in ms, or null. */
  public Double classSlo(String priorityClass) {
    return priorityClass == null ? null : slosMs.get(priorityClass);
  }

  /** The latency SLO of a request: its service's, else its pod's priority class's; or null. */
  public Double slo(String service, String priorityClass) {
    Double slo = serviceSlo(service);
    return slo != null ? slo : classSlo(priorityClass);
  }

  /** The defaults of docs/design.md. */
  public static TimelineSettings defaults() {
    return new TimelineSettings(
        Duration.ofMinutes(2),
        Duration.ofSeconds(15),
        Duration.ofSeconds(60),
        Map.of(),
        Duration.ofMinutes(10),
        3,
        "schedlens.io/experiment",
        "schedlens.io/arm",
        "schedlens.io/repeat",
        "app.kubernetes.io/name",
        "schedlens.io/last-checkpoint");
  }

  /** A copy with other SLOs. */
  public TimelineSettings withSlos(Map<String, Double> slos) {
    return new TimelineSettings(
        grace,
        gpuSampleInterval,
        gpuMaxGap,
        slos,
        starvationPending,
        starvationPreemptions,
        experimentKey,
        armKey,
        repeatKey,
        applicationKey,
        checkpointAnnotation);
  }

  /** A copy with other starvation thresholds. */
  public TimelineSettings withStarvation(Duration pending, int preemptions) {
    return new TimelineSettings(
        grace,
        gpuSampleInterval,
        gpuMaxGap,
        slosMs,
        pending,
        preemptions,
        experimentKey,
        armKey,
        repeatKey,
        applicationKey,
        checkpointAnnotation);
  }

  /** A copy with another grace period. */
  public TimelineSettings withGrace(Duration g) {
    return new TimelineSettings(
        g,
        gpuSampleInterval,
        gpuMaxGap,
        slosMs,
        starvationPending,
        starvationPreemptions,
        experimentKey,
        armKey,
        repeatKey,
        applicationKey,
        checkpointAnnotation);
  }
}
