package io.schedlens.schemas;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers on the streams app's output records, for consumers that route without decoding the
 * value (Kafka Connect's predicates, stream processors):
 *
 * <ul>
 *   <li>{@value #SCHEMA}: the writer schema's CRC-64-AVRO fingerprint as 16 hex digits, the same
 *       number as in the value's single-object header, so a consumer can pick the schema (published
 *       with timestamps: {@link OutputSchemas}) before it decodes;
 *   <li>{@value #FINAL}: {@code true}, present only on a pod's final timeline (and on every
 *       preemption, each final when written). Presence is the signal because Connect's built-in
 *       {@code HasHeaderKey} predicate tests presence, not value.
 * </ul>
 */
public final class OutputHeaders {

  public static final String FINAL = "schedlens-final";
  public static final String SCHEMA = "schedlens-schema";

  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);

  private final byte[] fingerprint;

  private OutputHeaders(Schema schema) {
    this.fingerprint = hex(schema).getBytes(StandardCharsets.US_ASCII);
  }

  /** The headers of the records written with {@code schema}. */
  public static OutputHeaders of(Schema schema) {
    return new OutputHeaders(schema);
  }

  /** Fresh headers for one record (Kafka may add to them, so they are not shared). */
  public Headers headers(boolean isFinal) {
    RecordHeaders h = new RecordHeaders();
    h.add(SCHEMA, fingerprint);
    if (isFinal) {
      h.add(FINAL, TRUE);
    }
    return h;
  }

  /** The fingerprint as the header writes it. */
  public static String hex(Schema schema) {
    return String.format("%016x", fingerprint(schema));
  }

  /** The CRC-64-AVRO fingerprint of the parsing canonical form, as the single-object encoding's. */
  public static long fingerprint(Schema schema) {
    try {
      byte[] le = SchemaNormalization.parsingFingerprint("CRC-64-AVRO", schema);
      long v = 0;
      for (int i = 7; i >= 0; i--) {
        v = (v << 8) | (le[i] & 0xff);
      }
      return v;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
