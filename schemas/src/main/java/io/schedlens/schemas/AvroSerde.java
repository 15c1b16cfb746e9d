package io.schedlens.schemas;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
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
  private final BinaryMessageEncoder<T> encoder;
  private final BinaryMessageDecoder<T> decoder;

  AvroSerde(Class<T> type, List<Schema> olderVersions) {
    this.type = type;
    SpecificData model = SpecificData.getForClass(type);
    // The generated classes carry hand-rolled encoders and decoders ("custom coders") that skip
    // the generic union resolution; they write the same bytes, several times faster.
    model.setCustomCoders(true);
    this.schema = model.getSchema(type);
    this.encoder = new BinaryMessageEncoder<>(model, schema);
    this.decoder = new BinaryMessageDecoder<>(model, schema);
    olderVersions.forEach(decoder::addSchema);
  }

  /** A serde that also decodes every recorded earlier version of the type's schema. */
  public static <T extends SpecificRecord> AvroSerde<T> of(Class<T> type) {
    SpecificData model = SpecificData.getForClass(type);
    return new AvroSerde<>(type, SchemaHistory.versionsOf(model.getSchema(type).getName()));
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
      ByteBuffer buffer = encoder.encode(data);
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
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
  public void configure(java.util.Map<String, ?> configs, boolean isKey) {}

  @Override
  public void close() {}
}
