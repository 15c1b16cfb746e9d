package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.OpenSeconds;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.InputSeconds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;

/**
 * The waiting gatherings in their plain structure over a write-back store: they reach the store at
 * a commit only if they still wait, one value per pod name, and a restart reads them back, with
 * those an earlier release kept one value per second.
 */
class WaitingSecondsTest {

  static final long T = 1_764_000_000_000L;
  static final PodName CHAT = new PodName("ai-lab", "chat-0");
  static final PodName EMBED = new PodName("ai-lab", "embed-0");
  static final PodName OTHER = new PodName("ai", "x-0"); // "ai/x-0" sorts after "ai-lab/…"

  final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
  final KeyValueStore<String, OpenSeconds> inner =
      Stores.keyValueStoreBuilder(
              Stores.inMemoryKeyValueStore("open-seconds"),
              Serdes.String(),
              AvroSerde.of(OpenSeconds.class))
          .withLoggingDisabled()
          .build();
  final WriteBackStore<OpenSeconds> store = new WriteBackStore<>(inner);

  /** Where an earlier release kept the gatherings, one value per pod name and second. */
  final KeyValueStore<String, InputSecond> legacySeconds = RequestIdWindowsTest.legacyIds(context);

  final WindowStore<String, List<Long>> windows = RequestIdWindowsTest.windows(context);
  final KeyValueStore<String, InputSecond> legacy = RequestIdWindowsTest.legacyIds(context);

  WaitingSecondsTest() {
    store.init(context.getStateStoreContext(), store);
  }

  WaitingSeconds waiting() {
    return new WaitingSeconds(
        store, legacySeconds, new RequestIdWindows(windows, RequestIdWindowsTest.DEDUP, legacy));
  }

  /** What the store holds: per name, its open seconds as "second (s after T): requests". */
  Map<String, List<String>> stored() {
    Map<String, List<String>> out = new TreeMap<>();
    try (KeyValueIterator<String, OpenSeconds> it = inner.all()) {
      it.forEachRemaining(
          kv -> {
            assertThat(kv.value.getName()).isEqualTo(kv.key);
            out.put(
                kv.key,
                kv.value.getSeconds().stream()
                    .map(b -> (b.getSecond() - T) / 1000 + ": " + b.getRequests())
                    .toList());
          });
    }
    return out;
  }

  static void request(WaitingSeconds.Waiting w) {
    w.inputs.setRequests(w.inputs.getRequests() + 1);
  }

  /** A request of {@code name} at {@code second}, gathered as the pod stage gathers it. */
  static WaitingSeconds.Waiting gather(WaitingSeconds waiting, long second, PodName name) {
    WaitingSeconds.Waiting w = waiting.open(second, name, false);
    request(w);
    waiting.keep(w);
    return w;
  }

  @Test
  void shouldWriteANameAtACommitOnlyWhileItHasSecondsWaitingAllOfThemInOneValue() {
    WaitingSeconds waiting = waiting();
    WaitingSeconds.Waiting chat = gather(waiting, T, CHAT);
    WaitingSeconds.Waiting embed = gather(waiting, T, EMBED);
    assertThat(waiting.open(T, CHAT, false)).as("the same gathering").isSameAs(chat);
    assertThat(stored()).as("nothing before the commit").isEmpty();

    waiting.done(embed); // born and settled between two commits
    store.flushCache();
    assertThat(stored()).containsExactly(Map.entry("ai-lab/chat-0", List.of("0: 1")));

    request(chat);
    waiting.keep(chat);
    WaitingSeconds.Waiting next = gather(waiting, T + 1000, CHAT);
    assertThat(stored()).as("changed, written at the next commit").containsValue(List.of("0: 1"));
    store.flushCache();
    assertThat(stored())
        .as("the name's two open seconds in one value")
        .containsExactly(Map.entry("ai-lab/chat-0", List.of("0: 2", "1: 1")));

    waiting.done(chat);
    store.flushCache();
    assertThat(stored()).containsExactly(Map.entry("ai-lab/chat-0", List.of("1: 1")));

    waiting.done(next);
    store.flushCache();
    assertThat(stored()).as("none left: the name's tombstone at the commit").isEmpty();
  }

  @Test
  void shouldReadTheWaitingGatheringsBackAtAStartAndGiveThemInTimeAndNameOrder() {
    WaitingSeconds waiting = waiting();
    for (PodName name : List.of(EMBED, OTHER, CHAT)) {
      gather(waiting, T + 1000, name);
    }
    gather(waiting, T, EMBED);
    store.flushCache();

    WaitingSeconds restarted = waiting();
    List<String> due = new ArrayList<>();
    restarted.upTo(T + 1000).forEach(w -> due.add(w.inputs.getSecond() - T + " " + w.name));
    assertThat(due)
        .as("second, then namespace/name")
        .containsExactly(
            "0 ai-lab/embed-0", "1000 ai-lab/chat-0", "1000 ai-lab/embed-0", "1000 ai/x-0");
    assertThat(restarted.upTo(T)).hasSize(1);

    WaitingSeconds.Waiting back = restarted.open(T, EMBED, false);
    assertThat(back.inputs.getRequests()).isEqualTo(1);
    restarted.done(back);
    store.flushCache();
    assertThat(stored())
        .hasSize(3)
        .containsEntry("ai-lab/embed-0", List.of("1: 1"))
        .containsEntry("ai/x-0", List.of("1: 1"));
  }

  /**
   * An earlier release kept a gathering per pod name and second ({@code second|name}), and settled
   * seconds' ids there before the windows: the gatherings wait on as if never stopped, the ids are
   * kept, and the old store is emptied.
   */
  @Test
  void shouldMoveTheGatheringsAnEarlierReleaseKeptPerSecond() {
    for (long second : new long[] {T, T + 1000}) {
      InputSecond b = InputSeconds.empty(second, CHAT.key());
      b.setRequests(3);
      legacySeconds.put(TimerIndex.pad(second) + "|" + CHAT.key(), b);
    }
    InputSecond settled = RequestIdWindowsTest.settled(T - 1000, EMBED.key(), List.of(7L));
    legacySeconds.put(TimerIndex.pad(T - 1000) + "|" + EMBED.key(), settled);

    WaitingSeconds upgraded = waiting();
    assertThat(upgraded.upTo(T + 1000))
        .extracting(w -> w.inputs.getSecond() - T + " " + w.name + " " + w.inputs.getRequests())
        .containsExactly("0 ai-lab/chat-0 3", "1000 ai-lab/chat-0 3");
    assertThat(upgraded.open(T - 1000, EMBED, true).inputs.getIds())
        .as("a settled second's ids, kept")
        .containsExactly(7L);
    try (KeyValueIterator<String, InputSecond> it = legacySeconds.all()) {
      assertThat(it.hasNext()).as("the old store emptied").isFalse();
    }
    store.flushCache();
    assertThat(stored()).containsExactly(Map.entry("ai-lab/chat-0", List.of("0: 3", "1: 3")));
  }

  @Test
  void shouldOpenASettledSecondWithTheIdsItKept() {
    WaitingSeconds waiting = waiting();
    InputSecond settled = InputSeconds.empty(T, CHAT.key());
    settled.setIds(new ArrayList<>(List.of(11L, 12L)));
    waiting.rememberIds(settled);
    assertThat(waiting.open(T, CHAT, true).inputs.getIds()).containsExactly(11L, 12L);
    assertThat(waiting.open(T, CHAT, false).inputs.getIds())
        .as("an incomplete second was never settled")
        .isEmpty();
  }

  /**
   * A task closed without a commit (exactly-once: a corrupted task, revived) opens its stores again
   * with a new processor: what the old processor gathered since the last commit is gone, as are the
   * records it came from, which the task reads again.
   */
  @Test
  void shouldForgetWhatATaskClosedWithoutACommitHadGathered() {
    WaitingSeconds before = waiting();
    gather(before, T, CHAT);
    store.clearCache();

    WaitingSeconds revived = waiting();
    assertThat(revived.upTo(T)).isEmpty();
    store.flushCache();
    assertThat(stored()).as("the old processor's gathering never reaches the store").isEmpty();
  }
}
