package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calibration and counterfactual validation ({@link WhatIfValidation}) on the simulator's
 * experiments. CI runs day08 with 10 repeats (the spread of 3 is narrower than one run's luck: a
 * preemption just before or after a checkpoint), dense and kueue with their one; the full run adds
 * pool with 30 (ten runs of pool do not pin a mean to 5 %: one run's asr-batch preemptions range
 * from 16 to 48): {@code mvn -B -pl whatif test -Dtest=WhatIfValidationTest
 * -Dwhatif.scenarios=day08,dense,kueue,pool} (docs/operators/whatif.md has its last result). {@code
 * -Dwhatif.repeats=N} sets every scenario's repeats.
 */
class WhatIfValidationTest {

  static String[] scenarios() {
    return System.getProperty("whatif.scenarios", "day08,dense,kueue").split(",");
  }

  @ParameterizedTest
  @MethodSource("scenarios")
  void shouldPredictTheTreatmentFromTheControlArm(String name) throws Exception {
    Scenario s = ScenarioLoader.load(name);
    int repeats =
        Integer.getInteger(
            "whatif.repeats",
            switch (name) {
              case "day08" -> 10;
              case "pool" -> 30;
              default -> 0;
            });
    if (repeats > 0) {
      s = s.withRepeats(repeats);
    }

    WhatIfValidation.Result r = WhatIfValidation.run(s, "control", "treatment");

    StringBuilder table = new StringBuilder();
    for (WhatIfValidation.Check c :
        java.util.stream.Stream.concat(r.checks().stream(), r.references().stream()).toList()) {
      table.append(
          String.format(
              Locale.ROOT,
              "%-7s %-22s %-22s %-26s observed %9.3f [%9.3f, %9.3f] predicted %9.3f error %+7.1f%% %s%n",
              c.scenario(),
              c.what(),
              c.workload(),
              c.metric(),
              c.observed(),
              c.low(),
              c.high(),
              c.predicted(),
              100 * c.error(),
              !c.ok() ? "FAILED: " + c.why() : c.why().isEmpty() ? "ok" : c.why()));
    }
    System.out.printf("%s, %d repeats, %.0f s:%n%s", name, s.repeats(), r.millis() / 1000.0, table);
    assertThat(r.checks()).as(table.toString()).allMatch(WhatIfValidation.Check::ok);
  }
}
