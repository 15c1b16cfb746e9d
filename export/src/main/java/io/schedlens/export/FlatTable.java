package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * A warehouse table with one value per column (no nesting), for SQL users: its rows are taken from
 * a record's JSON form by the columns' paths. Every column is nullable.
 */
public record FlatTable(String name, List<Column> columns, Schema schema) {

  public static FlatTable of(String name, String doc, List<Column> columns) {
    SchemaBuilder.FieldAssembler<Schema> fields =
        SchemaBuilder.record(recordName(name))
            .namespace("io.schedlens.warehouse")
            .doc(doc)
            .fields();
    for (Column c : columns) {
      Schema type =
          switch (c.kind()) {
            case TEXT -> Schema.create(Schema.Type.STRING);
            case INT -> Schema.create(Schema.Type.INT);
            case BIGINT -> Schema.create(Schema.Type.LONG);
            case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
            case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
            case TIMESTAMP ->
                LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
          };
      fields =
          fields
              .name(c.name())
              .type(Schema.createUnion(Schema.create(Schema.Type.NULL), type))
              .withDefault(null);
    }
    return new FlatTable(name, List.copyOf(columns), fields.endRecord());
  }

  /** The row of {@code json}. */
  public GenericRecord row(JsonNode json) {
    GenericData.Record r = new GenericData.Record(schema);
    for (int i = 0; i < columns.size(); i++) {
      r.put(i, columns.get(i).valueIn(json));
    }
    return r;
  }

  private static String recordName(String table) {
    StringBuilder b = new StringBuilder();
    for (String part : table.split("_")) {
      b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return b.append("Row").toString();
  }
}
