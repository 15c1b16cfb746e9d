package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.timeline.InputSeconds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;

/** The ids of settled seconds in Kafka Streams' window store, as the pod stage keeps them. */
class RequestIdWindowsTest {

  static final Duration DEDUP = Duration.ofMinutes(10);
  static final long T = 1_764_000_000_000L;

  final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
  final WindowStore<String, List<Long>> windows = windows(context);
  final KeyValueStore<String, InputSecond> legacy = legacyIds(context);

  /** The request-id windows of a {@link #DEDUP} window, in memory, opened on {@code context}. */
  static WindowStore<String, List<Long>> windows(MockProcessorContext<?, ?> context) {
    WindowStore<String, List<Long>> w =
        Stores.windowStoreBuilder(
                Stores.inMemoryWindowStore(
                    "w", RequestIdWindows.retention(DEDUP), RequestIdWindows.WINDOW, false),
                Serdes.String(),
                RequestIdWindows.serde())
            .withLoggingDisabled()
            .build();
    w.init(context.getStateStoreContext(), w);
    return w;
  }

  /** Where an earlier release kept the ids, in memory, opened on {@code context}. */
  static KeyValueStore<String, InputSecond> legacyIds(MockProcessorContext<?, ?> context) {
    KeyValueStore<String, InputSecond> l =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("l"), Serdes.String(), AvroSerde.of(InputSecond.class))
            .withLoggingDisabled()
            .build();
    l.init(context.getStateStoreContext(), l);
    return l;
  }

  static InputSecond settled(long second, String name, List<Long> ids) {
    InputSecond s = InputSeconds.empty(second, name);
    s.setApplied(true);
    s.setIds(new ArrayList<>(ids));
    return s;
  }

  /** Every window in the store: "name start: value". */
  List<String> stored() {
    List<String> out = new ArrayList<>();
    try (KeyValueIterator<Windowed<String>, List<Long>> it = windows.all()) {
      it.forEachRemaining(
          kv ->
              out.add(kv.key.key() + " " + (kv.key.window().start() - T) / 1000 + ": " + kv.value));
    }
    return out;
  }

  @Test
  void shouldKeepEachSecondsIdsUnderItsPodsNameForTheDeduplicationWindow() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T, List.of(7L, 9L));
    ids.remember("ai-lab/chat-1", T, List.of(3L));
    ids.remember("ai-lab/chat-0", T + 1000, List.of());
    assertThat(ids.of("ai-lab/chat-0", T)).as("before the commit").containsExactly(7L, 9L);
    ids.write();

    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(7L, 9L);
    assertThat(ids.of("ai-lab/chat-1", T)).containsExactly(3L);
    assertThat(ids.of("ai-lab/chat-0", T + 1000)).as("a second without ids: nothing").isNull();

    ids.remember("ai-lab/chat-2", T + DEDUP.toMillis(), List.of(1L));
    ids.write();
    assertThat(ids.of("ai-lab/chat-0", T))
        .as("the de-duplication window after it: still kept")
        .containsExactly(7L, 9L);
    ids.remember("ai-lab/chat-2", T + DEDUP.toMillis() + 1000, List.of(1L));
    ids.write();
    assertThat(ids.of("ai-lab/chat-0", T))
        .as("a window and a second after the latest: gone")
        .isNull();
  }

  @Test
  void shouldWriteThePodsSecondsSettledBetweenTwoCommitsAsOneBatch() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T, List.of(7L, 9L));
    ids.remember("ai-lab/chat-0", T + 1000, List.of(4L));
    ids.remember("ai-lab/chat-0", T + 3000, List.of(5L));
    ids.remember("ai-lab/chat-1", T + 1000, List.of(3L));
    assertThat(stored()).as("nothing before the commit").isEmpty();
    ids.write();

    assertThat(stored())
        .as("a window per pod name, at its last second")
        .containsExactlyInAnyOrder(
            "ai-lab/chat-0 3: ["
                + RequestIdWindows.BATCH
                + ", "
                + T
                + ", 2, 7, 9, "
                + (T + 1000)
                + ", 1, 4, "
                + (T + 3000)
                + ", 1, 5]",
            "ai-lab/chat-1 1: [" + RequestIdWindows.BATCH + ", " + (T + 1000) + ", 1, 3]");
    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(7L, 9L);
    assertThat(ids.of("ai-lab/chat-0", T + 1000)).containsExactly(4L);
    assertThat(ids.of("ai-lab/chat-0", T + 2000)).isNull();
    assertThat(ids.of("ai-lab/chat-0", T + 3000)).containsExactly(5L);
  }

  @Test
  void shouldSplitABatchThatWouldSpanMoreThanItsSpan() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    for (long s = 0; s <= RequestIdWindows.SPAN; s += 20_000) {
      ids.remember("ai-lab/chat-0", T + s, List.of(s));
    }
    ids.write();
    assertThat(stored())
        .as("0, 20 and 40 s in one window, 60 s in the next")
        .extracting(w -> w.substring(0, w.indexOf(':')))
        .containsExactly("ai-lab/chat-0 40", "ai-lab/chat-0 60");
    for (long s = 0; s <= RequestIdWindows.SPAN; s += 20_000) {
      assertThat(ids.of("ai-lab/chat-0", T + s)).containsExactly(s);
    }
  }

  /**
   * A line that came after its second settled opens the second with the ids kept: settled again,
   * the second is written again, in a window of its own commit; where that window starts where a
   * batch did, it is joined with that batch, not put over it.
   */
  @Test
  void shouldJoinWhatEveryWindowHoldsOfASecondSettledAgain() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T, List.of(7L));
    ids.remember("ai-lab/chat-0", T + 2000, List.of(8L));
    ids.write();

    List<Long> kept = new ArrayList<>(ids.of("ai-lab/chat-0", T + 2000)); // the line opens it
    kept.add(9L);
    ids.write(); // a commit before it settles again
    ids.remember("ai-lab/chat-0", T + 2000, kept);
    ids.write();
    assertThat(ids.of("ai-lab/chat-0", T + 2000)).containsExactly(8L, 9L);
    assertThat(ids.of("ai-lab/chat-0", T)).as("the batch joined, not replaced").containsExactly(7L);
    assertThat(stored()).hasSize(1);

    kept = new ArrayList<>(ids.of("ai-lab/chat-0", T));
    kept.add(6L);
    ids.remember("ai-lab/chat-0", T, kept);
    ids.write();
    assertThat(ids.of("ai-lab/chat-0", T))
        .as("a window of its own, both read")
        .containsExactly(6L, 7L);
    assertThat(stored()).hasSize(2);
  }

  /** A window an earlier release wrote holds one second's ids, at that second. */
  @Test
  void shouldReadTheWindowsAnEarlierReleaseWroteOneASecond() {
    windows.put("ai-lab/chat-0", new ArrayList<>(List.of(-5L, 11L)), T);
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(-5L, 11L);
    assertThat(ids.of("ai-lab/chat-0", T - 1000)).isNull();

    ids.remember("ai-lab/chat-0", T, List.of(-5L, 11L, 12L));
    ids.write();
    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(-5L, 11L, 12L);
  }

  @Test
  void shouldNotWriteASecondAlreadyPastTheRetention() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T + DEDUP.toMillis() + 5000, List.of(1L));
    ids.write();
    ids.remember("ai-lab/chat-1", T, List.of(2L));
    ids.write();
    assertThat(ids.of("ai-lab/chat-1", T)).isNull();
  }

  @Test
  void shouldMoveTheIdsAnEarlierReleaseKeptIntoTheWindowsAndEmptyItsStore() {
    legacy.put(TimerIndex.pad(T) + "|ai-lab/chat-0", settled(T, "ai-lab/chat-0", List.of(5L)));
    legacy.put(
        TimerIndex.pad(T + 2000) + "|ai-lab/chat-1",
        settled(T + 2000, "ai-lab/chat-1", List.of(6L, 8L)));
    legacy.put(
        TimerIndex.pad(T + 3000) + "|ai-lab/chat-1", settled(T + 3000, "ai-lab/chat-1", List.of()));

    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);

    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(5L);
    assertThat(ids.of("ai-lab/chat-1", T + 2000)).containsExactly(6L, 8L);
    assertThat(legacy.approximateNumEntries()).isZero();
    assertThat(stored()).as("written at start").hasSize(2);

    RequestIdWindows restarted = new RequestIdWindows(windows, DEDUP, legacy);
    restarted.remember("ai-lab/chat-3", T - DEDUP.toMillis() - 2000, List.of(4L));
    restarted.write();
    assertThat(restarted.of("ai-lab/chat-3", T - DEDUP.toMillis() - 2000))
        .as("a restart knows the latest second written")
        .isNull();
  }
}
