package io.schedlens.streams.timeline;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.store.CollapsingLowestDenseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Request latencies of one pod in a DDSketch: quantiles within 2 % relative error, mergeable (so a
 * workload's or an arm's latencies can be combined), at most 256 buckets (a few hundred bytes).
 */
public final class LatencySketch {

  static final double RELATIVE_ACCURACY = 0.02;
  static final int MAX_BINS = 256;

  private LatencySketch() {}

  public static DDSketch empty() {
    return DDSketches.logarithmicCollapsingLowestDense(RELATIVE_ACCURACY, MAX_BINS);
  }

  public static DDSketch decode(ByteBuffer bytes) {
    if (bytes == null) {
      return empty();
    }
    ByteBuffer b = bytes.duplicate();
    byte[] array = new byte[b.remaining()];
    b.get(array);
    try {
      return DDSketch.decode(
          ByteArrayInput.wrap(array), () -> new CollapsingLowestDenseStore(MAX_BINS));
    } catch (IOException e) {
      throw new UncheckedIOException("corrupt latency sketch", e);
    }
  }

  /** DDSketch's own compact encoding (not its protobuf form, which {@link #decode} cannot read). */
  public static ByteBuffer encode(DDSketch sketch) {
    GrowingByteArrayOutput out = GrowingByteArrayOutput.withInitialCapacity(256);
    try {
      sketch.encode(out, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteBuffer.wrap(out.trimmedCopy());
  }

  /** The value at quantile q, or null when empty. */
  public static Double quantile(DDSketch sketch, double q) {
    return sketch.isEmpty() ? null : sketch.getValueAtQuantile(q);
  }
}
