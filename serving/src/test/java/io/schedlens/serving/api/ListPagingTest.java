package io.schedlens.serving.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodTimeline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ListPagingTest {

  private static PodTimeline pod(String uid, Long createdAt) {
    PodTimeline t = new PodTimeline();
    t.setUid(uid);
    t.setCreatedAt(createdAt);
    return t;
  }

  /** 600 pods, many created in the same millisecond, some with no creation time. */
  private static List<PodTimeline> pods(Random random) {
    List<PodTimeline> all = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      Long created = i % 97 == 0 ? null : 1_700_000_000_000L + random.nextInt(300);
      all.add(pod("uid-" + i + (i % 5 == 0 ? "~odd" : ""), created));
    }
    return all;
  }

  /** Three instances over six partitions: pod i lives in partition i % 6. */
  private static List<ListPaging.Part<PodTimeline>> parts(
      List<PodTimeline> all, String after, int limit, Predicate<PodTimeline> filter) {
    List<ListPaging.Part<PodTimeline>> parts = new ArrayList<>();
    int[][] owned = {{0, 3}, {1, 4}, {2, 5}};
    for (int[] partitions : owned) {
      ListPaging.FirstAfter<PodTimeline> first =
          new ListPaging.FirstAfter<>(
              after == null ? null : ListPaging.parseCursor(after), limit, ListPaging::pod);
      Set<Integer> served = new TreeSet<>();
      for (int p : partitions) {
        served.add(p);
        for (int i = 0; i < all.size(); i++) {
          int id = Integer.parseInt(all.get(i).getUid().split("[-~]")[1]);
          if (id % 6 == p && filter.test(all.get(i))) {
            first.offer(all.get(i));
          }
        }
      }
      parts.add(first.part(served));
    }
    return parts;
  }

  @Test
  void shouldPageThroughEveryMatchOnceInListOrderWhateverTheOrderTheInstancesReadIn()
      throws Exception {
    Random random = new Random(7);
    List<PodTimeline> all = pods(random);
    List<PodTimeline> expected = new ArrayList<>(all);
    expected.sort((a, b) -> ListPaging.pod(a).compareTo(ListPaging.pod(b)));
    for (int limit : new int[] {1, 7, 500, 1_000}) {
      Collections.shuffle(all, random);
      List<PodTimeline> seen = new ArrayList<>();
      String after = null;
      int pages = 0;
      do {
        Listing<PodTimeline> page =
            ListPaging.merge(parts(all, after, limit, t -> true), 6, limit, ListPaging::pod);
        assertThat(page.count()).isEqualTo(all.size());
        assertThat(page.items().size()).isLessThanOrEqualTo(limit);
        seen.addAll(page.items());
        after = page.next();
        pages++;
      } while (after != null && pages < 10_000);
      assertThat(seen).as("limit %d", limit).isEqualTo(expected);
      assertThat(pages).isEqualTo((all.size() + limit - 1) / limit);
    }
  }

  @Test
  void shouldCountEveryMatchButKeepOnlyTheFirstOnes() {
    ListPaging.FirstAfter<PodTimeline> first =
        new ListPaging.FirstAfter<>(new ListPaging.Position(100, "b"), 2, ListPaging::pod);
    for (String uid : List.of("e", "a", "c", "b", "d")) {
      first.offer(pod(uid, 100L));
    }
    first.offer(pod("z", 50L));
    assertThat(first.count()).isEqualTo(6);
    assertThat(first.remaining()).isEqualTo(3);
    assertThat(first.items()).extracting(PodTimeline::getUid).containsExactly("c", "d");
  }

  @Test
  void shouldRefuseToMergePartsThatDoNotMakeTheWholeStore() {
    List<PodTimeline> all = pods(new Random(1));
    List<ListPaging.Part<PodTimeline>> parts = parts(all, null, 10, t -> true);
    List<ListPaging.Part<PodTimeline>> missingOne = parts.subList(0, 2);
    assertThatThrownBy(() -> ListPaging.merge(missingOne, 6, 10, ListPaging::pod))
        .isInstanceOf(ListPaging.IncompleteList.class)
        .isInstanceOf(ApiUnavailable.class)
        .hasMessageContaining("partitions [2, 5] are served by no instance");
    List<ListPaging.Part<PodTimeline>> twice = new ArrayList<>(parts);
    twice.add(parts.get(0));
    assertThatThrownBy(() -> ListPaging.merge(twice, 6, 10, ListPaging::pod))
        .isInstanceOf(ListPaging.IncompleteList.class)
        .hasMessageContaining("partitions [0, 3] are served by two instances");
  }

  @Test
  void shouldSayWhatIsWrongWithALimitOrACursor() {
    assertThat(ListPaging.parseLimit(null)).isEqualTo(ListPaging.DEFAULT_LIMIT);
    assertThat(ListPaging.parseLimit("1000")).isEqualTo(1_000);
    assertThatThrownBy(() -> ListPaging.parseLimit("1001"))
        .hasMessageContaining("from 1 to 1000")
        .hasMessageContaining("after=");
    assertThatThrownBy(() -> ListPaging.parseLimit("0"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ListPaging.parseLimit("x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ListPaging.parseCursor("12~a~b")).isEqualTo(new ListPaging.Position(12, "a~b"));
    assertThat(ListPaging.parseCursor(ListPaging.cursor(ListPaging.pod(pod("u", null)))))
        .isEqualTo(new ListPaging.Position(Long.MAX_VALUE, "u"));
    assertThatThrownBy(() -> ListPaging.parseCursor("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'next' of an earlier answer");
  }
}
