package io.schedlens.timeline;

import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.GpuReading;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.TimelineState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.avro.generic.GenericData;

/**
 * A pod's GPU utilisation and requests over its life, bounded: at most {@link #MAX_POINTS} points
 * of {@code stepMs} each, where {@code stepMs} is the DCGM sample interval ({@code
 * gpu.sample.interval}, 15 s by default) × 2^k, the smallest such step at which every input from
 * the first to the last fits into {@link #MAX_POINTS} aligned steps. The resolution follows the
 * life: a life of 16 minutes or more has 32 to 64 points; a shorter one a point per sample interval
 * (a 17-second pod two points of 15 s, not one minute that runs past its end). A longer life
 * doubles the step and adds each pair of neighbours into one point. An hour of a pod is 60 points
 * of 1 minute, a week 40 points of 4.3 hours.
 *
 * <p>The same inputs in any order give the same series: steps are aligned to the epoch (a point at
 * step 2w is exactly two points at step w), every field of a point is a sum (of integers, or of
 * histogram counts), and the step depends only on the earliest and latest input time, which do not
 * depend on the order.
 */
public final class PodSeriesPoints {

  /**
   * The finest step when the sample interval is shorter: a second, the resolution of the request
   * counts (requests are counted per second).
   */
  public static final long MIN_STEP_MS = 1_000;

  /**
   * Points at most: a busy pod's state holds them (a point and its latency bins are about 30
   * bytes), whatever the length of its life.
   */
  public static final int MAX_POINTS = 64;

  /**
   * The finest step of a series: the DCGM sample interval, so that every step of a GPU line holds a
   * sample (a finer step draws gaps between samples, read as missing data); at least {@link
   * #MIN_STEP_MS}.
   */
  public static long baseStepMs(TimelineSettings settings) {
    return Math.max(MIN_STEP_MS, settings.gpuSampleInterval().toMillis());
  }

  private PodSeriesPoints() {}

  /**
   * A state's {@code seriesStored} when the pod-series store's copy of its leading points no longer
   * holds (an input reached one of them, or the step grew): rewritten at the next commit.
   */
  public static final int STORED_STALE = -1;

  /**
   * How many leading points of {@code s} are closed: each ends at least {@code graceMs} before the
   * last point starts. A pod's seconds are applied in time order, a late line at most the grace
   * period behind, so no input is expected to reach them; one that does is noticed (the reducer
   * marks the state {@link #STORED_STALE}). The last point is never closed.
   */
  public static int closed(PodSeries s, long graceMs) {
    if (s == null || s.getPoints().isEmpty()) {
      return 0;
    }
    List<PodPoint> points = s.getPoints();
    long before = points.get(points.size() - 1).getAt() - graceMs;
    int n = points.size() - 1;
    while (n > 0 && points.get(n - 1).getAt() + s.getStepMs() > before) {
      n--;
    }
    return n;
  }

  /**
   * Adds one second of a pod's inputs to the series of {@code s} ({@link #addTo}); {@code breaches}
   * of its requests were over their SLO.
   */
  static void addSecondTo(
      TimelineState s,
      InputSecond in,
      long breaches,
      Double classSloMs,
      TimelineSettings settings) {
    long earliest = in.getSecond(); // a second's GPU readings may lie before it
    for (GpuReading r : in.getGpu()) {
      earliest = Math.min(earliest, r.getTime());
    }
    addTo(s, earliest, series -> add(series, in, breaches, classSloMs, settings));
  }

  /** Adds one GPU sample to the series of {@code s} ({@link #addTo}). */
  static void addSampleTo(
      TimelineState s, long t, double util, long spanMs, TimelineSettings settings) {
    addTo(s, t, series -> addSample(series, t, util, spanMs, baseStepMs(settings)));
  }

  /**
   * Adds one request to the series of {@code s} ({@link #addTo}), at its second; {@code breach} is
   * 1 when it was over its SLO: its service's, else (when it has none) the pod's class's.
   */
  static void addRequestTo(
      TimelineState s,
      RequestLog r,
      boolean error,
      long breach,
      Double classSloMs,
      TimelineSettings settings) {
    long second = InputSeconds.secondOf(r.getTime());
    Double serviceSlo = settings.serviceSlo(r.getService());
    addTo(
        s,
        second,
        series ->
            addRequests(
                series,
                baseStepMs(settings),
                second,
                1,
                error ? 1 : 0,
                breach,
                r.getLatencyMs() == null ? List.of() : List.of(r.getLatencyMs()),
                serviceSlo,
                serviceSlo == null && r.getLatencyMs() != null ? classSloMs : null));
  }

  /**
   * Adds inputs, the earliest at {@code earliest}, to the series of {@code s} through {@code add}.
   * The series' first {@code seriesStored} points live in the pod-series store between commits;
   * when an input reaches one of them, or the step grows (merging them), the store's copy no longer
   * holds and is marked {@link #STORED_STALE}, to be rewritten at the next commit.
   */
  private static void addTo(TimelineState s, long earliest, UnaryOperator<PodSeries> add) {
    PodSeries before = s.getSeries();
    int stored = s.getSeriesStored();
    long step = before == null ? 0 : before.getStepMs();
    long storedEnd = stored > 0 ? before.getPoints().get(stored - 1).getAt() + step : 0;
    PodSeries after = add.apply(before);
    s.setSeries(after);
    if (stored > 0 && (earliest < storedEnd || after.getStepMs() != step)) {
      s.setSeriesStored(STORED_STALE);
    }
  }

  /**
   * Adds one second of a pod's inputs: its GPU readings by their sample time with the span each
   * stands for, its requests at the second, {@code breaches} of them over their SLO. {@code
   * classSloMs} is the pod's priority class's SLO (or null); the second's own services' SLO comes
   * with it.
   */
  static PodSeries add(
      PodSeries series,
      InputSecond in,
      long breaches,
      Double classSloMs,
      TimelineSettings settings) {
    PodSeries s = series;
    long base = baseStepMs(settings);
    for (GpuReading r : in.getGpu()) {
      s = addSample(s, r.getTime(), r.getUtil(), GpuBusy.span(r.getIntervalMs(), settings), base);
    }
    if (in.getRequests() > 0) {
      s =
          addRequests(
              s,
              base,
              in.getSecond(),
              in.getRequests(),
              in.getErrors(),
              breaches,
              in.getLatencies(),
              in.getServiceSloMs(),
              in.getClassLatencies().isEmpty() ? null : classSloMs);
    }
    return s;
  }

  /**
   * Adds one GPU sample at {@code t} of utilisation {@code util} standing for {@code spanMs}; a new
   * series starts at {@code baseStepMs} ({@link #baseStepMs}).
   */
  static PodSeries addSample(PodSeries series, long t, double util, long spanMs, long baseStepMs) {
    return addPoint(
        orEmpty(series, baseStepMs),
        t,
        GpuBusy.busyMicros(util, spanMs),
        spanMs * 1000L,
        0,
        0,
        0,
        List.of());
  }

  /**
   * Adds requests at {@code t}, {@code breaches} of them over the SLO; {@code serviceSloMs} and
   * {@code classSloMs} are the SLOs some of them were judged against (null: none was).
   */
  static PodSeries addRequests(
      PodSeries series,
      long baseStepMs,
      long t,
      long requests,
      long errors,
      long breaches,
      List<Double> latencies,
      Double serviceSloMs,
      Double classSloMs) {
    PodSeries s =
        addPoint(orEmpty(series, baseStepMs), t, 0, 0, requests, errors, breaches, latencies);
    s.setSloMs(slo(s.getSloMs(), serviceSloMs, classSloMs));
    return s;
  }

  private static PodSeries orEmpty(PodSeries s, long baseStepMs) {
    return s == null ? new PodSeries(baseStepMs, null, new ArrayList<>()) : s;
  }

  /**
   * The smallest SLO any of the pod's requests was judged against: the line the page draws. A
   * minimum, so that it does not depend on which requests came first.
   */
  private static Double slo(Double current, Double service, Double classSlo) {
    Double best = current;
    for (Double x : new Double[] {service, classSlo}) {
      if (x != null && (best == null || x < best)) {
        best = x;
      }
    }
    return best;
  }

  /**
   * Adds to the point of {@code t}, in place: the series belongs to the pod's state (a published
   * timeline that shares it is serialized when it is forwarded, before the next input), and a busy
   * pod's series takes a second of inputs at a time, so copying its points each time would cost
   * more than the rest of applying them.
   */
  private static PodSeries addPoint(
      PodSeries s,
      long t,
      long busy,
      long sampled,
      long requests,
      long errors,
      long breaches,
      List<Double> latencies) {
    List<PodPoint> points = s.getPoints();
    long step = s.getStepMs();
    // Grow the step until the new time fits with the points there are.
    while (!points.isEmpty()) {
      long first = Math.min(points.get(0).getAt(), align(t, step));
      long last = Math.max(points.get(points.size() - 1).getAt(), align(t, step));
      if ((last - first) / step < MAX_POINTS) {
        break;
      }
      step *= 2;
      points = regroup(points, step);
    }
    s.setStepMs(step);
    s.setPoints(points);
    long at = align(t, step);
    int i = points.size();
    while (i > 0 && points.get(i - 1).getAt() > at) {
      i--; // inputs mostly come in time order: the point is the last one, or a new last one
    }
    PodPoint p;
    if (i > 0 && points.get(i - 1).getAt() == at) {
      p = points.get(i - 1);
      p.setBusyMicros(p.getBusyMicros() + busy);
      p.setSampledMicros(p.getSampledMicros() + sampled);
      p.setRequests(p.getRequests() + requests);
      p.setErrors(p.getErrors() + errors);
      p.setSloBreaches(p.getSloBreaches() + breaches);
    } else {
      p = new PodPoint(at, busy, sampled, requests, errors, breaches, new ArrayList<>());
      points.add(i, p);
    }
    if (!latencies.isEmpty()) {
      if (!(p.getLatency() instanceof ArrayList || p.getLatency() instanceof GenericData.Array)) {
        p.setLatency(new ArrayList<>(p.getLatency())); // an immutable list: the schema default
      }
      LatencyBins.addTo(p.getLatency(), latencies);
    }
    return s;
  }

  /** Points (in time order) added into the aligned steps of {@code step}. */
  static List<PodPoint> regroup(List<PodPoint> points, long step) {
    List<PodPoint> out = new ArrayList<>();
    for (PodPoint p : points) {
      long at = align(p.getAt(), step);
      PodPoint last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last.getAt() == at) {
        out.set(
            out.size() - 1,
            new PodPoint(
                at,
                last.getBusyMicros() + p.getBusyMicros(),
                last.getSampledMicros() + p.getSampledMicros(),
                last.getRequests() + p.getRequests(),
                last.getErrors() + p.getErrors(),
                last.getSloBreaches() + p.getSloBreaches(),
                LatencyBins.merge(last.getLatency(), p.getLatency())));
      } else {
        out.add(
            new PodPoint(
                at,
                p.getBusyMicros(),
                p.getSampledMicros(),
                p.getRequests(),
                p.getErrors(),
                p.getSloBreaches(),
                p.getLatency()));
      }
    }
    return out;
  }

  static long align(long t, long step) {
    return Math.floorDiv(t, step) * step;
  }
}
