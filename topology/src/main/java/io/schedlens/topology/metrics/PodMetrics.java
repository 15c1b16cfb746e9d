package io.schedlens.topology.metrics;

import io.prometheus.metrics.core.metrics.Histogram;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.timeline.TimelineView;
import java.util.ArrayList;
import java.util.List;

/**
 * What the pod stage adds to the Prometheus metrics, each figure once per pod: a duration when it
 * becomes known, a preemption when its preemptor's class is known (or at the end), the GPU-seconds
 * and the outcome when the final timeline is out, requests as they are counted. Which durations a
 * pod already reported is kept in its state ({@code observed}), so a restart does not count them
 * twice.
 */
public final class PodMetrics {

  private final StreamsMetrics metrics;
  private final TimelineSettings settings;

  public PodMetrics(StreamsMetrics metrics, TimelineSettings settings) {
    this.metrics = metrics;
    this.settings = settings;
  }

  public PodLabels labels(TimelineState s) {
    return PodLabels.of(s, settings, metrics);
  }

  /** Each duration once per pod, when both its ends are known. */
  public void observeDurations(TimelineState s) {
    if (!s.getSawPod()) {
      return;
    }
    Long created = s.getLifecycle().getCreatedAt();
    Long scheduled = TimelineView.scheduledAt(s);
    Long running = s.getLifecycle().getRunningAt();
    Long ready = s.getLifecycle().getReadyAt();
    observe(s, "pending", created, scheduled, metrics.pendingDuration);
    observe(s, "startup", scheduled, running, metrics.startupDuration);
    observe(s, "modelLoad", running, ready, metrics.modelLoadDuration);
    observe(s, "ready", created, ready, metrics.timeToReady);
    Long firstOk = null;
    if (ready != null) {
      firstOk =
          s.getServing().getOkTimes().stream().filter(x -> x >= ready).findFirst().orElse(null);
    }
    observe(s, "firstOk", created, firstOk, metrics.timeToFirstOk);
    boolean preemptorKnown =
        s.getDisruption().getPreemptor() != null
            && s.getDisruption().getPreemptor().getPriorityClass() != null;
    if ((s.getDisruption().getPreemptedEventAt() != null
            || s.getDisruption().getPreemptedConditionAt() != null)
        && preemptorKnown) {
      countPreemption(s);
    }
  }

  /** One second of a pod's requests. */
  public void countRequests(TimelineState s, long requests, long errors, long breaches) {
    String[] labels = labels(s).values();
    metrics.requests.labelValues(labels).inc(requests);
    if (errors > 0) {
      metrics.requestErrors.labelValues(labels).inc(errors);
    }
    if (breaches > 0) {
      metrics.sloBreaches.labelValues(labels).inc(breaches);
    }
  }

  /** The final timeline is out: the figures counted once per pod at its end. */
  public void finished(TimelineState s, PodTimeline t) {
    PodLabels labels = labels(s);
    if (t.getPreemptedAt() != null) {
      countPreemption(s);
    }
    if (t.getNeverScheduled() && t.getPendingMs() != null) {
      metrics.pendingDuration.labelValues(labels.values()).observe(t.getPendingMs() / 1000.0);
    }
    metrics.podsFinished.labelValues(labels.and(t.getOutcome())).inc();
    if (t.getAllocatedGpuSeconds() != null) {
      metrics.allocatedGpuSeconds.labelValues(labels.values()).inc(t.getAllocatedGpuSeconds());
      metrics.busyGpuSeconds.labelValues(labels.values()).inc(t.getBusyGpuSeconds());
      metrics.idleGpuSeconds.labelValues(labels.values()).inc(t.getIdleAllocatedGpuSeconds());
      if (t.getUnsampledGpuSeconds() != null) {
        metrics.unsampledGpuSeconds.labelValues(labels.values()).inc(t.getUnsampledGpuSeconds());
      }
      countGpuEquivalents(t);
    }
    if (t.getWastedGpuSeconds() != null && t.getDisruption() != null) {
      metrics
          .wastedGpuSeconds
          .labelValues(labels.and(t.getDisruption().getCause()))
          .inc(t.getWastedGpuSeconds());
    }
  }

  private void countGpuEquivalents(PodTimeline t) {
    String namespace = t.getNamespace() == null ? "" : t.getNamespace();
    String resource = t.getGpuResource() == null ? "" : t.getGpuResource();
    boolean shared = Boolean.TRUE.equals(t.getGpuShared());
    metrics
        .gpuEquivalentSeconds
        .labelValues(namespace, resource, Boolean.toString(shared))
        .inc(t.getAllocatedGpuSeconds());
    if (shared && t.getGpuShare() != null && t.getGpuShare() == 1.0) {
      metrics.gpuShareAssumed.labelValues(namespace, resource).inc();
    }
  }

  private void countPreemption(TimelineState s) {
    if (!mark(s, "preemption")) {
      return;
    }
    PodLabels l = labels(s);
    String preemptorClass =
        s.getDisruption().getPreemptor() == null
                || s.getDisruption().getPreemptor().getPriorityClass() == null
            ? ""
            : s.getDisruption().getPreemptor().getPriorityClass();
    metrics
        .preemptions
        .labelValues(l.namespace(), l.priorityClass(), preemptorClass, l.arm(), l.repeat())
        .inc();
  }

  private void observe(TimelineState s, String name, Long from, Long to, Histogram h) {
    if (from == null || to == null || !mark(s, name)) {
      return;
    }
    h.labelValues(labels(s).values()).observe(Math.max(0, to - from) / 1000.0);
  }

  /** Records that a figure was reported for the pod; false if it already was. */
  private static boolean mark(TimelineState s, String figure) {
    if (s.getBookkeeping().getObserved().contains(figure)) {
      return false;
    }
    List<String> observed = new ArrayList<>(s.getBookkeeping().getObserved());
    observed.add(figure);
    s.getBookkeeping().setObserved(observed);
    return true;
  }
}
