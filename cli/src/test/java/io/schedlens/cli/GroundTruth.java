package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.simulator.cluster.PodTruth;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;

/**
 * Holds pod timelines against the simulator's ground truth, within what Kubernetes' own timestamp
 * granularity allows (creationTimestamp and condition times are whole seconds; events carry
 * microseconds): the demo and the replay of a recorded simulation must both pass.
 */
public final class GroundTruth {

  static final long SECOND = 1000;

  private GroundTruth() {}

  public static void assertMatches(List<PodTruth> truths, Map<String, PodTimeline> timelines) {
    assertThat(timelines.keySet())
        .as("a timeline for every simulated pod")
        .containsAll(truths.stream().map(PodTruth::uid).toList());
    SoftAssertions soft = new SoftAssertions();
    for (PodTruth truth : truths) {
      PodTimeline t = timelines.get(truth.uid());
      String pod = truth.name() + " (" + truth.arm() + " r" + truth.repeat() + ")";
      soft.assertThat(t.getArm()).as(pod + " arm").isEqualTo(truth.arm());
      soft.assertThat(t.getRepeat())
          .as(pod + " repeat")
          .isEqualTo(Integer.toString(truth.repeat()));
      soft.assertThat(t.getPriorityClass()).as(pod + " class").isEqualTo(truth.priorityClass());
      soft.assertThat(t.getOutcome()).as(pod + " outcome").isEqualTo(truth.outcome());
      soft.assertThat(t.getNeverScheduled())
          .as(pod + " neverScheduled")
          .isEqualTo(truth.scheduledAt() == null);
      if (truth.scheduledAt() != null) {
        // createdAt is whole seconds; the Scheduled event is microsecond-precise.
        soft.assertThat(t.getPendingMs() - truth.pendingMs())
            .as(pod + " pending")
            .isBetween(0L, SECOND);
      }
      if (truth.readyAt() != null) {
        soft.assertThat(t.getTimeToReadyMs() - (truth.readyAt() - truth.createdAt()))
            .as(pod + " time to Ready")
            .isBetween(-SECOND, SECOND);
      } else {
        soft.assertThat(t.getReadyAt()).as(pod + " readyAt").isNull();
      }
      if (truth.firstOkRequestAt() != null) {
        soft.assertThat(t.getTimeToFirstOkMs() - (truth.firstOkRequestAt() - truth.createdAt()))
            .as(pod + " time to first OK request")
            .isBetween(0L, SECOND);
      } else {
        soft.assertThat(t.getFirstOkRequestAt()).as(pod + " firstOkRequestAt").isNull();
      }
      soft.assertThat(t.getRequests()).as(pod + " requests").isEqualTo(truth.requests());
      soft.assertThat(t.getErrors()).as(pod + " errors").isEqualTo(truth.errors());
      soft.assertThat(t.getSloBreaches()).as(pod + " SLO breaches").isEqualTo(truth.sloBreaches());
      soft.assertThat(t.getFailedSchedulingCount())
          .as(pod + " FailedScheduling count")
          .isEqualTo(truth.failedSchedulingCount());
      // Preemptor and victims, linked both ways.
      if (truth.preemptorUid() != null) {
        soft.assertThat(t.getPreemptor()).as(pod + " preemptor").isNotNull();
        if (t.getPreemptor() != null) {
          soft.assertThat(t.getPreemptor().getUid())
              .as(pod + " preemptor")
              .isEqualTo(truth.preemptorUid());
        }
        soft.assertThat(t.getPreemptedAt() - truth.preemptedAt())
            .as(pod + " preemptedAt (event time, µs)")
            .isBetween(-1L, 1L);
      } else {
        soft.assertThat(t.getPreemptor()).as(pod + " preemptor").isNull();
      }
      soft.assertThat(Set.copyOf(t.getVictims()))
          .as(pod + " victims")
          .isEqualTo(Set.copyOf(truth.victims()));
      // Wasted GPU-seconds: both ends are whole seconds on the API.
      if (truth.wastedGpuSeconds() != null) {
        soft.assertThat(t.getWastedGpuSeconds()).as(pod + " wasted").isNotNull();
        if (t.getWastedGpuSeconds() != null) {
          soft.assertThat(Math.abs(t.getWastedGpuSeconds() - truth.wastedGpuSeconds()))
              .as(
                  pod
                      + " wasted GPU-seconds "
                      + t.getWastedGpuSeconds()
                      + " vs "
                      + truth.wastedGpuSeconds())
              .isLessThanOrEqualTo(truth.gpus() * 2.0);
        }
      } else {
        soft.assertThat(t.getWastedGpuSeconds()).as(pod + " wasted").isNull();
      }
      if (t.getAllocatedGpuSeconds() != null && t.getBusyGpuSeconds() != null) {
        soft.assertThat(t.getBusyGpuSeconds())
            .as(pod + " busy ≤ allocated (allocation is not utilisation)")
            .isLessThanOrEqualTo(t.getAllocatedGpuSeconds() + 15 * truth.gpus());
      }
    }
    soft.assertAll();
  }
}
