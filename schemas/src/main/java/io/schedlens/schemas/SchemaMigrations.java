package io.schedlens.schemas;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Changes of a stored type's shape that Avro schema resolution cannot make: fields moved into a
 * nested record. Resolution would read an old value without complaint and lose the moved fields
 * (the reader has none of that name at the top, and the nested record's default fills the rest), so
 * {@link AvroSerde} reads a value written before the move as the last version before it (with
 * Avro's resolution from whichever older version wrote it) and then moves the fields ({@link
 * Migration#forward}). {@link Migration#backward} is the inverse, for tests that write what an
 * earlier release wrote.
 *
 * <p>Each step is written against the current shapes of the records nested in the type; {@code
 * SchemaMigrationsTest} decodes every version before a move with it.
 */
public final class SchemaMigrations {

  /**
   * One move of fields into a nested record.
   *
   * @param type the recorded type whose values are rebuilt (the stored type)
   * @param lastBefore the last recorded version (1-based) with the fields at the top
   * @param owner the record (this type, or one nested in it) whose fields moved
   * @param nested the field of {@code owner} they moved into
   * @param moved the names of the fields moved (the same names inside {@code nested})
   */
  public record Migration(
      String type, int lastBefore, String owner, String nested, List<String> moved) {

    /** The last version with the fields at the top. */
    public Schema lastBeforeSchema() {
      return SchemaHistory.versionsOf(type).get(lastBefore - 1);
    }

    /** A value of {@link #lastBeforeSchema} rebuilt in the {@code current} shape. */
    public GenericRecord forward(GenericRecord old, Schema current) {
      return (GenericRecord) convert(old, current, true);
    }

    /** A value of the {@code current} shape rebuilt as {@link #lastBeforeSchema} had it. */
    public GenericRecord backward(GenericRecord value) {
      return (GenericRecord) convert(value, lastBeforeSchema(), false);
    }

    /**
     * Copies {@code value} into {@code target}'s shape, moving the fields where it is the owner.
     */
    private Object convert(Object value, Schema target, boolean forward) {
      if (value == null) {
        return null;
      }
      switch (target.getType()) {
        case UNION -> {
          for (Schema branch : target.getTypes()) {
            if (fits(value, branch)) {
              return convert(value, branch, forward);
            }
          }
          throw new IllegalArgumentException("no branch of " + target + " for " + value);
        }
        case ARRAY -> {
          List<Object> out = new ArrayList<>();
          for (Object item : (List<?>) value) {
            out.add(convert(item, target.getElementType(), forward));
          }
          return out;
        }
        case RECORD -> {
          GenericRecord in = (GenericRecord) value;
          GenericData.Record out = new GenericData.Record(target);
          boolean moving = target.getName().equals(owner);
          for (Schema.Field f : target.getFields()) {
            Object v;
            if (moving && forward && f.name().equals(nested)) {
              GenericData.Record n = new GenericData.Record(f.schema());
              for (Schema.Field m : f.schema().getFields()) {
                n.put(m.name(), field(in, m));
              }
              v = n;
            } else if (moving && !forward && moved.contains(f.name())) {
              GenericRecord n = (GenericRecord) in.get(nested);
              v = n == null ? GenericData.get().getDefaultValue(f) : n.get(f.name());
            } else {
              v = convert(field(in, f), f.schema(), forward);
            }
            out.put(f.name(), v);
          }
          return out;
        }
        default -> {
          return value;
        }
      }
    }

    /** The value of {@code in}'s field of that name, or the field's default where it has none. */
    private static Object field(GenericRecord in, Schema.Field f) {
      return in.getSchema().getField(f.name()) != null
          ? in.get(f.name())
          : GenericData.get().getDefaultValue(f);
    }

    private static boolean fits(Object value, Schema branch) {
      return switch (branch.getType()) {
        case NULL -> value == null;
        case RECORD ->
            value instanceof GenericRecord r
                && r.getSchema().getFullName().equals(branch.getFullName());
        case ARRAY -> value instanceof List;
        case MAP -> value instanceof Map;
        case LONG -> value instanceof Long;
        case INT -> value instanceof Integer;
        case STRING -> value instanceof CharSequence;
        case BOOLEAN -> value instanceof Boolean;
        case DOUBLE -> value instanceof Double;
        case FLOAT -> value instanceof Float;
        case BYTES -> value instanceof ByteBuffer;
        default -> GenericData.get().validate(branch, value);
      };
    }
  }

  /**
   * TimelineState v6: what the pod stage told and owes ({@code TimelineBookkeeping}) apart from the
   * pod's facts; {@code memberSent}, empty since memberSentHash replaced it, dropped.
   */
  static final List<String> TIMELINE_BOOKKEEPING =
      List.of(
          "workloadFacts",
          "nodeFactsSent",
          "memberSentHash",
          "observed",
          "preemptionEmitted",
          "linkedQuality",
          "detailsOwed",
          "firstInputAt");

  private static final List<Migration> ALL =
      List.of(
          new Migration("TimelineState", 5, "TimelineState", "bookkeeping", TIMELINE_BOOKKEEPING),
          new Migration("PodsOfName", 2, "TimelineState", "bookkeeping", TIMELINE_BOOKKEEPING));

  private SchemaMigrations() {}

  /** The move a type's values went through, if any. */
  public static Optional<Migration> of(String type) {
    return ALL.stream().filter(m -> m.type().equals(type)).findFirst();
  }
}
