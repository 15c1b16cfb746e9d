package io.schedlens.projections.recorded;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.projections.dcgm.GpuSampleAssembler.KeyedGpuSample;
import io.schedlens.testsupport.Fixtures;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RecordedScrapesTest {

  /** A real scrape with every sample stamped with the given time, as a recorder would write it. */
  static String stamped(String exposition, long ms) {
    return exposition
        .lines()
        .map(l -> l.isBlank() || l.startsWith("#") ? l : l + " " + ms)
        .collect(Collectors.joining("\n", "", "\n"));
  }

  @Test
  void shouldSplitAFileIntoScrapesByTimestampAndAssembleOneSamplePerGpu() {
    String real = Fixtures.text("dcgm/issue-dcgm-exporter-490-h100-pod-labels.prom");
    String file = stamped(real, 1_700_000_000_000L) + stamped(real, 1_700_000_015_000L);
    Unusable unusable = new Unusable();
    List<KeyedGpuSample> samples = RecordedScrapes.read("capture.prom", file, unusable);
    List<Long> times = samples.stream().map(s -> s.sample().getTime()).distinct().toList();
    assertThat(times).containsExactly(1_700_000_000_000L, 1_700_000_015_000L);
    long perScrape =
        samples.stream().filter(s -> s.sample().getTime() == 1_700_000_000_000L).count();
    assertThat(samples).hasSize((int) perScrape * 2);
    assertThat(perScrape).isPositive();
    assertThat(unusable.counts()).doesNotContainKey(RecordedScrapes.NO_TIMESTAMP);
  }

  @Test
  void shouldSkipAMalformedLineAndCountSamplesWithoutTime() {
    String real = Fixtures.text("dcgm/issue-dcgm-exporter-490-h100-pod-labels.prom");
    String file = stamped(real, 1_700_000_000_000L) + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 12\n" + real;
    Unusable unusable = new Unusable();
    List<KeyedGpuSample> samples = RecordedScrapes.read("capture.prom", file, unusable);
    assertThat(samples).isNotEmpty().allMatch(s -> s.sample().getTime() == 1_700_000_000_000L);
    assertThat(unusable.counts())
        .containsEntry(RecordedScrapes.MALFORMED_LINE, 1)
        .containsKey(RecordedScrapes.NO_TIMESTAMP);
  }
}
