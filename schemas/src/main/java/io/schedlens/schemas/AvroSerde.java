package io.schedlens.schemas;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.SystemLimitException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka serde for a generated Avro class using Avro single-object encoding: a two-byte marker, the
 * writer schema's 64-bit fingerprint, then the binary datum. The decoder knows every schema version
 * kept in {@link SchemaHistory}, so records written by an older producer still decode into the
 * current class (Avro schema resolution fills new fields with their defaults), and those written
 * before a move of fields into a nested record through its {@link SchemaMigrations} step. A type
 * whose versions only ever appended fields ({@link SchemaHistory#appendOnly}) is also read when
 * written by a newer version this build does not know: as its current version, the appended fields
 * skipped (so a collector upgraded before the streams app is not dead-lettered wholesale).
 *
 * <p>A serde for an input topic ({@link #asInput}) holds the records it reads to {@link
 * AvroLimits}: a record over the size bound, or one claiming a length its bytes do not hold, is a
 * {@link AvroLimits.OverLimit} before anything is allocated for it.
 *
 * <p>Thread-safe: Avro's message encoder and decoder keep their buffers per thread.
 */
public final class AvroSerde<T extends SpecificRecord>
    implements Serde<T>, Serializer<T>, Deserializer<T> {

  static {
    AvroLimits.install();
  }

  private static final Logger log = LoggerFactory.getLogger(AvroSerde.class);

  private final Class<T> type;
  private final Schema schema;
  private final byte[] header;
  private final DatumWriter<T> writer;
  private final ThreadLocal<Encoding> encoding = ThreadLocal.withInitial(Encoding::new);
  private final BinaryMessageDecoder<T> decoder;

  /** Whether a record of an unknown, newer version is read as the current one (append-only). */
  private final boolean readsNewer;

  private final DatumReader<T> currentReader;
  private final Set<Long> newerSeen = ConcurrentHashMap.newKeySet();

  /** Versions written before a move of fields ({@link SchemaMigrations}), or null. */
  private final Legacy legacy;

  /** Every schema a record may have been written with, by its fingerprint. */
  private final Map<Long, Schema> writers;

  /**
   * The writer schemas with a collection inside a collection, whose claims Avro's per-collection
   * limit does not bound together: the records checked before they are decoded ({@link #check}).
   */
  private final Set<Long> nesting;

  /** A decoder per thread for the check, reused as Avro's own decoders are. */
  private final ThreadLocal<BinaryDecoder> checking = new ThreadLocal<>();

  /** The largest record it reads, checked before decoding ({@link #asInput}); 0: not checked. */
  private final int maxRecordBytes;

  /**
   * How a value written before a move of fields is read: as the last version before it (Avro
   * resolution from its own), then moved, then decoded as the current class. Rare (once per stored
   * value after an upgrade), so the round trip through bytes is kept simple.
   */
  private record Legacy(
      SchemaMigrations.Migration migration,
      Set<Long> fingerprints,
      BinaryMessageDecoder<GenericRecord> decoder) {}

  /**
   * A thread's buffer and encoder. Avro's own message encoder writes through a direct encoder, byte
   * by byte into a synchronized stream; the state of every pod is written that way for each change,
   * so this one buffers: the same bytes, several times faster.
   */
  private static final class Encoding {
    final ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    BinaryEncoder encoder;
  }

  AvroSerde(Class<T> type, List<Schema> olderVersions) {
    this(type, olderVersions, null, List.of(), false);
  }

  private AvroSerde(
      Class<T> type,
      List<Schema> olderVersions,
      SchemaMigrations.Migration migration,
      List<Schema> beforeMigration,
      boolean readsNewer) {
    this.type = type;
    this.readsNewer = readsNewer;
    SpecificData model = SpecificData.getForClass(type);
    // The generated classes carry hand-rolled encoders and decoders ("custom coders") that skip
    // the generic union resolution; they write the same bytes, several times faster.
    model.setCustomCoders(true);
    this.schema = model.getSchema(type);
    // The single-object encoding's header: the marker C3 01 and the schema's 64-bit CRC
    // fingerprint, little-endian, exactly as BinaryMessageEncoder writes it.
    byte[] fingerprint;
    try {
      fingerprint = SchemaNormalization.parsingFingerprint("CRC-64-AVRO", schema);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    this.header = new byte[2 + fingerprint.length];
    header[0] = (byte) 0xC3;
    header[1] = (byte) 0x01;
    System.arraycopy(fingerprint, 0, header, 2, fingerprint.length);
    this.writer = writerOf(model, schema);
    this.decoder = new BinaryMessageDecoder<>(model, schema);
    this.currentReader = readerOf(model, schema);
    olderVersions.forEach(decoder::addSchema);
    if (migration == null) {
      this.legacy = null;
    } else {
      BinaryMessageDecoder<GenericRecord> old =
          new BinaryMessageDecoder<>(GenericData.get(), migration.lastBeforeSchema());
      beforeMigration.forEach(old::addSchema);
      Set<Long> fingerprints = new HashSet<>();
      beforeMigration.forEach(v -> fingerprints.add(SchemaNormalization.parsingFingerprint64(v)));
      this.legacy = new Legacy(migration, Set.copyOf(fingerprints), old);
    }
    Map<Long, Schema> all = new HashMap<>();
    beforeMigration.forEach(v -> all.put(SchemaNormalization.parsingFingerprint64(v), v));
    olderVersions.forEach(v -> all.put(SchemaNormalization.parsingFingerprint64(v), v));
    all.put(SchemaNormalization.parsingFingerprint64(schema), schema);
    this.writers = Map.copyOf(all);
    Set<Long> nested = new HashSet<>();
    all.forEach(
        (f, s) -> {
          if (nestsCollections(s, false, new HashSet<>())) {
            nested.add(f);
          }
        });
    this.nesting = Set.copyOf(nested);
    this.maxRecordBytes = 0;
  }

  /** Whether a schema has an array or map somewhere inside an array or map. */
  private static boolean nestsCollections(Schema s, boolean inside, Set<String> seen) {
    return switch (s.getType()) {
      case ARRAY -> inside || nestsCollections(s.getElementType(), true, seen);
      case MAP -> inside || nestsCollections(s.getValueType(), true, seen);
      case UNION -> s.getTypes().stream().anyMatch(t -> nestsCollections(t, inside, seen));
      case RECORD ->
          seen.add(s.getFullName() + inside)
              && s.getFields().stream().anyMatch(f -> nestsCollections(f.schema(), inside, seen));
      default -> false;
    };
  }

  /** The same serde, reading records of at most {@code maxRecordBytes}, their claims checked. */
  private AvroSerde(AvroSerde<T> base, int maxRecordBytes) {
    this.type = base.type;
    this.schema = base.schema;
    this.header = base.header;
    this.writer = base.writer;
    this.decoder = base.decoder;
    this.readsNewer = base.readsNewer;
    this.currentReader = base.currentReader;
    this.legacy = base.legacy;
    this.writers = base.writers;
    this.nesting = base.nesting;
    this.maxRecordBytes = maxRecordBytes;
  }

  /**
   * This serde for an input topic, which others write: a record over {@link
   * AvroLimits#MAX_INPUT_RECORD_BYTES} is an {@link AvroLimits.OverLimit} before it is decoded.
   * What decoding may then allocate is bounded by Avro's limits on each string, bytes value and
   * collection ({@link AvroLimits}); where a collection holds collections, whose claims those
   * limits do not bound together, the record is first walked without keeping anything (Avro's own
   * skipping) and one claiming more than its bytes hold is an {@link AvroLimits.OverLimit} too.
   */
  public AvroSerde<T> asInput() {
    return new AvroSerde<>(this, AvroLimits.MAX_INPUT_RECORD_BYTES);
  }

  @SuppressWarnings("unchecked")
  private static <T> DatumReader<T> readerOf(SpecificData model, Schema schema) {
    return (DatumReader<T>) model.createDatumReader(schema);
  }

  @SuppressWarnings("unchecked")
  private static <T> DatumWriter<T> writerOf(SpecificData model, Schema schema) {
    return (DatumWriter<T>) model.createDatumWriter(schema);
  }

  /** A serde that also decodes every recorded earlier version of the type's schema. */
  public static <T extends SpecificRecord> AvroSerde<T> of(Class<T> type) {
    SpecificData model = SpecificData.getForClass(type);
    Schema current = model.getSchema(type);
    long fingerprint = OutputHeaders.fingerprint(current);
    List<Schema> versions = SchemaHistory.versionsOf(current.getName());
    SchemaMigrations.Migration migration = SchemaMigrations.of(current.getName()).orElse(null);
    int moved = migration == null ? 0 : migration.lastBefore();
    // A recorded version with the same fingerprint is the same wire schema (e.g. the published
    // form with logical types): decoding keeps the current schema for it, and its fast coders.
    List<Schema> all = new ArrayList<>(versions);
    if (all.isEmpty() || OutputHeaders.fingerprint(all.get(all.size() - 1)) != fingerprint) {
      all.add(current);
    }
    return new AvroSerde<>(
        type,
        versions.subList(moved, versions.size()).stream()
            .filter(v -> OutputHeaders.fingerprint(v) != fingerprint)
            .toList(),
        migration,
        versions.subList(0, moved),
        migration == null && SchemaHistory.appendOnly(all));
  }

  /** The schema this serde writes. */
  public Schema schema() {
    return schema;
  }

  @Override
  public byte[] serialize(String topic, T data) {
    if (data == null) {
      return null;
    }
    try {
      Encoding e = encoding.get();
      e.out.reset();
      e.out.write(header);
      e.encoder = EncoderFactory.get().binaryEncoder(e.out, e.encoder);
      writer.write(data, e.encoder);
      e.encoder.flush();
      return e.out.toByteArray();
    } catch (IOException | AvroRuntimeException | NullPointerException | ClassCastException e) {
      throw new SerializationException(
          "cannot encode " + type.getSimpleName() + " for topic " + topic + ": " + e.getMessage(),
          e);
    }
  }

  @Override
  public T deserialize(String topic, byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    if (maxRecordBytes > 0) {
      check(topic, bytes);
    }
    try {
      if (legacy != null
          && bytes.length >= 10
          && legacy.fingerprints().contains(fingerprintOf(bytes))) {
        return migrated(legacy.decoder().decode(bytes));
      }
      return decoder.decode(bytes);
    } catch (MissingSchemaException e) {
      if (readsNewer) {
        return newer(topic, bytes);
      }
      throw notKnown(topic, e);
    } catch (SystemLimitException e) {
      throw overLimit(topic, bytes, e.getMessage(), e);
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException e) {
      throw notKnown(topic, e);
    }
  }

  /**
   * A record from an input topic held to the limits before it is decoded: its size, and every
   * length it claims, walked with Avro's skipping (which allocates nothing for what it skips).
   */
  private void check(String topic, byte[] bytes) {
    if (bytes.length > maxRecordBytes) {
      throw overLimit(
          topic, bytes, "over the limit of " + maxRecordBytes + " bytes for an input record", null);
    }
    if (bytes.length < 10 || bytes[0] != (byte) 0xC3 || bytes[1] != (byte) 0x01) {
      return; // not single-object encoded: the decoder says so
    }
    long fingerprint = fingerprintOf(bytes);
    Schema writtenWith = writers.get(fingerprint);
    if (writtenWith == null) {
      if (!readsNewer || !nesting.contains(SchemaNormalization.parsingFingerprint64(schema))) {
        return; // of no known version (the decoder says so), or bounded by Avro's limits
      }
      writtenWith = schema; // its first fields are the current version's
    } else if (!nesting.contains(fingerprint)) {
      return; // Avro's limits bound each of its claims, and so the whole
    }
    try {
      BinaryDecoder in =
          DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, checking.get());
      checking.set(in);
      GenericDatumReader.skip(writtenWith, in);
    } catch (EOFException e) {
      throw overLimit(topic, bytes, "a length in it claims more than its bytes hold", e);
    } catch (SystemLimitException e) {
      throw overLimit(topic, bytes, e.getMessage(), e);
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException e) {
      // malformed otherwise: the decoder says how
    }
  }

  private AvroLimits.OverLimit overLimit(String topic, byte[] bytes, String why, Exception e) {
    return new AvroLimits.OverLimit(
        "record of "
            + bytes.length
            + " bytes on "
            + topic
            + " is not read as a "
            + type.getSimpleName()
            + ": "
            + why,
        e);
  }

  /**
   * A record written by a newer version of an append-only type: its datum starts with the current
   * version's fields, then the ones appended since, which are left unread.
   */
  private T newer(String topic, byte[] bytes) {
    long fingerprint = fingerprintOf(bytes);
    if (newerSeen.add(fingerprint)) {
      log.warn(
          "{} on {} written with schema {}, newer than this build's: read as this build's version,"
              + " the fields added since ignored; upgrade this app to use them",
          type.getSimpleName(),
          topic,
          String.format("%016x", fingerprint));
    }
    try {
      return currentReader.read(
          null, DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, null));
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException e) {
      throw notKnown(topic, e);
    }
  }

  private SerializationException notKnown(String topic, Exception e) {
    return new SerializationException(
        "record on "
            + topic
            + " is not an Avro single-object encoded "
            + type.getSimpleName()
            + " of a known schema version ("
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage()
            + ")",
        e);
  }

  /** The writer schema's fingerprint in a single-object header (little-endian, after C3 01). */
  private static long fingerprintOf(byte[] bytes) {
    long f = 0;
    for (int i = 9; i >= 2; i--) {
      f = (f << 8) | (bytes[i] & 0xFF);
    }
    return f;
  }

  private T migrated(GenericRecord old) throws IOException {
    GenericRecord now = legacy.migration().forward(old, schema);
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(now, e);
    e.flush();
    // A reader per value: this path is rare, and a datum reader is not for sharing across threads.
    return AvroSerde.<T>readerOf(SpecificData.getForClass(type), schema)
        .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
  }

  @Override
  public Serializer<T> serializer() {
    return this;
  }

  @Override
  public Deserializer<T> deserializer() {
    return this;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {}

  @Override
  public void close() {}
}
