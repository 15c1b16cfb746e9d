package io.schedlens.connect;

import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.OutputSchemas;
import io.schedlens.schemas.SchemaHistory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * A Kafka Connect {@link Converter} for schedlens' topics: values in Avro single-object encoding
 * (marker {@code C3 01}, the writer schema's CRC-64-AVRO fingerprint, the binary datum), as the
 * collector and the streams app write them; keys, which are plain strings, as UTF-8.
 *
 * <p>Every recorded version of every topic's schema ({@link SchemaHistory}) is known, so records
 * written by an older version decode too; they are resolved to the current schema in its published
 * form ({@link OutputSchemas}: times as Connect {@code Timestamp}s), so that each topic has one
 * Connect schema. The other way round (a source connector or an SMT producing schedlens records)
 * encodes a Struct named after a schedlens record with that record's current schema.
 *
 * <pre>
 * value.converter=io.schedlens.connect.SchedlensConverter
 * key.converter=io.schedlens.connect.SchedlensConverter   (or Connect's StringConverter)
 * </pre>
 */
public final class SchedlensConverter implements Converter {

  private static final byte MARKER_0 = (byte) 0xC3;
  private static final byte MARKER_1 = (byte) 0x01;

  /** What a fingerprint decodes as: the current schema, and a reader from the writer's to it. */
  private record Known(Schema reader, GenericDatumReader<Object> datumReader) {}

  private final Map<Long, Known> byFingerprint = new HashMap<>();
  private final Map<String, Schema> currentByName = new HashMap<>();
  private final AvroConnectData data = new AvroConnectData();
  private boolean isKey;

  public SchedlensConverter() {
    GenericData model = new GenericData();
    for (String name : SchemaHistory.WIRE_TYPES) {
      Schema current;
      try {
        current = OutputSchemas.published(name);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("schedlens schema " + name + " is missing", e);
      }
      currentByName.put(current.getFullName(), current);
      for (Schema writer : SchemaHistory.versionsOf(name)) {
        byFingerprint.putIfAbsent(
            OutputHeaders.fingerprint(writer),
            new Known(current, new GenericDatumReader<>(writer, current, model)));
      }
      // the current schema last: a fingerprint shared with an annotated version decodes as current
      byFingerprint.put(
          OutputHeaders.fingerprint(current),
          new Known(current, new GenericDatumReader<>(current, current, model)));
    }
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    this.isKey = isKey;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    if (isKey) {
      return new SchemaAndValue(
          org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA,
          new String(value, StandardCharsets.UTF_8));
    }
    if (value.length < 10 || value[0] != MARKER_0 || value[1] != MARKER_1) {
      throw new DataException(
          "a record on "
              + topic
              + " is not in Avro single-object encoding (no C3 01 marker): is this a schedlens"
              + " topic? Use another converter for it.");
    }
    long fingerprint = ByteBuffer.wrap(value, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    Known known = byFingerprint.get(fingerprint);
    if (known == null) {
      throw new DataException(
          String.format(
              "a record on %s was written with schema fingerprint %016x, which this converter"
                  + " does not know: it was written by a newer schedlens; install the converter"
                  + " of that version",
              topic, fingerprint));
    }
    try {
      Object record =
          known
              .datumReader()
              .read(null, DecoderFactory.get().binaryDecoder(value, 10, value.length - 10, null));
      org.apache.kafka.connect.data.Schema schema = data.connectSchema(known.reader());
      return new SchemaAndValue(schema, data.toConnect(known.reader(), schema, record));
    } catch (IOException | RuntimeException e) {
      throw new DataException(
          "cannot decode a " + known.reader().getName() + " on " + topic + ": " + e.getMessage(),
          e);
    }
  }

  @Override
  public byte[] fromConnectData(
      String topic, org.apache.kafka.connect.data.Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    if (isKey) {
      return value.toString().getBytes(StandardCharsets.UTF_8);
    }
    if (!(value instanceof Struct s)) {
      throw new DataException("a schedlens value is a Struct, not " + value.getClass().getName());
    }
    Schema avro = currentByName.get(s.schema().name());
    if (avro == null) {
      throw new DataException(
          "a Struct named "
              + s.schema().name()
              + " is no schedlens record; known: "
              + currentByName.keySet());
    }
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(512);
      out.write(MARKER_0);
      out.write(MARKER_1);
      out.write(
          ByteBuffer.allocate(8)
              .order(ByteOrder.LITTLE_ENDIAN)
              .putLong(OutputHeaders.fingerprint(avro))
              .array());
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<Object>(avro, new GenericData()).write(data.toAvro(avro, s), enc);
      enc.flush();
      return out.toByteArray();
    } catch (IOException | RuntimeException e) {
      throw new DataException("cannot encode a " + avro.getName() + " for " + topic, e);
    }
  }
}
