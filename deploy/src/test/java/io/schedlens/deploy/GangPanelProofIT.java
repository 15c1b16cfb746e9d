package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.avro.WorkloadTimeline;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The on-call dashboard's gang panel, proven on the {@code gangs} demo (JobSets whose pods are
 * scheduled one by one on a full cluster) under a real Prometheus: the panel shows data, and the
 * GPU-seconds Prometheus holds are the ones the workload timelines say, kind by kind.
 */
class GangPanelProofIT {

  static final String PANEL = "GPU-hours held waiting for gangs by class and workload kind";

  @TempDir static Path work;
  static ScrapedDemo run;

  @BeforeAll
  static void runTheGangsDemoWhilePrometheusScrapes() throws Exception {
    run = ScrapedDemo.run(work, "gangs");
  }

  @AfterAll
  static void stopPrometheus() throws Exception {
    if (run != null) {
      run.close();
    }
  }

  @Test
  void shouldShowTheGangWaitPanelWithData() throws Exception {
    assertThat(run.demo.missing()).isEmpty();
    ScrapedDemo.PanelData shown =
        run.panel(Dashboards.all().get("gpu-priority-preemption.json"), PANEL);
    assertThat(shown.seen()).as("the panel's queries").isNotEmpty();
    assertThat(shown.data()).as(PANEL + " shows data: " + shown.seen()).isTrue();
  }

  @Test
  void shouldHoldTheGangWaitTheWorkloadTimelinesSayKindByKind() throws Exception {
    Map<String, Double> timelines = new TreeMap<>();
    for (WorkloadTimeline w : run.demo.workloads().values()) {
      if (w.getGangWaitGpuSeconds() != null) {
        timelines.merge(w.getKind(), w.getGangWaitGpuSeconds(), Double::sum);
      }
    }
    assertThat(timelines).as("gangs that waited in the demo").containsKey("JobSet");
    assertThat(timelines.get("JobSet")).isPositive();
    Map<String, Double> scraped = new TreeMap<>();
    // The last value of each series (a counter only grows), as the apps were stopped at the end.
    String last =
        "sum by (workload_kind) (max_over_time(schedlens_gang_wait_gpu_seconds_total[%s]))"
            .formatted(run.variables().get("__range"));
    for (JsonNode series : run.callInstant(last).path("data").path("result")) {
      scraped.put(
          series.path("metric").path("workload_kind").asText(),
          series.path("value").get(1).asDouble());
    }
    assertThat(scraped).containsOnlyKeys(timelines.keySet());
    timelines.forEach(
        (kind, seconds) ->
            assertThat(scraped.get(kind)).as(kind).isCloseTo(seconds, within(1e-6 * seconds)));
  }
}
