package io.schedlens.projections.dcgm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.schedlens.projections.dcgm.ExpositionParser.Format;
import io.schedlens.testsupport.Fixtures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated real inputs: the parsers either parse or say clearly where the input is
 * broken; no other exception, no hang. Seeded, so a failure is reproducible from its seed.
 */
class ExpositionFuzzTest {

  private static final String ALPHABET = "{}\",=\\\n \t#:_aZ09.+-eEIfNn\r\u00e9\u0000";

  @Test
  void shouldOnlyEverThrowAClearParseErrorOnMutatedRealScrapes() {
    List<String> seeds = new ArrayList<>();
    for (Path p : Fixtures.list("dcgm", ".prom")) {
      seeds.add(Fixtures.text("dcgm/" + p.getFileName()));
    }
    SplittableRandom random = new SplittableRandom(20261129);
    int parsed = 0;
    int rejected = 0;
    for (int i = 0; i < 30_000; i++) {
      String input = mutate(seeds.get(random.nextInt(seeds.size())), random);
      Format format = random.nextBoolean() ? Format.PROMETHEUS_TEXT : Format.OPENMETRICS;
      if (check(input, format, i)) {
        parsed++;
      } else {
        rejected++;
      }
    }
    assertThat(parsed).as("some mutations stay valid").isPositive();
    assertThat(rejected).as("most mutations break the input").isPositive();
  }

  @Test
  void shouldOnlyEverThrowAClearParseErrorOnRandomText() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = random.nextInt(200);
      for (int k = 0; k < len; k++) {
        sb.append(
            random.nextInt(10) == 0
                ? (char) random.nextInt(0x3000)
                : ALPHABET.charAt(random.nextInt(ALPHABET.length())));
      }
      check(sb.toString(), random.nextBoolean() ? Format.PROMETHEUS_TEXT : Format.OPENMETRICS, i);
    }
  }

  @Test
  void shouldOnlyEverThrowAClearParseErrorOnMutatedPrometheusApiAnswers() {
    String seed =
        Fixtures.text(
            "dcgm/aicr-h100-eks-prometheus-query-fb-used-exported-labels-2026-02-19.json");
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 3_000; i++) {
      String input = mutate(seed, random);
      try {
        GpuSampleAssembler.assemble(PrometheusQueryResultParser.parse(input), 0L, "t", null);
      } catch (ExpositionFormatException e) {
        assertThat(e.getMessage()).isNotBlank();
      } catch (RuntimeException e) {
        fail("iteration " + i + ": unexpected " + e + " for input:\n" + input, e);
      }
    }
  }

  private static boolean check(String input, Format format, int iteration) {
    try {
      List<ExpositionSample> samples = ExpositionParser.parse(input, format);
      GpuSampleAssembler.assemble(samples, 0L, "fuzz", null);
      return true;
    } catch (ExpositionFormatException e) {
      assertThat(e.getMessage()).startsWith("line ");
      assertThat(e.line()).isPositive();
      return false;
    } catch (RuntimeException | StackOverflowError e) {
      fail("iteration " + iteration + ": unexpected " + e + " for input:\n" + input, e);
      return false;
    }
  }

  static String mutate(String seed, SplittableRandom random) {
    StringBuilder sb = new StringBuilder(seed);
    int edits = 1 + random.nextInt(4);
    for (int e = 0; e < edits && sb.length() > 0; e++) {
      int at = random.nextInt(sb.length());
      switch (random.nextInt(6)) {
        case 0 -> sb.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        case 1 -> sb.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        case 2 -> sb.delete(at, Math.min(sb.length(), at + 1 + random.nextInt(20)));
        case 3 -> sb.setLength(at);
        case 4 -> {
          int from = random.nextInt(sb.length());
          int to = Math.min(sb.length(), from + random.nextInt(80));
          sb.insert(at, sb.substring(from, to));
        }
        default -> sb.setCharAt(at, (char) random.nextInt(0x10000));
      }
    }
    return sb.toString();
  }
}
