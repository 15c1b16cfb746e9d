package io.schedlens.topology;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A store's values compressed with zstd: the serde below's bytes (Avro single objects, marker
 * {@code C3 01}) as one zstd frame when that is smaller, else as they are. Zstd's frame magic
 * ({@code 28 B5 2F FD}) tells the two apart, so a store written by a release that did not compress
 * reads as it was. The pod stage's state is mostly numbers that repeat from point to point of a
 * series and names that repeat between fields: StreamsLoad's states take about half the bytes
 * (fleet 2,632 to about 1,370 per live pod, sparse 1,596 to about 1,260), in RocksDB, in the
 * changelogs and at restore. Zstd is the codec Kafka's own clients carry (zstd-jni).
 *
 * <p>Every state written at a commit is compressed, and every state read back after one (the
 * write-back buffer holds objects only until the commit) is decompressed, so speed counts more than
 * the last bytes: see {@link #LEVEL}. Contexts are kept per thread, as zstd's documentation advises
 * for many small values.
 *
 * @param <T> the stored value
 */
public final class CompressedSerde<T> implements Serde<T>, Serializer<T>, Deserializer<T> {

  /** Values shorter than this stay as they are: a frame's header costs more than it saves. */
  static final int MIN_BYTES = 64;

  /**
   * The largest value a frame may claim to hold, checked before anything is allocated for it: far
   * above what a changelog record carries (the producer's {@code max.request.size}, 1 MiB by
   * default), so only a damaged frame meets it.
   */
  static final int MAX_BYTES = 16 << 20;

  /**
   * Zstd's level: its first fast level. On StreamsLoad's states (pods-by-name and pod-series values
   * of 0.5 to 1.5 KB) it compresses one in 3 to 5 µs and reads one back in about 1.4 µs, against 6
   * to 9 µs and 2 to 3 µs at level 1, for 3 % (fleet) to 7 % (sparse) more bytes; lz4 was faster
   * still and left 10 % more than level 1 in the fleet.
   */
  static final int LEVEL = -1;

  private static final byte[] MAGIC = {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD};

  private final Serde<T> below;
  private final ThreadLocal<ZstdCompressCtx> compressing =
      ThreadLocal.withInitial(() -> new ZstdCompressCtx().setLevel(LEVEL).setContentSize(true));
  private final ThreadLocal<ZstdDecompressCtx> decompressing =
      ThreadLocal.withInitial(ZstdDecompressCtx::new);

  private CompressedSerde(Serde<T> below) {
    this.below = below;
  }

  /** {@code below}'s values, compressed. */
  public static <T> CompressedSerde<T> of(Serde<T> below) {
    return new CompressedSerde<>(below);
  }

  @Override
  public byte[] serialize(String topic, T data) {
    byte[] plain = below.serializer().serialize(topic, data);
    if (plain == null || plain.length < MIN_BYTES) {
      return plain;
    }
    byte[] frame = compressing.get().compress(plain);
    return frame.length < plain.length ? frame : plain;
  }

  @Override
  public T deserialize(String topic, byte[] bytes) {
    return below.deserializer().deserialize(topic, plain(topic, bytes));
  }

  /** The serde below's bytes of a stored value: decompressed if it is a frame, else as they are. */
  public byte[] plain(String topic, byte[] bytes) {
    if (!compressed(bytes)) {
      return bytes;
    }
    long size = Zstd.getFrameContentSize(bytes);
    if (size <= 0 || size > MAX_BYTES) {
      throw new SerializationException(
          "a compressed value in "
              + topic
              + " claims "
              + size
              + " bytes (a frame without its size, damaged, or over "
              + MAX_BYTES
              + "): the store's data is damaged; reset the application's state"
              + " (docs/operators/streams-app.md)");
    }
    try {
      return decompressing.get().decompress(bytes, (int) size);
    } catch (ZstdException e) {
      throw new SerializationException(
          "cannot decompress a value in "
              + topic
              + " ("
              + e.getMessage()
              + "): the store's data is damaged; reset the application's state"
              + " (docs/operators/streams-app.md)",
          e);
    }
  }

  /** Whether stored bytes are a zstd frame (not the serde below's own bytes). */
  static boolean compressed(byte[] bytes) {
    return bytes != null
        && bytes.length >= MAGIC.length
        && Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {}

  @Override
  public void close() {}

  @Override
  public Serializer<T> serializer() {
    return this;
  }

  @Override
  public Deserializer<T> deserializer() {
    return this;
  }
}
