package io.schedlens.topology;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.timeline.PodSeriesPoints;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The closed points of live pods' series in a store of their own ({@code pod-series}, by UID), so
 * that the state written at every commit of a busy pod holds only its open points (and a few closed
 * ones). A series is most of a long-lived pod's state (1,890 of 2,616 bytes in StreamsLoad's fleet)
 * and its closed points no longer change: they are written when {@link #BATCH} more have closed
 * ({@link PodSeriesPoints#closed}), at most once per commit, and rewritten whole when the step
 * grows or a late input reaches one.
 *
 * <p>The pod stage's objects hold whole series; this is how {@code pods-by-name}'s write-back lays
 * them out ({@link WriteBackStore.Layout}): at the commit, each written state's closed points go to
 * {@code pod-series} when enough more have closed, and the state is serialized without them ({@code
 * seriesStored} says how many there are); a state read back gets them back. Both stores are written
 * in the commit's transaction; {@code pod-series} is not cached, so that what it is given during
 * {@code pods-by-name}'s flush is in the changelog whatever order the stores flush in.
 */
final class PodSeriesStore implements WriteBackStore.Layout<PodsOfName> {

  /**
   * Closed points written at a time: a backlog read at many steps of event time per commit would
   * otherwise rewrite every pod's closed points at nearly every commit (StreamsLoad sparse: 3 or 4
   * points close per pod and commit); live, a point closes far less often than a commit. The state
   * keeps up to this many closed points more than the open ones.
   */
  static final int BATCH = 8;

  private final KeyValueStore<String, ClosedPoints> store;
  private final long graceMs;

  PodSeriesStore(KeyValueStore<String, ClosedPoints> store, long graceMs) {
    this.store = store;
    this.graceMs = graceMs;
  }

  /**
   * Lays out {@code pods}' values through this when it is a write-back store; else (a test's plain
   * store) the series stay whole in the state.
   */
  void layOut(KeyValueStore<String, PodsOfName> pods) {
    WriteBackStore<PodsOfName> buffer = WriteBackStore.under(pods);
    if (buffer != null) {
      buffer.layout(this);
    }
  }

  @Override
  public void write(PodsOfName value, Consumer<PodsOfName> write) {
    List<TimelineState> states = value.getPods();
    PodSeries[] whole = new PodSeries[states.size()];
    try {
      for (int i = 0; i < whole.length; i++) {
        TimelineState s = states.get(i);
        close(s);
        if (s.getSeriesStored() > 0) {
          whole[i] = s.getSeries();
          s.setSeries(open(whole[i], s.getSeriesStored()));
        }
      }
      write.accept(value);
    } finally {
      for (int i = 0; i < whole.length; i++) {
        if (whole[i] != null) {
          states.get(i).setSeries(whole[i]);
        }
      }
    }
  }

  /**
   * Writes the state's closed points when {@link #BATCH} more have closed since they were last
   * written, or when that copy went stale.
   */
  private void close(TimelineState s) {
    int closed = PodSeriesPoints.closed(s.getSeries(), graceMs);
    int stored = s.getSeriesStored();
    if (stored != PodSeriesPoints.STORED_STALE && closed - stored < BATCH) {
      return;
    }
    if (closed > 0) {
      PodSeries all = s.getSeries();
      store.put(
          s.getUid(),
          new ClosedPoints(all.getStepMs(), new ArrayList<>(all.getPoints().subList(0, closed))));
    } else {
      store.put(s.getUid(), null);
    }
    s.setSeriesStored(closed);
  }

  /** The series as the state stores it: without its first {@code stored} points. */
  private static PodSeries open(PodSeries all, int stored) {
    List<PodPoint> points = all.getPoints();
    return new PodSeries(all.getStepMs(), all.getSloMs(), points.subList(stored, points.size()));
  }

  @Override
  public PodsOfName read(PodsOfName value) {
    for (TimelineState s : value.getPods()) {
      int stored = s.getSeriesStored();
      if (stored <= 0) {
        continue;
      }
      ClosedPoints closed = store.get(s.getUid());
      if (closed == null
          || closed.getPoints().size() != stored
          || s.getSeries() == null
          || closed.getStepMs() != s.getSeries().getStepMs()) {
        throw new IllegalStateException(
            "pod "
                + s.getUid()
                + " keeps "
                + stored
                + " points of its series in store "
                + TopologyNames.POD_SERIES_STORE
                + ", which holds "
                + (closed == null
                    ? "none"
                    : closed.getPoints().size() + " at a step of " + closed.getStepMs() + " ms")
                + (s.getSeries() == null
                    ? ""
                    : " (the state's: " + s.getSeries().getStepMs() + " ms)")
                + ": the two stores are from different commits; reset the application's state"
                + " (docs/operators/streams-app.md)");
      }
      List<PodPoint> points = new ArrayList<>(closed.getPoints());
      points.addAll(s.getSeries().getPoints());
      s.getSeries().setPoints(points);
    }
    return value;
  }

  /**
   * A live incarnation leaves the pod stage (its final timeline is out, or it was an orphan): its
   * closed points go with it.
   */
  void dropped(TimelineState s) {
    if (s.getSeriesStored() != 0) {
      store.put(s.getUid(), null);
    }
  }
}
