package io.schedlens.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.IndexedRecord;

/**
 * Plain JSON of an Avro record with the schema's field names (DESIGN.md's names for timelines):
 * null, numbers, strings, nested objects; unions are not wrapped as Avro's own JSON encoding wraps
 * them. For the API, {@code timelines.jsonl} and reports.
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
      new java.util.TreeMap<>(m).forEach((k, x) -> o.set(k.toString(), value(x)));
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
}
