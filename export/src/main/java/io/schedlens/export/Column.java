package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One column of a flat warehouse table: its name as the contract spells it (camelCase, as in the
 * files), where its value sits in the record's JSON form, and its type. SQL tables use the same
 * names in snake_case.
 */
public record Column(String name, String path, Kind kind) {

  /** A column's type, in files (Avro/Parquet) and in SQL. */
  public enum Kind {
    TEXT,
    INT,
    BIGINT,
    DOUBLE,
    BOOLEAN,
    /** epoch milliseconds in the record; timestamp-millis in files, timestamptz in SQL */
    TIMESTAMP
  }

  public static Column of(String name, String path, Kind kind) {
    return new Column(name, path, kind);
  }

  /** The SQL name: {@code latencyP50Ms} is {@code latency_p50_ms}. */
  public String sqlName() {
    StringBuilder b = new StringBuilder();
    for (char c : name.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append('_').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** The value in {@code json}, as a Java value of the column's type; null when absent. */
  public Object valueIn(JsonNode json) {
    JsonNode v = json.at(path);
    if (v.isMissingNode() || v.isNull()) {
      return null;
    }
    return switch (kind) {
      case TEXT -> v.asText();
      case INT -> v.asInt();
      case BIGINT, TIMESTAMP -> v.asLong();
      case DOUBLE -> v.asDouble();
      case BOOLEAN -> v.asBoolean();
    };
  }
}
