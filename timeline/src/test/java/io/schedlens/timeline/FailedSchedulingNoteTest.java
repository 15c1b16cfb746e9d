package io.schedlens.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.testsupport.Fixtures;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** FailedScheduling notes as real clusters wrote them (testdata/real/events). */
class FailedSchedulingNoteTest {

  /** The message column of the real `kubectl describe` / `get events` lines. */
  static String realLine(String file, String contains) {
    Matcher m =
        Pattern.compile("(0/\\d+ nodes are available: .*)$", Pattern.MULTILINE)
            .matcher(Fixtures.text("events/" + file));
    while (m.find()) {
      if (m.group(1).contains(contains)) {
        return m.group(1).strip();
      }
    }
    throw new AssertionError("no line with " + contains + " in " + file);
  }

  @Test
  void shouldReadAGpuShortageWithFailedPreemption() {
    String note =
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    assertThat(Fixtures.text("events/troubleshoot-message-image-pull-fail.json")).contains(note);

    FailedSchedulingNote.Parsed p = FailedSchedulingNote.parse(note);

    assertThat(p.totalNodes()).isEqualTo(1);
    assertThat(p.reasons()).containsExactly(Map.entry("Insufficient nvidia.com/gpu", 1));
    assertThat(p.preemptionAttempted()).isTrue();
  }

  @Test
  void shouldReadTheDraPrefixAndTheNewTaintWording() {
    String note =
        realLine(
            "cncf-ai-conformance-failedscheduling-gpu-describe-lines.txt",
            "no new claims to deallocate");

    FailedSchedulingNote.Parsed p = FailedSchedulingNote.parse(note);

    assertThat(p.totalNodes()).isEqualTo(3);
    assertThat(p.reasons())
        .containsExactly(
            Map.entry(FailedSchedulingNote.UNTOLERATED_TAINT, 1),
            Map.entry("Insufficient nvidia.com/gpu", 2));
    assertThat(p.preemptionAttempted()).isTrue();
  }

  @Test
  void shouldReadTheOldTaintWordingWhoseTextHoldsACommaAndPreemptionNotEligible() {
    String note = realLine("issue-excerpts-preemption-event-lines.txt", "preemptionPolicy=Never");

    FailedSchedulingNote.Parsed p = FailedSchedulingNote.parse(note);

    assertThat(p.totalNodes()).isEqualTo(4);
    assertThat(p.reasons())
        .containsExactly(
            Map.entry("Insufficient cpu", 1),
            Map.entry(FailedSchedulingNote.UNTOLERATED_TAINT, 1),
            Map.entry(FailedSchedulingNote.NODE_AFFINITY, 2));
    assertThat(p.preemptionAttempted()).isFalse();
    assertThat(p.preemptionNotEligible()).isTrue();
  }

  @Test
  void shouldReadTheTaintsWordingOfNewerVersions() {
    FailedSchedulingNote.Parsed p =
        FailedSchedulingNote.parse(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.");

    assertThat(p.reasons())
        .containsExactly(
            Map.entry(FailedSchedulingNote.UNTOLERATED_TAINT, 1),
            Map.entry("Insufficient nvidia.com/gpu", 3));
  }

  @Test
  void shouldKeepTheCompleteReasonsOfATruncatedNote() {
    FailedSchedulingNote.Parsed p =
        FailedSchedulingNote.parse(
            "0/12 nodes are available: 4 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint {nvidia.com/gpu: present}, 5 node(s) didn't match Pod's node aff ...");

    assertThat(p.totalNodes()).isEqualTo(12);
    assertThat(p.reasons())
        .containsExactly(
            Map.entry("Insufficient nvidia.com/gpu", 4),
            Map.entry(FailedSchedulingNote.UNTOLERATED_TAINT, 3),
            Map.entry(FailedSchedulingNote.TRUNCATED, 5));
  }

  @Test
  void shouldKeepAnUnknownNoteAsItsFirstSentence() {
    assertThat(
            FailedSchedulingNote.parse(
                    "skip schedule deleting pod: default/pending-pod-resources-5fddcf7688-djjfc")
                .reasons())
        .containsOnlyKeys(
            "skip schedule deleting pod: default/pending-pod-resources-5fddcf7688-djjfc");
    assertThat(
            FailedSchedulingNote.parse(
                    "0/10 nodes are available: 10 Pod quota1/nginx-5b85c78645-crszx is rejected in Prefilter because ElasticQuota quota1 is more than Max.")
                .reasons())
        .containsExactly(
            Map.entry(
                "Pod quota1/nginx-5b85c78645-crszx is rejected in Prefilter because ElasticQuota quota1 is more than Max",
                10));
    assertThat(FailedSchedulingNote.parse(null).reasons()).isEmpty();
  }

  @Test
  void shouldReadThePalettePreemptionWordingWithBothPreemptionReasons() {
    String note =
        realLine(
            "cncf-ai-conformance-failedscheduling-gpu-describe-lines.txt",
            "1 Preemption is not helpful for scheduling, 2 No");

    FailedSchedulingNote.Parsed p = FailedSchedulingNote.parse(note);

    assertThat(p.reasons())
        .containsEntry("Insufficient nvidia.com/gpu", 2)
        .containsEntry(FailedSchedulingNote.UNTOLERATED_TAINT, 1);
    assertThat(p.preemptionAttempted()).isTrue();
  }
}
