package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Event-time timers: what is due comes out once, in due-time order, per kind; the store holds
 * exactly the timers not yet due, so that a task started again on it finds them.
 */
class TimerIndexTest {

  KeyValueStore<String, String> store;

  @BeforeEach
  void store() {
    store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("timers"), Serdes.String(), Serdes.String())
            .withLoggingDisabled()
            .build();
    store.init(new MockProcessorContext<String, Object>().getStateStoreContext(), store);
  }

  @Test
  void shouldGiveWhatIsDueOnceInDueTimeOrderAndKeepTheRest() {
    TimerIndex t = new TimerIndex(store);
    t.add(TimerIndex.FINAL, 3_000, "ns/c|u3");
    t.add(TimerIndex.FINAL, 1_000, "ns/b|u2");
    t.add(TimerIndex.FINAL, 1_000, "ns/a|u1");
    t.add(TimerIndex.STARVE, 500, "ns/a|u1");
    assertThat(t.due(TimerIndex.FINAL, 999)).isEmpty();
    assertThat(t.due(TimerIndex.FINAL, 1_000)).containsExactly("ns/a|u1", "ns/b|u2");
    assertThat(t.due(TimerIndex.FINAL, 2_000)).as("given once").isEmpty();
    assertThat(store.get(TimerIndex.key(TimerIndex.FINAL, 1_000, "ns/a|u1"))).isNull();
    assertThat(store.get(TimerIndex.key(TimerIndex.FINAL, 3_000, "ns/c|u3"))).isEqualTo("");
    assertThat(t.due(TimerIndex.STARVE, 10_000))
        .as("another kind's own")
        .containsExactly("ns/a|u1");
    assertThat(t.due(TimerIndex.FINAL, Long.MAX_VALUE)).containsExactly("ns/c|u3");
  }

  @Test
  void shouldFindTheStoresTimersWhenStartedAgain() {
    TimerIndex before = new TimerIndex(store);
    before.add(TimerIndex.FORGET, 2_000, "ns/a|u1");
    before.add(TimerIndex.FORGET, 1_000, "ns/b|u2");
    assertThat(before.due(TimerIndex.FORGET, 1_000)).containsExactly("ns/b|u2");

    TimerIndex after = new TimerIndex(store);
    assertThat(after.due(TimerIndex.FORGET, 1_500)).as("fired before the restart").isEmpty();
    assertThat(after.due(TimerIndex.FORGET, 2_000)).containsExactly("ns/a|u1");
  }

  @Test
  void shouldKeepATimerAddedTwiceOnceAndForgetACancelledOne() {
    TimerIndex t = new TimerIndex(store);
    t.add(TimerIndex.ASK, 1_000, "ns/a|u1");
    t.add(TimerIndex.ASK, 1_000, "ns/a|u1");
    t.add(TimerIndex.ASK, 1_000, "ns/b|u2");
    t.cancel(TimerIndex.ASK, 1_000, "ns/b|u2");
    assertThat(store.get(TimerIndex.key(TimerIndex.ASK, 1_000, "ns/b|u2"))).isNull();
    assertThat(t.due(TimerIndex.ASK, 1_000)).isEqualTo(List.of("ns/a|u1"));
  }

  @Test
  void shouldOrderDueTimesAsNumbersAndNegativeTimesFirst() {
    TimerIndex t = new TimerIndex(store);
    t.add(TimerIndex.DECIDE, 10_000, "x|2");
    t.add(TimerIndex.DECIDE, 9_999, "x|1");
    t.add(TimerIndex.DECIDE, -5, "x|0");
    assertThat(t.due(TimerIndex.DECIDE, 10_000)).containsExactly("x|0", "x|1", "x|2");
  }
}
