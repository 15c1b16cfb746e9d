package io.schedlens.schemas;

import io.schedlens.avro.ProgressMark;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Event-time watermarks on the input topics (see {@link ProgressMark}). A mark travels in the
 * partition it describes, between the records, so that its position says exactly which records it
 * covers: a consumer that reads a mark of time T has read everything its producer wrote before T
 * (minus the grace period for late records). Marks carry the header {@value #HEADER} so that
 * readers that want only the data skip them without decoding; the streams app's reader of each
 * input topic turns them into its stage's mark input.
 */
public final class ProgressMarks {

  /** The header that tells a mark from a data record. */
  public static final String HEADER = "schedlens-progress";

  /** The time of a mark that ends the input: nothing more will come. */
  public static final long END = Long.MAX_VALUE;

  private static final byte[] ONE = "1".getBytes(StandardCharsets.UTF_8);
  private static final AvroSerde<ProgressMark> SERDE = AvroSerde.of(ProgressMark.class);

  private ProgressMarks() {}

  /** Whether a record with these headers is a progress mark. */
  public static boolean isMark(Headers headers) {
    if (headers == null) {
      return false;
    }
    Header h = headers.lastHeader(HEADER);
    return h != null;
  }

  /** Headers to send a mark with. */
  public static Headers headers() {
    RecordHeaders h = new RecordHeaders();
    h.add(HEADER, ONE);
    return h;
  }

  /** The encoded value of a mark. */
  public static byte[] value(String producer, long time) {
    return SERDE.serialize("", new ProgressMark(producer, time));
  }

  /** Decodes a mark's value. */
  public static ProgressMark decode(byte[] value) {
    return SERDE.deserialize("", value);
  }

  /** The Kafka timestamp of a mark: its time, or {@code now} for the end of input. */
  public static long timestamp(long time, long now) {
    return time == END ? now : Math.max(0, time);
  }
}
