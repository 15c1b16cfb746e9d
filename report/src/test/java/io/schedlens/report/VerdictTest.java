package io.schedlens.report;

import static io.schedlens.report.ExperimentReportTest.job;
import static io.schedlens.report.ExperimentReportTest.server;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerdictTest {

  static ExperimentReport report(List<PodFacts> pods) {
    return ExperimentReport.of("day08", pods, 600_000);
  }

  @Test
  void shouldCallADifferenceClearOnlyWhenEveryRepeatIsOnTheSameSide() {
    List<PodFacts> pods = new ArrayList<>();
    // chat: treatment pending 2-4 s, control 100-160 s: no overlap -> clear.
    // batch pending: treatment 60-300 s, control 100-200 s: overlap -> within the spread.
    long[][] chat = {{2_000, 100_000}, {4_000, 160_000}, {3_000, 130_000}};
    long[][] batch = {{60_000, 100_000}, {300_000, 200_000}, {150_000, 150_000}};
    for (int r = 0; r < 3; r++) {
      String rep = Integer.toString(r + 1);
      pods.add(server("treatment", rep, chat[r][0], chat[r][0] + 90_000, 0));
      pods.add(server("control", rep, chat[r][1], chat[r][1] + 90_000, 0));
      pods.add(job("treatment", rep, batch[r][0], true, 600, false));
      pods.add(job("control", rep, batch[r][1], false, 0, false));
    }
    List<Verdict> verdicts = Verdict.of(report(pods));
    assertThat(verdicts)
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.arm()).isEqualTo("treatment");
              assertThat(v.answers())
                  .anyMatch(
                      a ->
                          a.startsWith("chat: pending p95")
                              && a.contains("better, larger than the spread"))
                  .anyMatch(
                      a ->
                          a.startsWith("asr: pending p50")
                              && a.contains("within the spread between repeats: not shown"))
                  .anyMatch(
                      a ->
                          a.startsWith(
                              "asr: wasted GPU time 0.17 GPU-hours per repeat in treatment against 0.00"))
                  .contains("Nothing starves in treatment.");
              assertThat(v.summary())
                  .startsWith("treatment against control: chat pending p95")
                  .contains("at a cost: asr loses 0.17 GPU-hours more per repeat")
                  .doesNotContain("asr pending p50");
            });
  }

  @Test
  void shouldSayThatOneRepeatShowsNoSpreadAndNameWhoStarves() {
    List<PodFacts> pods =
        List.of(
            server("treatment", "1", 1_000, 60_000L, 0),
            server("control", "1", 90_000, 150_000L, 0),
            job("treatment", "1", 900_000, false, 0, true),
            job("control", "1", 1_000, false, 0, false));
    Verdict v = Verdict.of(report(pods)).get(0);
    assertThat(v.answers()).anyMatch(a -> a.contains("one repeat only: no spread to compare with"));
    assertThat(v.answers()).contains("Starving in treatment: asr.");
    assertThat(v.summary()).contains("no clear gain").endsWith("starving: asr.");
  }
}
