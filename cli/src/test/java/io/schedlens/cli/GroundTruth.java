package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.simulator.cluster.ClusterRun;
import io.schedlens.simulator.cluster.GangTruth;
import io.schedlens.simulator.cluster.PodTruth;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
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
      if (truth.cause() != null) {
        soft.assertThat(t.getDisruption()).as(pod + " disruption").isNotNull();
        if (t.getDisruption() != null) {
          soft.assertThat(t.getDisruption().getCause())
              .as(pod + " disruption cause")
              .isEqualTo(truth.cause());
        }
      }
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
      // Kueue: the LocalQueue, the admission that let the pod be created, and its wait. The
      // Workload's creation and conditions are whole seconds.
      soft.assertThat(t.getQueue()).as(pod + " queue").isEqualTo(truth.queue());
      if (truth.admittedAt() == null) {
        soft.assertThat(t.getAdmittedAt()).as(pod + " admittedAt").isNull();
        soft.assertThat(t.getQueueWaitMs()).as(pod + " queueWaitMs").isNull();
      } else {
        soft.assertThat(t.getAdmittedAt()).as(pod + " admittedAt").isNotNull();
        soft.assertThat(t.getQueueWaitMs()).as(pod + " queueWaitMs").isNotNull();
        if (t.getAdmittedAt() != null && t.getQueueWaitMs() != null) {
          soft.assertThat(t.getAdmittedAt() - truth.admittedAt())
              .as(pod + " admittedAt")
              .isBetween(-SECOND, 0L);
          soft.assertThat(t.getQueueWaitMs() - truth.queueWaitMs())
              .as(pod + " queueWaitMs")
              .isBetween(-SECOND, SECOND);
        }
      }
      if ("queue-preemption".equals(truth.cause())) {
        soft.assertThat(t.getPreemptedAt()).as(pod + " preemptedAt").isNotNull();
        if (t.getPreemptedAt() != null) {
          soft.assertThat(t.getPreemptedAt() - truth.preemptedAt())
              .as(pod + " preemptedAt (Kueue's Evicted condition, whole seconds)")
              .isBetween(-SECOND, 0L);
        }
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
      gpuEquivalents(soft, pod, truth, t);
    }
    soft.assertAll();
  }

  /**
   * A pod that ran held {@code gpuShare} of a GPU per device (a MIG slice's compute slices, a
   * time-sliced replica's 1/replicas) and its allocated GPU-seconds are GPU-equivalents: devices ×
   * share × running time, whose ends are whole seconds on the API.
   */
  private static void gpuEquivalents(
      SoftAssertions soft, String pod, PodTruth truth, PodTimeline t) {
    if (truth.gpus() <= 0 || truth.runningAt() == null) {
      return;
    }
    soft.assertThat(t.getGpuShare())
        .as(pod + " gpuShare")
        .isNotNull()
        .isCloseTo(truth.gpuShare(), org.assertj.core.api.Assertions.within(1e-9));
    if (truth.terminatedAt() != null && t.getAllocatedGpuSeconds() != null) {
      double gpus = truth.gpus() * truth.gpuShare();
      double expected = gpus * (truth.terminatedAt() - truth.runningAt()) / 1000.0;
      soft.assertThat(Math.abs(t.getAllocatedGpuSeconds() - expected))
          .as(
              pod
                  + " allocated GPU-equivalent seconds "
                  + t.getAllocatedGpuSeconds()
                  + " vs "
                  + expected)
          .isLessThanOrEqualTo(gpus * 2.0);
    }
  }

  /**
   * Holds the JobSets' workload timelines against the gangs the simulator lived: {@code
   * gangRunningAt} within a second (a container's startedAt is whole seconds), {@code
   * gangWaitGpuSeconds} within three seconds per GPU of the gang (each worker's creation and start,
   * and the last worker's start, are whole seconds).
   */
  public static void assertGangsMatch(
      List<GangTruth> gangs, List<PodTruth> pods, Collection<WorkloadTimeline> workloads) {
    SoftAssertions soft = new SoftAssertions();
    for (GangTruth g : gangs) {
      String what = g.jobSet() + " (" + g.arm() + " r" + g.repeat() + ")";
      WorkloadTimeline w =
          workloads.stream()
              .filter(
                  x ->
                      x.getKind().equals("JobSet")
                          && x.getName().equals(g.jobSet())
                          && g.arm().equals(x.getArm())
                          && Integer.toString(g.repeat()).equals(x.getRepeat()))
              .findFirst()
              .orElse(null);
      soft.assertThat(w).as("a workload timeline for the JobSet " + what).isNotNull();
      if (w == null) {
        continue;
      }
      if (g.runningAt() == null) {
        soft.assertThat(w.getGangRunningAt()).as(what + " gangRunningAt").isNull();
      } else {
        soft.assertThat(w.getGangRunningAt()).as(what + " gangRunningAt").isNotNull();
        if (w.getGangRunningAt() != null) {
          soft.assertThat(w.getGangRunningAt() - g.runningAt())
              .as(what + " gangRunningAt")
              .isBetween(-SECOND, SECOND);
        }
      }
      double tolerance =
          3.0
              * pods.stream()
                  .filter(
                      p ->
                          p.name().startsWith(g.jobSet() + "-")
                              && p.arm().equals(g.arm())
                              && p.repeat() == g.repeat())
                  .mapToInt(PodTruth::gpus)
                  .sum();
      soft.assertThat(w.getGangWaitGpuSeconds())
          .as(what + " gangWaitGpuSeconds")
          .isNotNull()
          .isCloseTo(g.waitGpuSeconds(), org.assertj.core.api.Assertions.within(tolerance));
    }
    soft.assertAll();
  }

  /**
   * Holds the Deployments' workload timelines against the simulator's service interruptions
   * (tracked live by its ReplicaSet controllers) and every evicted or preempted serving pod's
   * recovery against its replacement's exact times: each within a second, the granularity of the
   * DisruptionTarget and Ready conditions' times.
   */
  public static void assertServiceMatches(
      List<ClusterRun.ServiceInterruption> interruptions,
      List<PodTruth> pods,
      Collection<WorkloadTimeline> workloads) {
    SoftAssertions soft = new SoftAssertions();
    Map<String, WorkloadTimeline> deployments = new HashMap<>();
    for (WorkloadTimeline w : workloads) {
      if (w.getKind().equals("Deployment")) {
        deployments.put(w.getName(), w);
      }
    }
    Set<String> serving = new HashSet<>();
    pods.stream()
        .filter(p -> p.workloadKind().equals("Deployment"))
        .forEach(p -> serving.add(p.workload()));
    for (String name : serving) {
      WorkloadTimeline w = deployments.get(name);
      soft.assertThat(w).as("a workload timeline for Deployment " + name).isNotNull();
      if (w == null) {
        continue;
      }
      List<ClusterRun.ServiceInterruption> expected =
          interruptions.stream().filter(i -> i.workload().equals(name)).toList();
      soft.assertThat(w.getInterruptions())
          .as(name + ": as many interruptions as the simulator lived")
          .hasSize(expected.size());
      for (ClusterRun.ServiceInterruption truth : expected) {
        String what = name + " interruption of " + truth.arm() + " r" + truth.repeat();
        ServiceInterval found =
            w.getInterruptions().stream()
                .filter(
                    i ->
                        truth.arm().equals(i.getArm())
                            && Integer.toString(truth.repeat()).equals(i.getRepeat())
                            && Math.abs(i.getStart() - truth.start()) <= SECOND)
                .findFirst()
                .orElse(null);
        soft.assertThat(found).as(what + " starting at " + truth.start()).isNotNull();
        if (found == null) {
          continue;
        }
        soft.assertThat(found.getCause()).as(what + " cause").isEqualTo(truth.cause());
        if (truth.end() == null) {
          soft.assertThat(found.getEnd()).as(what + " still open").isNull();
        } else {
          soft.assertThat(found.getEnd()).as(what + " end").isNotNull();
          if (found.getEnd() != null) {
            soft.assertThat(found.getEnd() - truth.end())
                .as(what + " end")
                .isBetween(-SECOND, SECOND);
            soft.assertThat(found.getDurationMs() - (truth.end() - truth.start()))
                .as(what + " duration")
                .isBetween(-SECOND, SECOND);
          }
        }
      }
      // Recoveries: every serving pod ended early, to its replacement's Ready and first OK.
      List<PodTruth> mine = pods.stream().filter(p -> p.workload().equals(name)).toList();
      for (PodTruth d : mine) {
        if (d.cause() == null) {
          continue;
        }
        String what =
            name + " recovery from " + d.name() + " (" + d.arm() + " r" + d.repeat() + ")";
        PodTruth replacement =
            mine.stream()
                .filter(
                    p ->
                        p.arm().equals(d.arm())
                            && p.repeat() == d.repeat()
                            && !p.uid().equals(d.uid())
                            && p.createdAt() >= d.deletionRequestedAt())
                .min(java.util.Comparator.comparingLong(PodTruth::createdAt))
                .orElse(null);
        Recovery r =
            w.getRecoveries().stream()
                .filter(x -> x.getPod().equals(d.uid()))
                .findFirst()
                .orElse(null);
        soft.assertThat(r).as(what).isNotNull();
        if (r == null || replacement == null) {
          continue;
        }
        soft.assertThat(r.getReplacement()).as(what + " replacement").isEqualTo(replacement.uid());
        within(
            soft,
            what + " to Ready",
            r.getToReadyMs(),
            d.deletionRequestedAt(),
            replacement.readyAt());
        within(
            soft,
            what + " to first OK",
            r.getToFirstOkMs(),
            d.deletionRequestedAt(),
            replacement.firstOkRequestAt());
      }
    }
    soft.assertAll();
  }

  private static void within(SoftAssertions soft, String what, Long actual, long from, Long to) {
    if (to == null) {
      soft.assertThat(actual).as(what).isNull();
      return;
    }
    soft.assertThat(actual).as(what).isNotNull();
    if (actual != null) {
      soft.assertThat(actual - (to - from)).as(what).isBetween(-SECOND, SECOND);
    }
  }
}
