package io.schedlens.schemas;

import org.apache.avro.SystemLimitException;
import org.apache.kafka.common.errors.SerializationException;

/**
 * How much a record may make the apps allocate while it is decoded: Avro's own limits on a string,
 * a bytes value and a collection (its system properties, which the apps set here unless the JVM was
 * given them), and, for a record from an input topic, a bound on its size and a check that every
 * length it claims is backed by its bytes ({@link AvroSerde#asInput}).
 *
 * <p>Without them a 15-byte record claiming a 600 MB string made the decoder allocate 600 MB: an
 * {@link OutOfMemoryError} on the stream thread, and the same record again after every restart.
 * With them it is a {@link SerializationException}, which the apps dead-letter with a reason.
 *
 * <p>The values are far above what a real record holds: a ConfigMap (an experiment's data) is at
 * most 1 MiB whole and a pod's annotations 256 KiB; a pod's longest collection in the streams app's
 * state (its minutes of GPU work, a workload's pods) stays in the tens of thousands.
 */
public final class AvroLimits {

  /** Avro 1.12's system properties ({@code org.apache.avro.SystemLimitException}). */
  public static final String STRING_PROPERTY = "org.apache.avro.limits.string.maxLength";

  public static final String BYTES_PROPERTY = "org.apache.avro.limits.bytes.maxLength";
  public static final String COLLECTION_PROPERTY =
      "org.apache.avro.limits.collectionItems.maxLength";

  /** The longest string a record may hold, in bytes. */
  public static final int MAX_STRING_BYTES = 1 << 20;

  /** The longest bytes value (a dead letter's raw input is bounded far below it). */
  public static final int MAX_BYTES_BYTES = 4 << 20;

  /** The most items of one array or map. */
  public static final int MAX_COLLECTION_ITEMS = 1_000_000;

  /** The largest record read from an input topic (Kafka's own default is 1 MiB). */
  public static final int MAX_INPUT_RECORD_BYTES = 4 << 20;

  private AvroLimits() {}

  /**
   * Sets Avro's limits, each unless the JVM was given its own ({@code -D...}). Avro reads them
   * once, when its limit class is first used, so this runs before any record is decoded: from
   * {@link AvroSerde}'s class initialisation and first thing in each app's {@code main}.
   */
  public static void install() {
    setIfAbsent(STRING_PROPERTY, MAX_STRING_BYTES);
    setIfAbsent(BYTES_PROPERTY, MAX_BYTES_BYTES);
    setIfAbsent(COLLECTION_PROPERTY, MAX_COLLECTION_ITEMS);
  }

  private static void setIfAbsent(String property, int value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, Integer.toString(value));
    }
  }

  /** A record over one of the limits: a dead letter with reason {@code over-limit}. */
  public static final class OverLimit extends SerializationException {
    private static final long serialVersionUID = 1L;

    public OverLimit(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Whether {@code e}, or what caused it, is a record over a limit. */
  public static boolean isOverLimit(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OverLimit || t instanceof SystemLimitException) {
        return true;
      }
    }
    return false;
  }
}
