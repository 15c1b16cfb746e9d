package io.schedlens.projections.dcgm;

import io.schedlens.avro.GpuSample;
import io.schedlens.schemas.GpuSeriesId;
import java.util.HashMap;
import java.util.Map;

/**
 * Stamps each GPU sample with the time since the previous sample of the same GPU from the same
 * target ({@code intervalMs}): the span its utilisation stands for (docs/design.md,
 * busyGpuSeconds). The collector reads a target's scrapes in order, so it knows the previous
 * sample; the streams app may receive them in any order within the grace period, and with the span
 * on each sample its busy GPU-seconds are a plain sum, the same in any order. One per target (or
 * recorded file), fed its samples in time order; the first sample of a GPU gets none.
 */
public final class GpuIntervals {

  private final Map<String, Long> last = new HashMap<>();

  /** Sets the sample's interval since the previous one of its GPU (0 for a repeated time). */
  public void stamp(GpuSample sample) {
    String id = GpuSeriesId.of(sample);
    long t = sample.getTime();
    Long previous = last.get(id);
    if (previous != null) {
      sample.setIntervalMs(Math.max(0, t - previous));
    }
    if (previous == null || t > previous) {
      last.put(id, t);
    }
  }
}
