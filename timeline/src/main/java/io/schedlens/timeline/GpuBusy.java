package io.schedlens.timeline;

import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.internal.BusyMinute;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.base.GpuShares;
import io.schedlens.schemas.GpuSeriesId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Busy GPU-seconds from DCGM samples: each sample's utilisation times the span it stands for, the
 * time since the previous sample of the same GPU ({@code intervalMs}, measured by the collector,
 * which reads a target's scrapes in order; the first sample of a GPU stands for one scrape
 * interval), at most {@code gpuMaxGap}: a longer gap is missing data, not busy or idle time. DCGM
 * reports utilisation averaged over its last sampling period, so a sample describes the span before
 * it.
 *
 * <p>With the span on each sample, the busy time is a sum, and a sum does not depend on the order
 * the samples arrive in: any order within the grace period gives the same number (the pod stage
 * counts a sample delivered twice once). For the busy part of wasted work it is also kept per
 * minute of sample time, the latest 64 minutes, older ones folded into one sum.
 */
final class GpuBusy {

  /** The newer graphics-engine-active ratio when the exporter reports it, else GPU_UTIL. */
  static final String ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";

  static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
  private static final long MINUTE_MS = 60_000;
  static final int MINUTES_KEPT = 64;

  private GpuBusy() {}

  /**
   * The pod's part of its device's time as a ratio 0..1, or null when the sample carries neither
   * field: the device's utilisation split equally among the pods the scrape attributed it to
   * ({@link GpuSample#getHolders}, a time-sliced or MPS GPU), or the pod's own processes' {@code
   * DCGM_FI_DEV_GPU_UTIL} where dcgm-exporter measured them ({@link GpuSample#getOwnUtilisation}).
   */
  static Double utilisation(GpuSample s) {
    Map<String, Double> f = s.getFields();
    if (s.getOwnUtilisation()) {
      return ratio(percent(f.get(GPU_UTIL)));
    }
    Double v = f.get(ENGINE_ACTIVE);
    if (v == null) {
      v = percent(f.get(GPU_UTIL));
    }
    Double util = ratio(v);
    if (util == null || s.getHolders() <= 1) {
      return util;
    }
    return util / s.getHolders();
  }

  private static Double percent(Double pct) {
    return pct == null ? null : pct / 100.0;
  }

  private static Double ratio(Double v) {
    return v == null || v.isNaN() ? null : Math.max(0.0, Math.min(1.0, v));
  }

  /** Whether the sample showed the pod's GPU shared with other pods. */
  static boolean shared(GpuSample s) {
    return s.getHolders() > 1 || s.getOwnUtilisation();
  }

  /**
   * The part of its physical GPU a sample's device is when it is a MIG instance ({@code
   * GPU_I_PROFILE}, with {@code modelName}), else null (a whole GPU).
   */
  static Double share(GpuSample s) {
    if (s.getMigProfile() == null) {
      return null;
    }
    return GpuShares.device(null, s.getMigProfile(), s.getModelName());
  }

  /**
   * Keeps the share a MIG instance's sample showed (a pod's devices are all alike), and whether a
   * sample showed the GPU shared.
   */
  static void sampled(TimelineState state, Double share, boolean shared) {
    if (share != null) {
      state.getGpu().setSampledShare(share);
    }
    if (shared) {
      state.getGpu().setSampledShared(true);
    }
  }

  static String seriesId(GpuSample s) {
    return GpuSeriesId.of(s);
  }

  /** The span a sample stands for, ms: its interval (else one scrape interval), at most the gap. */
  static long span(Long intervalMs, TimelineSettings settings) {
    long span = intervalMs == null ? settings.gpuSampleInterval().toMillis() : intervalMs;
    return Math.max(0, Math.min(span, settings.gpuMaxGap().toMillis()));
  }

  /**
   * A sample's busy GPU time, microseconds: rounded per sample so that the sum over samples is an
   * integer sum, exact in any order (a sum of doubles differs in its last digits by order).
   */
  static long busyMicros(double util, long spanMs) {
    return Math.round(util * spanMs * 1000.0);
  }

  /** Adds a sample at {@code t} of utilisation {@code util} standing for {@code spanMs}. */
  static void add(TimelineState state, long t, double util, long spanMs) {
    long busy = busyMicros(util, spanMs);
    state.getGpu().setBusyMicros(state.getGpu().getBusyMicros() + busy);
    state.getGpu().setLastSampleAt(Math.max(state.getGpu().getLastSampleAt(), t));
    long minute = Math.floorDiv(t, MINUTE_MS) * MINUTE_MS;
    List<BusyMinute> minutes = state.getGpu().getBusyByMinute();
    if (minutes.size() >= MINUTES_KEPT && minute < minutes.get(0).getMinute()) {
      state.getGpu().setBusyBeforeMinutesMicros(state.getGpu().getBusyBeforeMinutesMicros() + busy);
      return;
    }
    List<BusyMinute> m = new ArrayList<>(minutes);
    int i = 0;
    while (i < m.size() && m.get(i).getMinute() < minute) {
      i++;
    }
    if (i < m.size() && m.get(i).getMinute() == minute) {
      m.set(i, new BusyMinute(minute, m.get(i).getBusyMicros() + busy));
    } else {
      m.add(i, new BusyMinute(minute, busy));
    }
    // The oldest minutes fold into one sum. The minutes kept are the latest 64 of all samples
    // (a minute once folded or refused is older than 64 kept ones, and stays so), so the final
    // state is the same in any order.
    while (m.size() > MINUTES_KEPT) {
      state
          .getGpu()
          .setBusyBeforeMinutesMicros(
              state.getGpu().getBusyBeforeMinutesMicros() + m.remove(0).getBusyMicros());
    }
    state.getGpu().setBusyByMinute(m);
  }

  /** Busy GPU-seconds of every sample so far. */
  static double total(TimelineState state) {
    return state.getGpu().getBusyMicros() / 1e6;
  }

  /**
   * GPU-seconds the pod's samples stand for (the sum of their spans over its GPUs), from its
   * series, whose points keep every sample's span as a sum; null for a state from before the series
   * (it cannot tell sampled time from a gap).
   */
  static Double sampled(TimelineState state) {
    PodSeries series = state.getSeries();
    if (series == null) {
      return state.getGpu().getBusyMicros() == 0 ? 0.0 : null;
    }
    long micros = 0;
    for (PodPoint p : series.getPoints()) {
      micros += p.getSampledMicros();
    }
    return micros / 1e6;
  }

  /**
   * Busy GPU-seconds of the samples up to time {@code t}: whole minutes before it, the minute of
   * {@code t} pro rata, and, before the minutes kept, linear from the start of running.
   */
  static double until(TimelineState state, long t, Long runningAt) {
    List<BusyMinute> minutes = state.getGpu().getBusyByMinute();
    double before = state.getGpu().getBusyBeforeMinutesMicros() / 1e6;
    if (minutes.isEmpty()) {
      return t >= state.getGpu().getLastSampleAt() ? total(state) : 0;
    }
    long first = minutes.get(0).getMinute();
    if (t < first) {
      if (before == 0 || runningAt == null || t <= runningAt || first <= runningAt) {
        return 0;
      }
      return before * (t - runningAt) / (double) (first - runningAt);
    }
    double sum = before;
    for (BusyMinute p : minutes) {
      long end = p.getMinute() + MINUTE_MS;
      double busy = p.getBusyMicros() / 1e6;
      if (t >= end) {
        sum += busy;
      } else if (t > p.getMinute()) {
        sum += busy * (t - p.getMinute()) / (double) MINUTE_MS;
      }
    }
    return sum;
  }
}
