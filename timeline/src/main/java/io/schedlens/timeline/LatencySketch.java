package io.schedlens.timeline;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.store.CollapsingLowestDenseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

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

  /**
   * The sketches last decoded or encoded, by the buffer that holds them (identity): a serving pod's
   * sketch takes a second of latencies at a time, and decoding it again each time cost more than
   * the rest of applying them. Only ever read and written by one stream thread per processor, but
   * shared by the threads of an instance, hence synchronized.
   */
  private static final Map<Ref, DDSketch> LAST =
      Collections.synchronizedMap(
          new LinkedHashMap<>(1024, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Ref, DDSketch> eldest) {
              return size() > 20_000;
            }
          });

  /** A buffer compared by identity: the very buffer a state holds, not equal bytes. */
  private record Ref(ByteBuffer buffer) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Ref r && r.buffer == buffer;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(buffer);
    }
  }

  /**
   * The sketch in {@code bytes}, to be changed: the one kept for that very buffer (taken out of the
   * cache, so it is never read for the old buffer again), else decoded anew. The buffer itself is
   * not changed: it keeps what it says until {@link #encodeAndKeep} replaces it in the state.
   */
  public static DDSketch decodeForUpdate(ByteBuffer bytes) {
    if (bytes == null) {
      return empty();
    }
    DDSketch cached = LAST.remove(new Ref(bytes));
    return cached != null ? cached : decode(bytes);
  }

  /** The sketch in {@code bytes}, to be read only. */
  public static DDSketch decodeForRead(ByteBuffer bytes) {
    if (bytes == null) {
      return empty();
    }
    DDSketch cached = LAST.get(new Ref(bytes));
    return cached != null ? cached : decode(bytes);
  }

  /** Encodes a sketch just updated, remembering it for the next {@link #decodeForUpdate}. */
  public static ByteBuffer encodeAndKeep(DDSketch sketch) {
    ByteBuffer b = encode(sketch);
    LAST.put(new Ref(b), sketch);
    return b;
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
