package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.timeline.InputSeconds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
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

  @Test
  void shouldKeepEachSecondsIdsUnderItsPodsNameForTheDeduplicationWindow() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T, List.of(7L, 9L));
    ids.remember("ai-lab/chat-1", T, List.of(3L));
    ids.remember("ai-lab/chat-0", T + 1000, List.of());

    assertThat(ids.of("ai-lab/chat-0", T)).containsExactly(7L, 9L);
    assertThat(ids.of("ai-lab/chat-1", T)).containsExactly(3L);
    assertThat(ids.of("ai-lab/chat-0", T + 1000)).as("a second without ids: nothing").isNull();

    ids.remember("ai-lab/chat-2", T + DEDUP.toMillis(), List.of(1L));
    assertThat(ids.of("ai-lab/chat-0", T))
        .as("the de-duplication window after it: still kept")
        .containsExactly(7L, 9L);
    ids.remember("ai-lab/chat-2", T + DEDUP.toMillis() + 1000, List.of(1L));
    assertThat(ids.of("ai-lab/chat-0", T))
        .as("a window and a second after the latest: gone")
        .isNull();
  }

  @Test
  void shouldNotWriteASecondAlreadyPastTheRetention() {
    RequestIdWindows ids = new RequestIdWindows(windows, DEDUP, legacy);
    ids.remember("ai-lab/chat-0", T + DEDUP.toMillis() + 5000, List.of(1L));
    ids.remember("ai-lab/chat-1", T, List.of(2L));
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

    RequestIdWindows restarted = new RequestIdWindows(windows, DEDUP, legacy);
    restarted.remember("ai-lab/chat-3", T - DEDUP.toMillis() - 2000, List.of(4L));
    assertThat(restarted.of("ai-lab/chat-3", T - DEDUP.toMillis() - 2000))
        .as("a restart knows the latest second written")
        .isNull();
  }
}
