package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.InputSecond;
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
 * a commit only if they still wait, and a restart reads them back.
 */
class WaitingSecondsTest {

  static final long T = 1_764_000_000_000L;
  static final PodName CHAT = new PodName("ai-lab", "chat-0");
  static final PodName EMBED = new PodName("ai-lab", "embed-0");
  static final PodName OTHER = new PodName("ai", "x-0"); // "ai/x-0" sorts after "ai-lab/…"

  final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
  final KeyValueStore<String, InputSecond> inner =
      Stores.keyValueStoreBuilder(
              Stores.inMemoryKeyValueStore("input-seconds"),
              Serdes.String(),
              AvroSerde.of(InputSecond.class))
          .withLoggingDisabled()
          .build();
  final WriteBackStore<InputSecond> store = new WriteBackStore<>(inner);
  final WindowStore<String, List<Long>> windows = RequestIdWindowsTest.windows(context);
  final KeyValueStore<String, InputSecond> legacy = RequestIdWindowsTest.legacyIds(context);

  WaitingSecondsTest() {
    store.init(context.getStateStoreContext(), store);
  }

  WaitingSeconds waiting() {
    return new WaitingSeconds(
        store, new RequestIdWindows(windows, RequestIdWindowsTest.DEDUP, legacy));
  }

  Map<String, Long> stored() {
    Map<String, Long> out = new TreeMap<>();
    try (KeyValueIterator<String, InputSecond> it = inner.all()) {
      it.forEachRemaining(kv -> out.put(kv.key, kv.value.getRequests()));
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
  void shouldWriteAGatheringAtACommitOnlyWhenItStillWaits() {
    WaitingSeconds waiting = waiting();
    WaitingSeconds.Waiting chat = gather(waiting, T, CHAT);
    WaitingSeconds.Waiting embed = gather(waiting, T, EMBED);
    assertThat(waiting.open(T, CHAT, false)).as("the same gathering").isSameAs(chat);
    assertThat(stored()).as("nothing before the commit").isEmpty();

    waiting.done(embed); // born and settled between two commits
    store.flushCache();
    assertThat(stored()).containsExactly(Map.entry(WaitingSeconds.key(T, "ai-lab/chat-0"), 1L));

    request(chat);
    waiting.keep(chat);
    assertThat(stored()).as("changed, written at the next commit").containsValue(1L);
    store.flushCache();
    assertThat(stored()).containsValue(2L);

    waiting.done(chat);
    store.flushCache();
    assertThat(stored()).as("settled: its tombstone at the commit").isEmpty();
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
        .as("the store's key order: second, then namespace/name")
        .containsExactly(
            "0 ai-lab/embed-0", "1000 ai-lab/chat-0", "1000 ai-lab/embed-0", "1000 ai/x-0");
    assertThat(restarted.upTo(T)).hasSize(1);

    WaitingSeconds.Waiting back = restarted.open(T, EMBED, false);
    assertThat(back.inputs.getRequests()).isEqualTo(1);
    restarted.done(back);
    store.flushCache();
    assertThat(stored()).doesNotContainKey(WaitingSeconds.key(T, "ai-lab/embed-0")).hasSize(3);
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
