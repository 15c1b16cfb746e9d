package io.schedlens.connect;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Avro data to Connect data and back, for the kinds of schema schedlens' records use: records,
 * nullable unions ({@code ["null", X]}, an optional X), strings and enums, numbers, booleans,
 * bytes, arrays, string-keyed maps, and {@code timestamp-millis} longs, which become Connect {@link
 * Timestamp}s. Connect schemas are cached per Avro schema.
 *
 * <p>Written here rather than taken from Confluent's AvroData: that one comes with the Schema
 * Registry client and its license, and expects the registry's wire format, not Avro's single-object
 * encoding.
 */
final class AvroConnectData {

  private final Map<Schema, org.apache.kafka.connect.data.Schema> cache = new ConcurrentHashMap<>();

  /** The Connect schema of an Avro schema. */
  org.apache.kafka.connect.data.Schema connectSchema(Schema avro) {
    // not computeIfAbsent: building a record's schema builds those of the records inside it
    org.apache.kafka.connect.data.Schema s = cache.get(avro);
    if (s == null) {
      s = build(avro, false);
      cache.put(avro, s);
    }
    return s;
  }

  private org.apache.kafka.connect.data.Schema build(Schema avro, boolean optional) {
    SchemaBuilder b =
        switch (avro.getType()) {
          case RECORD -> {
            SchemaBuilder s = SchemaBuilder.struct().name(avro.getFullName());
            if (avro.getDoc() != null) {
              s.doc(avro.getDoc());
            }
            for (Schema.Field f : avro.getFields()) {
              s.field(f.name(), field(f.schema()));
            }
            yield s;
          }
          case UNION -> throw new DataException("only [\"null\", X] unions are supported: " + avro);
          case STRING, ENUM -> SchemaBuilder.string();
          case INT -> SchemaBuilder.int32();
          case LONG ->
              avro.getLogicalType() instanceof LogicalTypes.TimestampMillis
                  ? Timestamp.builder()
                  : SchemaBuilder.int64();
          case FLOAT -> SchemaBuilder.float32();
          case DOUBLE -> SchemaBuilder.float64();
          case BOOLEAN -> SchemaBuilder.bool();
          case BYTES, FIXED -> SchemaBuilder.bytes();
          case ARRAY -> SchemaBuilder.array(field(avro.getElementType()));
          case MAP -> SchemaBuilder.map(SchemaBuilder.string().build(), field(avro.getValueType()));
          case NULL -> throw new DataException("a field of type null alone is not supported");
        };
    return optional ? b.optional().build() : b.build();
  }

  private org.apache.kafka.connect.data.Schema field(Schema avro) {
    if (avro.isUnion()) {
      Schema value = nonNull(avro);
      return value.getType() == Schema.Type.RECORD
          ? optionalCopy(connectSchema(value))
          : build(value, true);
    }
    return avro.getType() == Schema.Type.RECORD ? connectSchema(avro) : build(avro, false);
  }

  private static org.apache.kafka.connect.data.Schema optionalCopy(
      org.apache.kafka.connect.data.Schema struct) {
    SchemaBuilder s = SchemaBuilder.struct().name(struct.name()).optional();
    if (struct.doc() != null) {
      s.doc(struct.doc());
    }
    struct.fields().forEach(f -> s.field(f.name(), f.schema()));
    return s.build();
  }

  static Schema nonNull(Schema union) {
    List<Schema> types = union.getTypes();
    if (types.size() != 2 || types.get(0).getType() != Schema.Type.NULL) {
      throw new DataException("only [\"null\", X] unions are supported: " + union);
    }
    return types.get(1);
  }

  /** A Connect value of {@code connect} from an Avro value of {@code avro}. */
  Object toConnect(Schema avro, org.apache.kafka.connect.data.Schema connect, Object value) {
    if (value == null) {
      return null;
    }
    if (avro.isUnion()) {
      return toConnect(nonNull(avro), connect, value);
    }
    return switch (avro.getType()) {
      case RECORD -> {
        IndexedRecord r = (IndexedRecord) value;
        Struct s = new Struct(connect);
        for (Schema.Field f : avro.getFields()) {
          s.put(f.name(), toConnect(f.schema(), connect.field(f.name()).schema(), r.get(f.pos())));
        }
        yield s;
      }
      case STRING, ENUM -> value.toString();
      case LONG ->
          avro.getLogicalType() instanceof LogicalTypes.TimestampMillis
              ? new Date((Long) value)
              : value;
      case BYTES -> value instanceof ByteBuffer bb ? bytes(bb) : value;
      case FIXED -> ((GenericData.Fixed) value).bytes();
      case ARRAY -> {
        List<Object> out = new ArrayList<>();
        for (Object item : (Iterable<?>) value) {
          out.add(toConnect(avro.getElementType(), connect.valueSchema(), item));
        }
        yield out;
      }
      case MAP -> {
        Map<String, Object> out = new LinkedHashMap<>();
        ((Map<?, ?>) value)
            .forEach(
                (k, v) ->
                    out.put(
                        k.toString(), toConnect(avro.getValueType(), connect.valueSchema(), v)));
        yield out;
      }
      default -> value;
    };
  }

  /** An Avro value of {@code avro} from a Connect value. */
  Object toAvro(Schema avro, Object value) {
    if (value == null) {
      if (avro.isUnion() || avro.getType() == Schema.Type.NULL) {
        return null;
      }
      throw new DataException("no value for a required field of type " + avro.getType());
    }
    if (avro.isUnion()) {
      return toAvro(nonNull(avro), value);
    }
    return switch (avro.getType()) {
      case RECORD -> {
        Struct s = (Struct) value;
        GenericRecord r = new GenericData.Record(avro);
        for (Schema.Field f : avro.getFields()) {
          Object v = s.schema().field(f.name()) == null ? null : s.get(f.name());
          if (v == null && f.hasDefaultValue() && !f.schema().isUnion()) {
            r.put(f.pos(), GenericData.get().getDefaultValue(f));
          } else {
            r.put(f.pos(), toAvro(f.schema(), v));
          }
        }
        yield r;
      }
      case ENUM -> new GenericData.EnumSymbol(avro, value.toString());
      case LONG -> value instanceof Date d ? d.getTime() : ((Number) value).longValue();
      case INT -> ((Number) value).intValue();
      case DOUBLE -> ((Number) value).doubleValue();
      case FLOAT -> ((Number) value).floatValue();
      case BYTES -> ByteBuffer.wrap((byte[]) value);
      case ARRAY -> {
        List<Object> out = new ArrayList<>();
        for (Object item : (List<?>) value) {
          out.add(toAvro(avro.getElementType(), item));
        }
        yield out;
      }
      case MAP -> {
        Map<String, Object> out = new HashMap<>();
        ((Map<?, ?>) value)
            .forEach((k, v) -> out.put(k.toString(), toAvro(avro.getValueType(), v)));
        yield out;
      }
      default -> value;
    };
  }

  private static byte[] bytes(ByteBuffer bb) {
    byte[] out = new byte[bb.remaining()];
    bb.duplicate().get(out);
    return out;
  }
}
