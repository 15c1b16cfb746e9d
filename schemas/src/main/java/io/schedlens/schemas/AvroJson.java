package io.schedlens.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Plain JSON of an Avro record with the schema's field names (docs/design.md's names for
 * timelines): null, numbers, strings, nested objects; unions are not wrapped as Avro's own JSON
 * encoding wraps them. For the API, {@code timelines.jsonl} and reports.
 */
public final class AvroJson {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private AvroJson() {}

  public static ObjectNode toJson(IndexedRecord record) {
    ObjectNode o = F.objectNode();
    for (Schema.Field f : record.getSchema().getFields()) {
      o.set(f.name(), value(record.get(f.pos())));
    }
    return o;
  }

  /** One line of JSON. */
  public static String toLine(IndexedRecord record) {
    try {
      return MAPPER.writeValueAsString(toJson(record));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode value(Object v) {
    if (v == null) {
      return F.nullNode();
    }
    if (v instanceof IndexedRecord r) {
      return toJson(r);
    }
    if (v instanceof Map<?, ?> m) {
      ObjectNode o = F.objectNode();
      new TreeMap<>(m).forEach((k, x) -> o.set(k.toString(), value(x)));
      return o;
    }
    if (v instanceof Collection<?> c) {
      ArrayNode a = F.arrayNode();
      c.forEach(x -> a.add(value(x)));
      return a;
    }
    if (v instanceof Long l) {
      return F.numberNode(l);
    }
    if (v instanceof Integer i) {
      return F.numberNode(i);
    }
    if (v instanceof Double d) {
      return d.isNaN() || d.isInfinite() ? F.nullNode() : F.numberNode(d);
    }
    if (v instanceof Float fl) {
      return F.numberNode(fl);
    }
    if (v instanceof Boolean b) {
      return F.booleanNode(b);
    }
    if (v instanceof ByteBuffer b) {
      ByteBuffer d = b.duplicate();
      byte[] bytes = new byte[d.remaining()];
      d.get(bytes);
      return F.textNode(Base64.getEncoder().encodeToString(bytes));
    }
    if (v instanceof GenericContainer) {
      return F.textNode(v.toString());
    }
    return F.textNode(v.toString());
  }

  /**
   * Reads the JSON form back into a record of the given specific type (the warehouse columns,
   * {@code timelines.jsonl}): nulls where the schema allows them, absent fields from their
   * defaults, unknown fields ignored.
   *
   * @throws IllegalArgumentException when a value does not fit the schema, saying which field
   */
  public static <T extends SpecificRecord> T fromJson(JsonNode json, Class<T> type) {
    Schema schema = SpecificData.get().getSchema(type);
    Object generic = read(json, schema, schema.getName());
    @SuppressWarnings("unchecked")
    T t = (T) SpecificData.get().deepCopy(schema, generic);
    return t;
  }

  /** One line of JSON back into a record. */
  public static <T extends SpecificRecord> T fromLine(String line, Class<T> type) {
    try {
      return fromJson(MAPPER.readTree(line), type);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
  }

  /** The first non-null branch that reads {@code v}; null where the union allows it. */
  private static Object union(JsonNode v, Schema schema, String at) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      if (schema.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.NULL)) {
        return null;
      }
      throw new IllegalArgumentException(at + ": null where a value is required");
    }
    IllegalArgumentException last = null;
    for (Schema branch : schema.getTypes()) {
      if (branch.getType() == Schema.Type.NULL) {
        continue;
      }
      try {
        return read(v, branch, at);
      } catch (IllegalArgumentException e) {
        last = e;
      }
    }
    throw last == null ? new IllegalArgumentException(at + ": no type fits") : last;
  }

  private static Object record(JsonNode v, Schema schema, String at) {
    if (!v.isObject()) {
      throw new IllegalArgumentException(at + ": an object expected");
    }
    GenericData.Record r = new GenericData.Record(schema);
    for (Schema.Field f : schema.getFields()) {
      JsonNode x = v.get(f.name());
      if (x == null && f.hasDefaultValue()) {
        r.put(f.pos(), GenericData.get().getDefaultValue(f));
      } else {
        r.put(f.pos(), read(x, f.schema(), at + "." + f.name()));
      }
    }
    return r;
  }

  private static Object read(JsonNode v, Schema schema, String at) {
    switch (schema.getType()) {
      case UNION -> {
        return union(v, schema, at);
      }
      case RECORD -> {
        return record(v, schema, at);
      }
      case MAP -> {
        Map<String, Object> m = new LinkedHashMap<>();
        v.fields()
            .forEachRemaining(
                e -> m.put(e.getKey(), read(e.getValue(), schema.getValueType(), at)));
        return m;
      }
      case ARRAY -> {
        List<Object> l = new ArrayList<>();
        v.forEach(x -> l.add(read(x, schema.getElementType(), at)));
        return l;
      }
      case STRING -> {
        if (!v.isTextual()) {
          throw new IllegalArgumentException(at + ": a string expected");
        }
        return v.asText();
      }
      case ENUM -> {
        return new GenericData.EnumSymbol(schema, v.asText());
      }
      case LONG -> {
        if (!v.canConvertToLong()) {
          throw new IllegalArgumentException(at + ": a whole number expected");
        }
        return v.asLong();
      }
      case INT -> {
        if (!v.canConvertToInt()) {
          throw new IllegalArgumentException(at + ": a whole number expected");
        }
        return v.asInt();
      }
      case DOUBLE, FLOAT -> {
        if (!v.isNumber()) {
          throw new IllegalArgumentException(at + ": a number expected");
        }
        return schema.getType() == Schema.Type.FLOAT ? (Object) (float) v.asDouble() : v.asDouble();
      }
      case BOOLEAN -> {
        if (!v.isBoolean()) {
          throw new IllegalArgumentException(at + ": true or false expected");
        }
        return v.asBoolean();
      }
      case BYTES -> {
        return ByteBuffer.wrap(Base64.getDecoder().decode(v.asText()));
      }
      case NULL -> {
        if (!v.isNull()) {
          throw new IllegalArgumentException(at + ": null expected");
        }
        return null;
      }
      default -> throw new IllegalArgumentException(at + ": unsupported type " + schema.getType());
    }
  }
}
