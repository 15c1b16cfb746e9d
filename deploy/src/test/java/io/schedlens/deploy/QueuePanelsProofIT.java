package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.simulator.cluster.PodTruth;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The on-call dashboard's Kueue panels, proven on the {@code kueue} demo (two teams' ClusterQueues
 * in one cohort, borrowing and reclaiming; the live collector watching the simulated cluster's
 * Workloads) under a real Prometheus: both panels show data; the admissions and Kueue preemptions
 * Prometheus counted are the ones the workload timelines tell; and the live pipeline's queue fields
 * are the simulator's ground truth.
 */
class QueuePanelsProofIT {

  static final String WAIT_PANEL = "Kueue admission wait p95 by queue and class";
  static final String EVICTIONS_PANEL = "Kueue preemptions and evictions by reason";

  @TempDir static Path work;
  static ScrapedDemo run;

  @BeforeAll
  static void runTheKueueDemoWhilePrometheusScrapes() throws Exception {
    run = ScrapedDemo.run(work, "kueue");
  }

  @AfterAll
  static void stopPrometheus() throws Exception {
    if (run != null) {
      run.close();
    }
  }

  @Test
  void shouldShowTheQueuePanelsWithData() throws Exception {
    assertThat(run.demo.missing()).isEmpty();
    for (String title : new String[] {WAIT_PANEL, EVICTIONS_PANEL}) {
      ScrapedDemo.PanelData shown =
          run.panel(Dashboards.all().get("gpu-priority-preemption.json"), title);
      assertThat(shown.seen()).as(title + ": the panel's queries").isNotEmpty();
      assertThat(shown.data()).as(title + " shows data: " + shown.seen()).isTrue();
    }
  }

  /** Admissions per queue and Kueue preemptions per reason: Prometheus against the timelines. */
  @Test
  void shouldCountTheAdmissionsAndPreemptionsTheWorkloadTimelinesTell() throws Exception {
    Map<String, Double> admissions = new TreeMap<>();
    Map<String, Double> preemptions = new TreeMap<>();
    for (WorkloadTimeline w : run.demo.workloads().values()) {
      for (QueueAdmission a : w.getAdmissions()) {
        if (a.getAdmittedAt() != null) {
          admissions.merge(a.getQueue(), 1.0, Double::sum);
        }
        if (a.getEviction() != null && "Preempted".equals(a.getEviction().getReason())) {
          preemptions.merge(a.getEviction().getPreemptionReason(), 1.0, Double::sum);
        }
      }
    }
    assertThat(admissions).as("admissions in the demo").containsOnlyKeys("asr", "embed");
    assertThat(preemptions)
        .as("Kueue's preemptions in the demo")
        .containsKey("InCohortReclamation");
    String range = run.variables().get("__range");
    assertThat(
            scraped(
                "sum by (queue) (max_over_time(schedlens_queue_wait_seconds_count[%s]))"
                    .formatted(range),
                "queue"))
        .isEqualTo(admissions);
    assertThat(
            scraped(
                ("sum by (preemption_reason) (max_over_time("
                        + "schedlens_queue_evictions_total{cause=\"queue-preemption\"}[%s]))")
                    .formatted(range),
                "preemption_reason"))
        .isEqualTo(preemptions);
  }

  /**
   * The live pipeline (the collector watching the simulated API's Workloads) against the
   * simulator's ground truth: every pod's queue, admission and wait, and Kueue's victims. Kueue's
   * times are whole seconds.
   */
  @Test
  void shouldMatchTheSimulatorsQueueTruthLive() {
    SoftAssertions soft = new SoftAssertions();
    for (PodTruth truth : run.demo.truth()) {
      PodTimeline t = run.demo.finals().get(truth.uid());
      String pod = truth.name() + " (" + truth.arm() + ")";
      soft.assertThat(t.getQueue()).as(pod + " queue").isEqualTo(truth.queue());
      if (truth.queueWaitMs() != null && t.getQueueWaitMs() != null) {
        soft.assertThat(t.getQueueWaitMs() - truth.queueWaitMs())
            .as(pod + " queueWaitMs")
            .isBetween(-1000L, 1000L);
      } else {
        soft.assertThat(t.getQueueWaitMs()).as(pod + " queueWaitMs").isEqualTo(truth.queueWaitMs());
      }
      if ("queue-preemption".equals(truth.cause())) {
        soft.assertThat(t.getDisruption()).as(pod + " disruption").isNotNull();
        if (t.getDisruption() != null) {
          soft.assertThat(t.getDisruption().getCause()).as(pod).isEqualTo("queue-preemption");
        }
      }
    }
    soft.assertAll();
  }

  private static Map<String, Double> scraped(String query, String label) throws Exception {
    Map<String, Double> out = new TreeMap<>();
    for (JsonNode series : run.callInstant(query).path("data").path("result")) {
      out.put(series.path("metric").path(label).asText(), series.path("value").get(1).asDouble());
    }
    return out;
  }
}
