package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.projections.InputBounds;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonLinesBodyTest {

  private static final int MAX_LINE = 64 << 10;

  private final RequestLogParser parser =
      new RequestLogParser(FieldMapping.defaults(), InputBounds.anyTime());

  private static String line(String pod) {
    return "{\"time\":\"2026-11-29T10:00:00.500Z\",\"namespace\":\"ai-lab\",\"pod\":\""
        + pod
        + "\",\"status\":200,\"latency_ms\":12}";
  }

  private WalkRecorder walk(String body) {
    WalkRecorder r = new WalkRecorder();
    JsonLinesBody.walk(Body.of(body.getBytes(StandardCharsets.UTF_8)), MAX_LINE, parser, 42L, r);
    return r;
  }

  @Test
  void shouldReadLinesAndSayWhichLineIsBad() {
    WalkRecorder r = walk(line("chat-0") + "\n\n  \r\n{\"time\":1}\r\n" + line("chat-1"));
    assertThat(r.accepted).extracting(l -> l.getPod()).containsExactly("chat-0", "chat-1");
    assertThat(r.rejected).containsExactly("4 missing-field");
  }

  @Test
  void shouldReadEachElementOfAnArrayAloneWithItsOwnBytesForADeadLetter() {
    WalkRecorder r = walk("[" + line("chat-0") + ", 7, {\"pod\":\"x\"} ," + line("chat-1") + "]");
    assertThat(r.accepted).extracting(l -> l.getPod()).containsExactly("chat-0", "chat-1");
    assertThat(r.rejected).containsExactly("2 not-an-object", "3 missing-field");
    assertThat(r.rejectedRaw).containsExactly("7", "{\"pod\":\"x\"}");
  }

  @Test
  void shouldRejectTheRestOfABodyThatIsNotAWellFormedArray() {
    WalkRecorder r = walk("[" + line("chat-0") + ", {\"a\": ]");
    assertThat(r.accepted).hasSize(1);
    assertThat(r.rejected).containsExactly("2 malformed-json");
  }

  /**
   * An element of nested empty objects far over the line limit is measured as a stream of tokens
   * and rejected unparsed: the walk allocates a small part of what a tree of its 700,000 objects
   * would take.
   */
  @Test
  void shouldRejectAnElementOverTheLineLimitWithoutBuildingItsTree() {
    StringBuilder huge = new StringBuilder("[{\"a\":[");
    for (int i = 0; i < 700_000; i++) {
      huge.append(i == 0 ? "{}" : ",{}");
    }
    huge.append("]},").append(line("chat-0")).append("]");
    Body body = Body.of(huge.toString().getBytes(StandardCharsets.UTF_8));
    WalkRecorder r = new WalkRecorder();
    long allocated =
        WalkRecorder.allocatedBy(() -> JsonLinesBody.walk(body, MAX_LINE, parser, 42L, r));
    assertThat(r.rejected).containsExactly("1 line-too-long");
    assertThat(r.accepted).extracting(l -> l.getPod()).containsExactly("chat-0");
    System.out.printf(
        "JsonLinesBodyTest: a %,d-byte element walked with %,d bytes allocated%n",
        body.length(), allocated);
    assertThat(allocated).as("bytes allocated by the walk").isLessThan(body.length() / 4);
  }
}
