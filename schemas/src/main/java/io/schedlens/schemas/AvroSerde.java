package io.schedlens.schemas;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde for a generated Avro class using Avro single-object encoding: a two-byte marker, the
 * writer schema's 64-bit fingerprint, then the binary datum. The decoder knows every schema version
 * kept in {@link SchemaHistory}, so records written by an older producer still decode into the
 * current class (Avro schema resolution fills new fields with their defaults).
 *
 * <p>Thread-safe: Avro's message encoder and decoder keep their buffers per thread.
 */
public final class AvroSerde<T extends SpecificRecord>
    implements Serde<T>, Serializer<T>, Deserializer<T> {

  private final Class<T> type;
  private final Schema schema;
  private final byte[] header;
  private final DatumWriter<T> writer;
  private final ThreadLocal<Encoding> encoding = ThreadLocal.withInitial(Encoding::new);
  private final BinaryMessageDecoder<T> decoder;

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
    this.type = type;
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
    olderVersions.forEach(decoder::addSchema);
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
    // A recorded version with the same fingerprint is the same wire schema (e.g. the published
    // form with logical types): decoding keeps the current schema for it, and its fast coders.
    return new AvroSerde<>(
        type,
        SchemaHistory.versionsOf(current.getName()).stream()
            .filter(v -> OutputHeaders.fingerprint(v) != fingerprint)
            .toList());
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
    try {
      return decoder.decode(bytes);
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException e) {
      throw new SerializationException(
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
