package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.timeline.PodTimer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The event-time protocol of a pod-stage task on its own: what a stage asks (late? complete?), and
 * what it is called back with as marks and watermarks arrive, in which order. No clock is read.
 */
class PodEventTimeTest {

  static final long GRACE = 30_000;

  KeyValueStore<String, Long> marks;
  KeyValueStore<String, String> timers;
  final List<String> calls = new ArrayList<>();

  final EventTime.Listener listener =
      new EventTime.Listener() {
        @Override
        public void complete(long upTo) {
          calls.add("complete " + upTo);
        }

        @Override
        public void due(PodTimer timer, TimerTarget target) {
          calls.add(timer + " " + target.id());
        }
      };

  @BeforeEach
  void stores() {
    var context = new MockProcessorContext<String, Object>().getStateStoreContext();
    marks =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("marks"), Serdes.String(), Serdes.Long())
            .withLoggingDisabled()
            .build();
    timers =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("timers"), Serdes.String(), Serdes.String())
            .withLoggingDisabled()
            .build();
    marks.init(context, marks);
    timers.init(context, timers);
  }

  PodEventTime time() {
    return new PodEventTime(marks, timers, 1, GRACE);
  }

  @Test
  void shouldCallASecondCompleteOnlyWhenSamplesRequestsAndPodsHavePassedIt() {
    PodEventTime t = time();
    assertThat(t.complete(10_000)).as("no mark yet").isFalse();
    t.mark(SourceMarks.GPU, 12_000, listener);
    t.mark(SourceMarks.REQUESTS, 12_000, listener);
    assertThat(t.complete(10_000)).as("the pods stream has not passed it").isFalse();
    t.mark(SourceMarks.PODS, 10_500, listener);
    assertThat(t.complete(10_000)).isTrue();
    assertThat(t.complete(11_000)).as("the pods stream is at 10.5 s").isFalse();
    assertThat(calls).containsExactly("complete 10500");
  }

  @Test
  void shouldCallAnInputLateOnlyPastItsOwnStreamsMarkPlusTheGracePeriod() {
    PodEventTime t = time();
    t.mark(SourceMarks.GPU, 100_000, listener);
    assertThat(t.late(SourceMarks.GPU, 70_000)).isTrue();
    assertThat(t.late(SourceMarks.GPU, 70_001)).isFalse();
    assertThat(t.late(SourceMarks.REQUESTS, 0)).as("another stream's mark").isFalse();
  }

  @Test
  void shouldFireEachTimerOnItsOwnClockInOneOrder() {
    PodEventTime t = time();
    t.callAt(PodTimer.STARVE, 5_000, new TimerTarget("ns/a", "u-1"));
    t.callAt(PodTimer.ASK, 5_000, new TimerTarget("ns/a", "u-2"));
    t.callAt(PodTimer.FINAL, 5_000, new TimerTarget("ns/a", "u-3"));

    t.mark(SourceMarks.PODS, 6_000, listener);
    assertThat(calls)
        .as("the pods stream passed 5 s: its timers; not ASK (the other inputs have no mark)")
        .containsExactly("STARVE " + new TimerTarget("ns/a", "u-1").id());

    calls.clear();
    for (String source : List.of(SourceMarks.EVENTS, SourceMarks.GPU, SourceMarks.REQUESTS)) {
      t.mark(source, 7_000, listener);
    }
    assertThat(calls)
        .as(
            "once samples and requests have marks: the seconds up to the pods stream's 6 s are"
                + " complete, then every input passed 5 s: ASK")
        .containsExactly("complete 6000", "ASK " + new TimerTarget("ns/a", "u-2").id());

    calls.clear();
    t.heard(Watermarks.of(Watermarks.PODS, 0, 7_000, 6_000), listener);
    t.heard(Watermarks.of(Watermarks.WORKLOADS, 0, Long.MAX_VALUE, 6_000), listener);
    assertThat(calls).as("the node stage has not answered").isEmpty();
    t.heard(Watermarks.of(Watermarks.NODES, 0, Long.MAX_VALUE, 6_000), listener);
    assertThat(calls).containsExactly("FINAL " + new TimerTarget("ns/a", "u-3").id());
  }

  @Test
  void shouldKeepMarksAcrossARestartAndIgnoreOnesThatDoNotMoveForward() {
    PodEventTime t = time();
    assertThat(t.mark(SourceMarks.PODS, 9_000, listener)).isTrue();
    assertThat(t.mark(SourceMarks.PODS, 8_000, listener)).isFalse();
    PodEventTime restarted = time();
    assertThat(restarted.progress(SourceMarks.PODS)).isEqualTo(9_000);
  }

  @Test
  void shouldBroadcastAWatermarkWhenItMovesAndNowAndThenAnyway() {
    PodEventTime t = time();
    assertThat(t.toBroadcast(10_000, 0)).isPresent();
    assertThat(t.toBroadcast(11_000, 0)).as("unchanged, said a second ago").isEmpty();
    assertThat(t.toBroadcast(12_000, 0)).as("unchanged, said again for who missed it").isPresent();
    for (String source : SourceMarks.SOURCES) {
      t.mark(source, 4_000, listener);
    }
    assertThat(t.toBroadcast(12_100, 0).orElseThrow().getTime()).as("moved").isEqualTo(4_000);
  }
}
