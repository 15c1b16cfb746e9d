package io.schedlens.timeline;

import java.time.Duration;
import java.util.List;
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
 * @param applicationKeys labels naming the application a pod belongs to (the experiment report's
 *     rows), the first present wins: {@code app.kubernetes.io/name}, then {@code app}
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
    List<String> applicationKeys,
    String checkpointAnnotation) {

  public TimelineSettings {
    slosMs = Map.copyOf(slosMs);
    applicationKeys = List.copyOf(applicationKeys);
  }

  /**
   * The application a pod belongs to (DESIGN section 4): the first of its application labels it
   * carries, else its workload's name.
   */
  public String applicationOf(Map<String, String> labels, String workloadName) {
    for (String key : applicationKeys) {
      String value = labels.get(key);
      if (value != null && !value.isEmpty()) {
        return value;
      }
    }
    return workloadName;
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
        List.of("app.kubernetes.io/name", "app"),
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
        applicationKeys,
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
        applicationKeys,
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
        applicationKeys,
        checkpointAnnotation);
  }
}
