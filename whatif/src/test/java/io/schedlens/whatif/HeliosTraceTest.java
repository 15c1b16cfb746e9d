package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodTimeline;
import io.schedlens.timeline.TimelineSettings;
import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Helios job logs as observed pod lives. The rows are written here in the format of HeliosData's
 * {@code cluster_log.csv} (its header and time format); they are not rows of the trace.
 */
class HeliosTraceTest {

  static final String HEADER =
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

  static final String ROWS =
      HEADER
          + "j1,u1,vcA,8,48,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:30,2020-04-01 01:00:30,3600,30\n"
          + "j2,u2,vcB,16,96,2,FAILED,2020-04-01 00:10:00,2020-04-01 00:20:00,2020-04-01 00:50:00,1800,600\n"
          + "j3,u3,vcA,0,4,1,COMPLETED,2020-04-01 00:11:00,2020-04-01 00:11:01,2020-04-01 00:12:01,60,1\n"
          + "j4,u1,vcA,1,6,1,CANCELLED,2020-04-01 00:12:00,,,0,0\n"
          + "j5,u4,vcC,3,6,2,COMPLETED,2020-04-01 00:13:00,2020-04-01 00:13:05,2020-04-01 00:23:05,600,5\n"
          + "j6,u4,vcC,1,6,1,COMPLETED,2020-04-02 00:00:00,2020-04-02 00:00:05,2020-04-02 00:10:05,600,5\n";

  static long t(String utc) {
    return Instant.parse(utc).toEpochMilli();
  }

  @Test
  void shouldMakeAJobOfNodeNumPodsFromEachJobThatRanOnGpus() throws Exception {
    HeliosTrace.Read r =
        HeliosTrace.read(new StringReader(ROWS), "cluster_log.csv", null, Duration.ofDays(1));

    assertThat(r.jobs()).isEqualTo(3);
    assertThat(r.skipped()).isEqualTo(Map.of("no GPU", 1, "never started", 1));
    assertThat(r.pods())
        .extracting(PodTimeline::getName)
        .containsExactly("helios-j1-0", "helios-j2-0", "helios-j2-1", "helios-j5-0", "helios-j5-1");
    PodTimeline j1 = r.pods().get(0);
    assertThat(j1.getWorkload().getKind()).isEqualTo("Job");
    assertThat(j1.getApplication()).isEqualTo("vcA");
    assertThat(j1.getGpus()).isEqualTo(8);
    assertThat(j1.getCreatedAt()).isEqualTo(t("2020-04-01T00:00:00Z"));
    assertThat(j1.getRunningAt()).isEqualTo(t("2020-04-01T00:00:30Z"));
    assertThat(j1.getTerminatedAt()).isEqualTo(t("2020-04-01T01:00:30Z"));
    // 16 GPUs on 2 nodes: 8 each; 3 on 2: 2 each (a pod cannot hold half a GPU)
    assertThat(r.pods()).extracting(PodTimeline::getGpus).containsExactly(8, 8, 8, 2, 2);
    // a failed job needed the time it held its GPUs
    assertThat(r.pods().get(1).getOutcome()).isEqualTo("Succeeded");
  }

  @Test
  void shouldTakeTheWindowAskedFor() throws Exception {
    HeliosTrace.Read r =
        HeliosTrace.read(
            new StringReader(ROWS),
            "cluster_log.csv",
            t("2020-04-01T00:12:00Z"),
            Duration.ofHours(24));

    assertThat(r.pods())
        .extracting(PodTimeline::getName)
        .containsExactly("helios-j5-0", "helios-j5-1", "helios-j6-0");
  }

  @Test
  void shouldPredictTheTraceUnderAPolicy() throws Exception {
    HeliosTrace.Read r =
        HeliosTrace.read(new StringReader(ROWS), "cluster_log.csv", null, Duration.ofDays(1));
    Policy policy =
        PolicyLoader.parse(
            "p",
            """
            name: p
            priorityClasses: [{name: high, value: 1000}, {name: low, value: 10}]
            workloads:
              vcA: {priorityClass: high}
              vcB: {priorityClass: low, setup: 0s}
              vcC: {priorityClass: low}
            nodes: [{name: gpu, count: 4, gpus: 8}]
            """);

    List<WhatIf.Prediction> p =
        new WhatIf(policy, TimelineSettings.defaults())
            .predict(ObservedRun.of(r.pods(), List.of()), WhatIf.Progress.NONE);

    // room for every job at once on the policy's four 8-GPU nodes: each runs to completion
    assertThat(p.get(0).timelines().values())
        .filteredOn(t -> "Succeeded".equals(t.getOutcome()))
        .extracting(t -> t.getWorkload().getName())
        .containsExactlyInAnyOrder("helios-j1", "helios-j2", "helios-j2", "helios-j5", "helios-j5");
  }

  @Test
  void shouldNameTheLineAndColumnOfARowItCannotRead() {
    assertThatThrownBy(
            () ->
                HeliosTrace.read(
                    new StringReader(
                        HEADER
                            + "j1,u1,vcA,8,48,1,COMPLETED,2020/04/01 00:00,2020-04-01 00:00:30,2020-04-01 01:00:30,3600,30\n"),
                    "cluster_log.csv",
                    null,
                    Duration.ofDays(1)))
        .hasMessage(
            "cluster_log.csv line 2: submit_time is '2020/04/01 00:00', expected a time as"
                + " yyyy-MM-dd HH:mm:ss");
    assertThatThrownBy(
            () ->
                HeliosTrace.read(
                    new StringReader("jobid,gpus\n1,2\n"), "jobs.csv", null, Duration.ofDays(1)))
        .hasMessageStartingWith("jobs.csv: not a Helios cluster_log.csv");
  }
}
