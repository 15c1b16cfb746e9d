package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RejectedLinesTest {

  static void add(RejectedLines r, int line, String reason, String raw) {
    byte[] b = raw.getBytes(StandardCharsets.UTF_8);
    r.add(line, reason, "why " + line, Body.of(b), 0, b.length);
  }

  @Test
  void shouldGatherConsecutiveLinesOfOneReasonIntoBoundedDeadLetters() {
    RejectedLines r = new RejectedLines(10);
    add(r, 1, "malformed-json", "xxxx");
    add(r, 2, "malformed-json", "yyyy");
    add(r, 3, "malformed-json", "zzzz"); // 4+1+4+1+4 = 14 > 10: a new chunk
    add(r, 5, "missing-field", "{}");
    List<RejectedLines.Chunk> chunks = r.chunks();
    assertThat(chunks)
        .extracting(
            c -> c.reason() + " " + c.where() + " " + new String(c.raw(), StandardCharsets.UTF_8))
        .containsExactly(
            "malformed-json lines 1-2 (2 lines; the first: why 1) xxxx\nyyyy",
            "malformed-json line 3: why 3 zzzz",
            "missing-field line 5: why 5 {}");
    assertThat(r.count()).isEqualTo(4);
    assertThat(r.byReason()).isEqualTo(Map.of("malformed-json", 3, "missing-field", 1));
  }

  @Test
  void shouldKeepOnlyAFewExamplesAndTheHeadOfALineLongerThanADeadLetter() {
    RejectedLines r = new RejectedLines(8);
    for (int i = 1; i <= 100; i++) {
      add(r, i, "line-too-long", "0123456789abcdef");
    }
    assertThat(r.examples()).hasSize(RejectedLines.EXAMPLES);
    assertThat(r.chunks()).hasSize(100).allSatisfy(c -> assertThat(c.raw()).hasSize(8));
  }
}
