package io.schedlens.runs.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;

/**
 * Whether a recording can be ordered in this JVM's heap. The replay orders its inputs in memory:
 * reading a recording takes about {@link #HEAP_PER_RECORDED_BYTE} bytes of heap per byte of its
 * files at the peak (measured on a recorded day08: 10 MB of files read within a 48 MB heap, not
 * within 32 MB; the 21,299 inputs then hold 14 MB), and the embedded broker and streams app need
 * {@link #RESERVED_BYTES} beside them. A recording larger than that is refused before anything is
 * read, with the heap it needs, instead of an OutOfMemoryError half-way; ordering beyond the heap
 * (an external merge sort) is not built.
 */
final class HeapBudget {

  static final int HEAP_PER_RECORDED_BYTE = 5;
  static final long RESERVED_BYTES = 512L << 20;

  private HeapBudget() {}

  /** The heap a recording of {@code bytes} needs. */
  static long needed(long bytes) {
    return bytes * HEAP_PER_RECORDED_BYTE + RESERVED_BYTES;
  }

  /**
   * @throws ConfigException when the files need more heap than {@code maxHeap}
   */
  static void check(List<String> files, long maxHeap) throws IOException {
    long bytes = 0;
    for (String f : files) {
      Path p = Path.of(f);
      if (Files.isRegularFile(p)) {
        bytes += Files.size(p);
      }
    }
    long need = needed(bytes);
    if (need > maxHeap) {
      throw new ConfigException(
          String.format(
              "the recording's %d files hold %,d MB, which replay orders in memory: that needs"
                  + " about %,d MB of heap and this JVM has %,d MB; run with"
                  + " JAVA_OPTS=-Xmx%dm, or cut the recording by time into several replays",
              files.size(), bytes >> 20, need >> 20, maxHeap >> 20, (need >> 20) + 256));
    }
  }
}
