package io.schedlens.runs.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PodWatchTimesTest {

  private static final long T0 = 1_700_000_000_000L;
  private static final long GRACE = 120_000;

  private static PodWatchTimes.Watched watched(
      String uid, ChangeType change, String file, int line, long rv, long own) {
    PodObservation o =
        PodObservation.newBuilder()
            .setUid(uid)
            .setNamespace("ai-lab")
            .setName("pod-" + uid)
            .setChangeType(change)
            .setObservedAt(0)
            .setCreatedAt(own)
            .setGpus(1)
            .setPriority(0)
            .build();
    return new PodWatchTimes.Watched(o, change, file, line, rv, own);
  }

  /** uid/change -> observedAt of every placed watch event. */
  private static Map<String, Long> times(List<PodObservation> placed) {
    Map<String, Long> t = new TreeMap<>();
    placed.forEach(
        o -> t.merge(o.getUid() + "/" + o.getChangeType(), o.getObservedAt(), Math::max));
    return t;
  }

  @Test
  void shouldGiveAChangeWithoutATimeOfItsOwnTheTimeOfTheStreamAroundIt() {
    List<PodWatchTimes.Watched> w =
        List.of(
            watched("a", ChangeType.ADDED, "pods.json", 1, 10, T0),
            watched("b", ChangeType.ADDED, "pods.json", 2, 11, T0 + 60_000),
            // a's deletion carries no time of its own: it happened after b was added
            watched("a", ChangeType.DELETED, "pods.json", 3, 12, T0));

    assertThat(times(PodWatchTimes.place(w, GRACE)))
        .containsEntry("a/ADDED", T0)
        .containsEntry("b/ADDED", T0 + 60_000)
        .containsEntry("a/DELETED", T0 + 60_000);
  }

  @Test
  void shouldPlaceTheSameWhateverTheOrderOfTheLinesWhenEveryPodHasItsRevision() {
    List<PodWatchTimes.Watched> ordered = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String uid = "p" + i;
      ordered.add(
          watched(uid, ChangeType.ADDED, "pods.json", 3 * i + 1, 3 * i + 1, T0 + i * 10_000));
      ordered.add(
          watched(uid, ChangeType.MODIFIED, "pods.json", 3 * i + 2, 3 * i + 2, T0 + i * 10_000));
      ordered.add(
          watched(uid, ChangeType.DELETED, "pods.json", 3 * i + 3, 3 * i + 3, T0 + i * 10_000));
    }
    Map<String, Long> expected = times(PodWatchTimes.place(copies(ordered), GRACE));

    // Runs by pod, one after another, the later pods first (cat run2 run1), in two files.
    List<PodWatchTimes.Watched> joined = new ArrayList<>();
    for (int i = 29; i >= 0; i--) {
      for (PodWatchTimes.Watched x : ordered) {
        if (x.pod().getUid().equals("p" + i)) {
          joined.add(
              watched(
                  x.pod().getUid(),
                  x.change(),
                  i % 2 == 0 ? "a.json" : "b.json",
                  0,
                  x.resourceVersion(),
                  x.own()));
        }
      }
    }
    assertThat(times(PodWatchTimes.place(joined, GRACE))).isEqualTo(expected);
    List<PodWatchTimes.Watched> shuffled = copies(ordered);
    Collections.shuffle(shuffled, new java.util.Random(7));
    assertThat(times(PodWatchTimes.place(shuffled, GRACE))).isEqualTo(expected);
  }

  @Test
  void shouldTakeEachFileAsItsOwnStreamWithoutRevisions() {
    List<PodWatchTimes.Watched> w =
        List.of(
            watched("a", ChangeType.ADDED, "one.json", 1, -1, T0 + 600_000),
            watched("b", ChangeType.ADDED, "two.json", 1, -1, T0),
            watched("b", ChangeType.DELETED, "two.json", 2, -1, T0));

    // b's deletion is not pushed to the time of another file's stream
    assertThat(times(PodWatchTimes.place(w, GRACE))).containsEntry("b/DELETED", T0);
  }

  @Test
  void shouldRefuseWithoutRevisionsAPodWhoseFactsGoBackwardsNamingFileAndLine() {
    List<PodWatchTimes.Watched> w =
        List.of(
            watched("a", ChangeType.ADDED, "pods.json", 1, -1, T0),
            watched("a", ChangeType.MODIFIED, "pods.json", 2, -1, T0 + 30_000),
            watched("a", ChangeType.MODIFIED, "pods.json", 3, -1, T0 + 10_000));

    assertThatThrownBy(() -> PodWatchTimes.place(w, GRACE))
        .isInstanceOf(PodWatchTimes.OrderBroken.class)
        .hasMessageStartingWith("pods.json:3: the watch events of this file go back in time")
        .hasMessageContaining("pods.json:2");
  }

  @Test
  void shouldRefuseWithoutRevisionsASecondRecordingAppendedToTheFirst() {
    List<PodWatchTimes.Watched> w =
        List.of(
            watched("a", ChangeType.ADDED, "pods.json", 1, -1, T0 + 3_600_000),
            watched("a", ChangeType.DELETED, "pods.json", 2, -1, T0 + 3_700_000),
            watched("b", ChangeType.ADDED, "pods.json", 3, -1, T0));

    assertThatThrownBy(() -> PodWatchTimes.place(w, GRACE))
        .isInstanceOf(PodWatchTimes.OrderBroken.class)
        .hasMessageStartingWith("pods.json:3:")
        .hasMessageContaining("a second recording appended");
  }

  @Test
  void shouldAcceptTheInitialListingOfAWatchInAnyOrderOfTime() {
    List<PodWatchTimes.Watched> w =
        List.of(
            watched("a", ChangeType.ADDED, "pods.json", 1, -1, T0 + 3_600_000),
            watched("b", ChangeType.ADDED, "pods.json", 2, -1, T0),
            watched("b", ChangeType.MODIFIED, "pods.json", 3, -1, T0));

    assertThat(times(PodWatchTimes.place(w, GRACE)))
        .containsEntry("b/ADDED", T0)
        .containsEntry("b/MODIFIED", T0 + 3_600_000);
  }

  @Test
  void shouldReadARevisionOnlyFromANumber() {
    assertThat(PodWatchTimes.revision("5361638")).isEqualTo(5361638L);
    assertThat(PodWatchTimes.revision(null)).isEqualTo(-1);
    assertThat(PodWatchTimes.revision("")).isEqualTo(-1);
    assertThat(PodWatchTimes.revision("opaque-v7")).isEqualTo(-1);
  }

  private static List<PodWatchTimes.Watched> copies(List<PodWatchTimes.Watched> w) {
    List<PodWatchTimes.Watched> out = new ArrayList<>();
    for (PodWatchTimes.Watched x : w) {
      out.add(
          watched(x.pod().getUid(), x.change(), x.file(), x.line(), x.resourceVersion(), x.own()));
    }
    return out;
  }
}
