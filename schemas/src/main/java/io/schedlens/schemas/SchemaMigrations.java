package io.schedlens.schemas;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
   * One move of fields into nested records.
   *
   * @param type the recorded type whose values are rebuilt (the stored type)
   * @param lastBefore the last recorded version (1-based) with the fields at the top
   * @param owner the record (this type, or one nested in it) whose fields moved
   * @param moves each new field of {@code owner}, a record, and the fields moved into it (the same
   *     names inside it)
   */
  public record Migration(
      String type, int lastBefore, String owner, Map<String, List<String>> moves) {

    /** The field of {@code owner} that {@code field} moved into, or null. */
    public String nestedOf(String field) {
      for (Map.Entry<String, List<String>> e : moves.entrySet()) {
        if (e.getValue().contains(field)) {
          return e.getKey();
        }
      }
      return null;
    }

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
            if (moving && forward && moves.containsKey(f.name())) {
              GenericData.Record n = new GenericData.Record(f.schema());
              for (Schema.Field m : f.schema().getFields()) {
                n.put(m.name(), convert(field(in, m), m.schema(), true));
              }
              v = n;
            } else if (moving && !forward && nestedOf(f.name()) != null) {
              GenericRecord n = (GenericRecord) in.get(nestedOf(f.name()));
              v =
                  n == null
                      ? GenericData.get().getDefaultValue(f)
                      : convert(n.get(f.name()), f.schema(), false);
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
   * TimelineState v6: the pod's facts in records by concern (who it is, what its latest observation
   * says, its life's steps, its scheduling, its disruption, its GPUs, its requests, its workload)
   * and what the pod stage told and owes ({@code bookkeeping}) apart from them; {@code memberSent},
   * empty since memberSentHash replaced it, dropped.
   */
  static final Map<String, List<String>> TIMELINE_STATE_V6 = new LinkedHashMap<>();

  static {
    TIMELINE_STATE_V6.put(
        "identity",
        List.of(
            "namespace",
            "name",
            "ownerKind",
            "ownerName",
            "ownerUid",
            "priorityClass",
            "priority",
            "preemptionPolicy",
            "gpus",
            "labels"));
    TIMELINE_STATE_V6.put(
        "latest",
        List.of(
            "latestVersion",
            "latestObservedAt",
            "phase",
            "statusReason",
            "node",
            "nominatedNode",
            "checkpointAt",
            "readyLostAt"));
    TIMELINE_STATE_V6.put(
        "lifecycle",
        List.of(
            "createdAt",
            "scheduledConditionAt",
            "scheduledEventAt",
            "runningAt",
            "readyAt",
            "finishedAt",
            "terminalPhase",
            "deletionRequestedAt",
            "deletionDeadline",
            "deletedObservedAt",
            "gone",
            "restarts"));
    TIMELINE_STATE_V6.put(
        "scheduling",
        List.of(
            "failedScheduling",
            "pendingReasonsAt",
            "pendingReasons",
            "preemptionAttempted",
            "starvingFlagged"));
    TIMELINE_STATE_V6.put(
        "disruption",
        List.of(
            "preemptedEventAt",
            "preemptedConditionAt",
            "preemptor",
            "preemptorQuality",
            "victims",
            "disruptionCause",
            "disruptionAt",
            "disruptionBy",
            "rolledOutAt"));
    TIMELINE_STATE_V6.put(
        "gpu", List.of("busyMicros", "lastSampleAt", "busyByMinute", "busyBeforeMinutesMicros"));
    TIMELINE_STATE_V6.put(
        "serving", List.of("requests", "errors", "sloBreaches", "latencySketch", "okTimes"));
    TIMELINE_STATE_V6.put(
        "workload",
        List.of(
            "workloadPreemptions",
            "workloadCompleted",
            "workloadPreemptedAt",
            "workloadCompletedAt"));
    TIMELINE_STATE_V6.put(
        "bookkeeping",
        List.of(
            "workloadFacts",
            "nodeFactsSent",
            "memberSentHash",
            "observed",
            "preemptionEmitted",
            "linkedQuality",
            "detailsOwed",
            "firstInputAt"));
  }

  private static final List<Migration> ALL =
      List.of(
          new Migration("TimelineState", 5, "TimelineState", TIMELINE_STATE_V6),
          new Migration("PodsOfName", 2, "TimelineState", TIMELINE_STATE_V6));

  private SchemaMigrations() {}

  /** The move a type's values went through, if any. */
  public static Optional<Migration> of(String type) {
    return ALL.stream().filter(m -> m.type().equals(type)).findFirst();
  }
}
