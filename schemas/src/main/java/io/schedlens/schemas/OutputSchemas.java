package io.schedlens.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;

/**
 * The published form of the output records ({@link PodTimeline}, {@link WorkloadTimeline}, {@link
 * Preemption}): the generated classes' schemas with every time field typed {@code long} with
 * logical type {@code timestamp-millis}, so that a warehouse (BigQuery, Snowflake, Spark, Athena,
 * DuckDB) loads them as timestamps and Kafka Connect as {@code Timestamp}.
 *
 * <p>The bytes are the same: a logical type only annotates a {@code long}, and the single-object
 * encoding's fingerprint is taken over the parsing canonical form, which leaves logical types out.
 * The generated classes keep {@code long} fields on purpose: with a logical-type conversion Avro
 * boxes every time into an {@link java.time.Instant} and gives up its fast generated coders, which
 * the streams app's state stores rely on. Durations stay {@code long} milliseconds (their names end
 * in {@code Ms}).
 */
public final class OutputSchemas {

  /** The time fields (epoch milliseconds) of each output record and of the records inside them. */
  public static final Map<String, Set<String>> TIME_FIELDS =
      Map.of(
          "PodTimeline",
          Set.of(
              "createdAt",
              "scheduledAt",
              "runningAt",
              "readyAt",
              "firstOkRequestAt",
              "terminatedAt",
              "preemptedAt",
              "updatedAt",
              "admittedAt"),
          "Disruption",
          Set.of("at"),
          "PodPoint",
          Set.of("at"),
          "WorkloadTimeline",
          Set.of("updatedAt", "gangRunningAt"),
          "ReplicaPoint",
          Set.of("at"),
          "ServiceInterval",
          Set.of("start", "end"),
          "Recovery",
          Set.of("at", "scheduledAt", "readyAt", "firstOkAt"),
          "Preemption",
          Set.of("at"),
          "QueueAdmission",
          Set.of("admittedAt", "waitSince"),
          "QueueEviction",
          Set.of("at"));

  /** The output records, by name. */
  public static final List<String> OUTPUT_TYPES =
      List.of("PodTimeline", "WorkloadTimeline", "Preemption");

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Schema POD_TIMELINE = annotate(PodTimeline.getClassSchema());
  private static final Schema WORKLOAD_TIMELINE = annotate(WorkloadTimeline.getClassSchema());
  private static final Schema PREEMPTION = annotate(Preemption.getClassSchema());

  private OutputSchemas() {}

  public static Schema podTimeline() {
    return POD_TIMELINE;
  }

  public static Schema workloadTimeline() {
    return WORKLOAD_TIMELINE;
  }

  public static Schema preemption() {
    return PREEMPTION;
  }

  /** The published schema of a recorded type: the annotated one for an output, else its own. */
  public static Schema published(String name) throws ClassNotFoundException {
    return switch (name) {
      case "PodTimeline" -> POD_TIMELINE;
      case "WorkloadTimeline" -> WORKLOAD_TIMELINE;
      case "Preemption" -> PREEMPTION;
      default -> SpecificData.get().getSchema(Class.forName(SchemaHistory.className(name)));
    };
  }

  /** {@code schema} with the time fields of {@link #TIME_FIELDS} typed timestamp-millis. */
  static Schema annotate(Schema schema) {
    try {
      JsonNode tree = JSON.readTree(schema.toString());
      annotateTree(tree);
      return new Schema.Parser().parse(JSON.writeValueAsString(tree));
    } catch (IOException e) {
      throw new IllegalStateException("cannot annotate " + schema.getFullName(), e);
    }
  }

  private static void annotateTree(JsonNode node) {
    if (node instanceof ArrayNode union) {
      union.forEach(OutputSchemas::annotateTree);
      return;
    }
    if (!(node instanceof ObjectNode o)) {
      return;
    }
    switch (o.path("type").asText()) {
      case "record" -> {
        Set<String> times = TIME_FIELDS.getOrDefault(o.path("name").asText(), Set.of());
        for (JsonNode f : o.path("fields")) {
          ObjectNode field = (ObjectNode) f;
          if (times.contains(field.path("name").asText())) {
            field.set("type", timestamp(field.get("type"), field.path("name").asText()));
          } else {
            annotateTree(field.get("type"));
          }
        }
      }
      case "array" -> annotateTree(o.get("items"));
      case "map" -> annotateTree(o.get("values"));
      default -> {}
    }
  }

  private static JsonNode timestamp(JsonNode type, String field) {
    if (type.isTextual() && type.asText().equals("long")) {
      ObjectNode t = JSON.createObjectNode();
      t.put("type", "long");
      t.put("logicalType", "timestamp-millis");
      return t;
    }
    if (type instanceof ArrayNode union) {
      ArrayNode out = JSON.createArrayNode();
      union.forEach(
          b -> out.add(b.isTextual() && b.asText().equals("long") ? timestamp(b, field) : b));
      return out;
    }
    throw new IllegalStateException("time field " + field + " is not a long: " + type);
  }
}
