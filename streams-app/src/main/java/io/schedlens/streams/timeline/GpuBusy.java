package io.schedlens.streams.timeline;

import io.schedlens.avro.GpuSample;
import io.schedlens.avro.internal.GpuPoint;
import io.schedlens.avro.internal.GpuSeries;
import io.schedlens.avro.internal.TimelineState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Busy GPU-seconds from DCGM samples: each sample's utilisation times the span it stands for, the
 * time since the previous sample of the same GPU (at most {@code gpuMaxGap}; the first sample
 * stands for one scrape interval). DCGM reports utilisation averaged over its last sampling period,
 * so a sample describes the span before it.
 *
 * <p>The span of a sample depends on its predecessor in time, not in arrival: samples stay in a
 * time-ordered window until they are older than the grace period (relative to the GPU's newest
 * sample) and only then are settled into a sum, so samples out of order within the grace period
 * count exactly as in order (up to {@link #MAX_WINDOW} samples per GPU). A sample older than the
 * settled part is too late and is not counted.
 */
final class GpuBusy {

  /** The newer graphics-engine-active ratio when the exporter reports it, else GPU_UTIL. */
  static final String ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";

  static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  private static final long HISTORY_STEP_MS = 60_000;
  private static final int HISTORY_POINTS = 64;

  /**
   * Unsettled samples kept per GPU at most. A GPU's samples come in order from one scrape target
   * through one partition; the window absorbs what a retry may reorder. Without a bound, a 10 Hz
   * scrape would keep 1,200 points per GPU for a two-minute grace period.
   */
  static final int MAX_WINDOW = 8;

  private GpuBusy() {}

  /** Utilisation as a ratio 0..1, or null when the sample carries neither field. */
  static Double utilisation(GpuSample s) {
    Map<String, Double> f = s.getFields();
    Double v = f.get(ENGINE_ACTIVE);
    if (v == null) {
      Double pct = f.get(GPU_UTIL);
      v = pct == null ? null : pct / 100.0;
    }
    return v == null || v.isNaN() ? null : Math.max(0.0, Math.min(1.0, v));
  }

  static String seriesId(GpuSample s) {
    String base = s.getUuid() != null ? s.getUuid() : s.getNode() + "/" + s.getGpu();
    return s.getMigInstanceId() == null ? base : base + "/mig-" + s.getMigInstanceId();
  }

  /** Adds a sample; false when it came too late to count. */
  static boolean add(
      TimelineState state, GpuSample sample, double util, TimelineSettings settings) {
    return add(state, seriesId(sample), sample.getTime(), util, settings);
  }

  /** Whether a sample of this series at this time is older than what was already settled. */
  static boolean tooLate(TimelineState state, String id, long t) {
    for (GpuSeries s : state.getGpuSeries()) {
      if (s.getId().equals(id) && s.getSettledTime() >= 0 && t <= s.getSettledTime()) {
        return true;
      }
    }
    return false;
  }

  /** Adds a reading of GPU {@code id} at {@code t}; false when it came too late to count. */
  static boolean add(
      TimelineState state, String id, long t, double util, TimelineSettings settings) {
    GpuSeries series = null;
    for (GpuSeries s : state.getGpuSeries()) {
      if (s.getId().equals(id)) {
        series = s;
      }
    }
    if (series == null) {
      series = GpuSeries.newBuilder().setId(id).setWindow(new ArrayList<>()).build();
      List<GpuSeries> all = new ArrayList<>(state.getGpuSeries());
      all.add(series);
      state.setGpuSeries(all);
    }
    if (series.getSettledTime() >= 0 && t <= series.getSettledTime()) {
      return false;
    }
    List<GpuPoint> window = new ArrayList<>(series.getWindow());
    int i = 0;
    while (i < window.size() && window.get(i).getTime() < t) {
      i++;
    }
    if (i < window.size() && window.get(i).getTime() == t) {
      window.set(i, new GpuPoint(t, util));
    } else {
      window.add(i, new GpuPoint(t, util));
    }
    long newest = window.get(window.size() - 1).getTime();
    long cutoff = newest - settings.grace().toMillis();
    while (!window.isEmpty() && (window.get(0).getTime() < cutoff || window.size() > MAX_WINDOW)) {
      GpuPoint p = window.remove(0);
      series.setSettledBusy(
          series.getSettledBusy() + contribution(p, series.getSettledTime(), settings));
      series.setSettledTime(p.getTime());
      recordHistory(state, p.getTime());
    }
    series.setWindow(window);
    return true;
  }

  private static double contribution(GpuPoint p, long previousTime, TimelineSettings settings) {
    long span =
        previousTime < 0
            ? settings.gpuSampleInterval().toMillis()
            : Math.min(p.getTime() - previousTime, settings.gpuMaxGap().toMillis());
    return p.getValue() * span / 1000.0;
  }

  private static void recordHistory(TimelineState state, long time) {
    List<GpuPoint> history = state.getBusyHistory();
    if (!history.isEmpty() && time - history.get(history.size() - 1).getTime() < HISTORY_STEP_MS) {
      return;
    }
    double settled = 0;
    for (GpuSeries s : state.getGpuSeries()) {
      settled += s.getSettledBusy();
    }
    List<GpuPoint> h = new ArrayList<>(history);
    h.add(new GpuPoint(time, settled));
    if (h.size() > HISTORY_POINTS) {
      h.remove(0);
    }
    state.setBusyHistory(h);
  }

  /** Busy GPU-seconds of every sample so far, settled or not. */
  static double total(TimelineState state, TimelineSettings settings) {
    double total = 0;
    for (GpuSeries s : state.getGpuSeries()) {
      total += s.getSettledBusy();
      long prev = s.getSettledTime();
      for (GpuPoint p : s.getWindow()) {
        total += contribution(p, prev, settings);
        prev = p.getTime();
      }
    }
    return total;
  }

  /**
   * Busy GPU-seconds accumulated up to time {@code t}: exact for samples still in the window,
   * interpolated between the once-a-minute history points for settled ones, and linear from the
   * start of running before the first point.
   */
  static double until(TimelineState state, long t, Long runningAt, TimelineSettings settings) {
    double settledUntil = settledUntil(state, t, runningAt);
    double windowed = 0;
    for (GpuSeries s : state.getGpuSeries()) {
      long prev = s.getSettledTime();
      for (GpuPoint p : s.getWindow()) {
        if (p.getTime() <= t) {
          windowed += contribution(p, prev, settings);
        }
        prev = p.getTime();
      }
    }
    return settledUntil + windowed;
  }

  private static double settledUntil(TimelineState state, long t, Long runningAt) {
    List<GpuPoint> points = new ArrayList<>(state.getBusyHistory());
    double settledTotal = 0;
    long lastSettled = -1;
    for (GpuSeries s : state.getGpuSeries()) {
      settledTotal += s.getSettledBusy();
      lastSettled = Math.max(lastSettled, s.getSettledTime());
    }
    if (lastSettled < 0) {
      return 0;
    }
    if (points.isEmpty() || points.get(points.size() - 1).getTime() < lastSettled) {
      points.add(new GpuPoint(lastSettled, settledTotal));
    }
    if (t >= lastSettled) {
      return settledTotal;
    }
    GpuPoint first = points.get(0);
    if (t < first.getTime()) {
      if (runningAt == null || t <= runningAt || first.getTime() <= runningAt) {
        return 0;
      }
      return first.getValue() * (t - runningAt) / (double) (first.getTime() - runningAt);
    }
    for (int i = 1; i < points.size(); i++) {
      GpuPoint a = points.get(i - 1);
      GpuPoint b = points.get(i);
      if (t <= b.getTime()) {
        double f = (t - a.getTime()) / (double) Math.max(1, b.getTime() - a.getTime());
        return a.getValue() + f * (b.getValue() - a.getValue());
      }
    }
    return settledTotal;
  }
}
