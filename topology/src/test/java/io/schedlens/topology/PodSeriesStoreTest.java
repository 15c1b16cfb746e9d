package io.schedlens.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.testsupport.Inputs;
import io.schedlens.timeline.Incarnations;
import io.schedlens.timeline.PodSeriesPoints;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * A pod's closed series points in {@code pod-series}, its open ones in its state: what the stores
 * hold after a commit, and the whole series read back.
 */
class PodSeriesStoreTest {

  static final TimelineSettings SETTINGS = TimelineSettings.defaults();
  static final long GRACE = SETTINGS.grace().toMillis();
  static final long T = 1_764_000_000_000L; // a multiple of every step used here
  static final String NAME = "ai-lab/embed-0";
  static final String UID = "u-embed-0";

  final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
  final KeyValueStore<String, PodsOfName> below = store("pods-by-name", PodsOfName.class);
  final WriteBackStore<PodsOfName> pods = new WriteBackStore<>(below);
  final KeyValueStore<String, ClosedPoints> closed = store("pod-series", ClosedPoints.class);
  final PodSeriesStore series = new PodSeriesStore(closed, GRACE);
  final TimelineReducer reducer = new TimelineReducer(SETTINGS);
  final PodsOfName name = Incarnations.none();
  final TimelineState state = TimelineReducer.empty(UID);

  PodSeriesStoreTest() {
    series.layOut(pods);
    name.getPods().add(state);
  }

  <V extends org.apache.avro.specific.SpecificRecord> KeyValueStore<String, V> store(
      String n, Class<V> type) {
    KeyValueStore<String, V> s =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(n), Serdes.String(), AvroSerde.of(type))
            .withLoggingDisabled()
            .build();
    s.init(context.getStateStoreContext(), s);
    return s;
  }

  /** GPU samples of the pod every 15 s, from {@code from} (seconds after T) for {@code n}. */
  void sampled(int from, int n) {
    for (int i = 0; i < n; i++) {
      reducer.apply(
          state,
          Inputs.gpu(
              "GPU-1", "ai-lab", "embed-0", T + (from + 15L * i) * 1000, 40 + i % 9, 15_000L));
    }
  }

  /** The commit: the pod's state written back. */
  void commit() {
    pods.put(NAME, name);
    pods.flushCache();
  }

  static List<Long> ats(List<PodPoint> points) {
    return points.stream().map(PodPoint::getAt).toList();
  }

  @Test
  void shouldKeepTheClosedPointsInTheirOwnStoreAndTheOpenOnesInTheState() {
    sampled(0, 40); // 40 points of 15 s; the last starts at 585 s
    PodSeries whole = PodSeries.newBuilder(state.getSeries()).build();
    commit();

    int n = PodSeriesPoints.closed(whole, GRACE);
    assertThat(n).as("points that end 2 minutes before the last starts").isEqualTo(31);
    assertThat(ats(closed.get(UID).getPoints())).isEqualTo(ats(whole.getPoints().subList(0, n)));
    TimelineState stored = below.get(NAME).getPods().get(0);
    assertThat(stored.getSeriesStored()).isEqualTo(n);
    assertThat(stored.getSeries().getPoints()).isEqualTo(whole.getPoints().subList(n, 40));
    assertThat(state.getSeries())
        .as("the pod stage's object keeps its whole series")
        .isEqualTo(whole);
    assertThat(pods.get(NAME).getPods().get(0).getSeries())
        .as("read back from below: whole again")
        .isEqualTo(whole);
  }

  @Test
  void shouldWriteTheClosedPointsOnlyWhenABatchMoreHaveClosed() {
    sampled(0, 40);
    commit();
    closed.put(UID, new ClosedPoints(15_000L, new ArrayList<>())); // a marker: rewritten or not
    reducer.apply(state, Inputs.gpu("GPU-1", "ai-lab", "embed-0", T + 590_000, 50, 15_000L));
    commit();
    assertThat(closed.get(UID).getPoints()).as("no point closed: not written").isEmpty();

    sampled(600, PodSeriesStore.BATCH - 1);
    commit();
    assertThat(closed.get(UID).getPoints()).as("fewer than a batch closed: not written").isEmpty();
    assertThat(below.get(NAME).getPods().get(0).getSeries().getPoints())
        .as("the state keeps them meanwhile")
        .hasSize(40 + PodSeriesStore.BATCH - 1 - 31);

    sampled(600 + 15 * (PodSeriesStore.BATCH - 1), 1);
    commit();
    assertThat(closed.get(UID).getPoints())
        .as("a batch more closed: all of them written")
        .hasSize(31 + PodSeriesStore.BATCH);
    assertThat(pods.get(NAME).getPods().get(0).getSeries()).isEqualTo(state.getSeries());
  }

  @Test
  void shouldRewriteTheClosedPointsWhenTheStepGrows() {
    sampled(0, 64);
    commit();
    assertThat(closed.get(UID).getStepMs()).isEqualTo(15_000L);

    sampled(64 * 15, 8); // 72 points of 15 s do not fit: 36 of 30 s
    assertThat(state.getSeriesStored()).isEqualTo(PodSeriesPoints.STORED_STALE);
    commit();
    assertThat(closed.get(UID).getStepMs()).isEqualTo(30_000L);
    assertThat(below.get(NAME).getPods().get(0).getSeriesStored())
        .isEqualTo(closed.get(UID).getPoints().size())
        .isEqualTo(PodSeriesPoints.closed(state.getSeries(), GRACE));
    assertThat(pods.get(NAME).getPods().get(0).getSeries()).isEqualTo(state.getSeries());
  }

  @Test
  void shouldMarkTheStoredPointsStaleWhenAnInputReachesOne() {
    sampled(0, 40);
    commit();
    reducer.apply(state, Inputs.gpu("GPU-2", "ai-lab", "embed-0", T + 100_000, 90, 15_000L));
    assertThat(state.getSeriesStored()).isEqualTo(PodSeriesPoints.STORED_STALE);
    commit();
    assertThat(closed.get(UID).getPoints().get(6).getBusyMicros())
        .as("the point of 90 s with the late sample")
        .isEqualTo(state.getSeries().getPoints().get(6).getBusyMicros());
  }

  @Test
  void shouldDropTheClosedPointsWithTheirPod() {
    sampled(0, 40);
    commit();
    series.dropped(state);
    assertThat(closed.get(UID)).isNull();
  }

  @Test
  void shouldSayWhatToDoWhenTheClosedPointsAreMissing() {
    sampled(0, 40);
    commit();
    closed.delete(UID);
    assertThatThrownBy(() -> pods.get(NAME))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("in store pod-series, which holds none")
        .hasMessageContaining("reset the application's state");
  }
}
