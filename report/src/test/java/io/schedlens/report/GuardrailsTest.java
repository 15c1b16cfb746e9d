package io.schedlens.report;

import static io.schedlens.report.ExperimentReportTest.job;
import static io.schedlens.report.ExperimentReportTest.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GuardrailsTest {

  /** chat: 100 requests per pod; breaches per repeat as given. asr: pending and wasted as given. */
  static ExperimentReport report(
      long[] controlBreaches, long[] treatmentBreaches, boolean starving) {
    List<PodFacts> pods = new ArrayList<>();
    for (int r = 0; r < controlBreaches.length; r++) {
      String rep = Integer.toString(r + 1);
      pods.add(server("control", rep, 100_000, 200_000L, controlBreaches[r]));
      pods.add(server("treatment", rep, 2_000, 90_000L, treatmentBreaches[r]));
      pods.add(job("control", rep, 60_000, false, 0, false));
      pods.add(job("treatment", rep, 1_500_000 + r * 60_000L, true, 1800, starving));
    }
    return ExperimentReport.of("day08", pods, 600_000);
  }

  static Guardrails.Result rule(ExperimentReport r, String rule) {
    return Guardrails.evaluate(r, List.of(rule)).get(0);
  }

  @Test
  void shouldFailWhenPlacementImprovedButUsersGotMoreSloBreaches() {
    // control 4-6 % of requests over the SLO; treatment 9 % in every repeat: beyond the control's
    // worst repeat
    ExperimentReport worse = report(new long[] {4, 6, 5}, new long[] {9, 9, 9}, false);
    Guardrails.Result r = rule(worse, "slo-breach-ratio<=control");
    assertThat(r.pass()).isFalse();
    assertThat(r.detail()).startsWith("rose: chat 9.00% (control 4.00%–6.00%)");
    // 5.5 % is within the control's own spread: not a failure
    assertThat(
            rule(
                    report(new long[] {4, 6, 5}, new long[] {5, 6, 5}, false),
                    "slo-breach-ratio<=control")
                .pass())
        .isTrue();
  }

  @Test
  void shouldCheckStarvationBatchPendingAndWastedWork() {
    ExperimentReport r = report(new long[] {1, 1}, new long[] {1, 1}, true);
    assertThat(rule(r, "no-starving").pass()).isFalse();
    assertThat(rule(r, "no-starving").detail()).isEqualTo("starving: asr");
    Guardrails.Result pending = rule(r, "batch-pending-p95<=20m");
    assertThat(pending.pass()).isFalse();
    assertThat(pending.detail()).contains("asr 26 min 00 s in its worst repeat");
    assertThat(rule(r, "batch-pending-p95<=30m").pass()).isTrue();
    assertThat(rule(r, "wasted-gpu-hours<=0.5").pass()).isTrue();
    assertThat(rule(r, "wasted-gpu-hours<=0.4").pass()).isFalse();
    assertThat(Guardrails.evaluate(r, Guardrails.DEFAULT))
        .extracting(Guardrails.Result::arm)
        .containsOnly("treatment");
  }

  @Test
  void shouldRefuseARuleItDoesNotKnow() {
    assertThatThrownBy(() -> Guardrails.validate(List.of("errors<=control")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'errors<=control' is not one of");
    assertThatThrownBy(() -> Guardrails.validate(List.of("batch-pending-p95<=soon")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
