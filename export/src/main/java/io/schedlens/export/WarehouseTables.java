package io.schedlens.export;

import static io.schedlens.export.Column.Kind.BIGINT;
import static io.schedlens.export.Column.Kind.BOOLEAN;
import static io.schedlens.export.Column.Kind.DOUBLE;
import static io.schedlens.export.Column.Kind.INT;
import static io.schedlens.export.Column.Kind.TEXT;
import static io.schedlens.export.Column.Kind.TIMESTAMP;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.AvroJson;
import io.schedlens.schemas.OutputSchemas;
import io.schedlens.schemas.WorkloadKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;

/**
 * The warehouse tables and how each row comes from the topics.
 *
 * <ul>
 *   <li>{@code pod_timelines}: a pod's final timeline, nested as on the topic (files), or flat
 *       columns plus the whole timeline as JSON (SQL);
 *   <li>{@code preemptions}: one row per victim, from its final timeline;
 *   <li>{@code workload_timelines}: the latest timeline of a workload, nested (intervals,
 *       recoveries and the replica series as lists) in files, flat columns plus JSON in SQL;
 *   <li>{@code workload_intervals}: the same workload's interruption and degraded intervals as a
 *       flat child table.
 * </ul>
 *
 * <p>Every file row carries {@code sourcePartition} and {@code sourceOffset}, its record's place in
 * its topic. A key's versions all sit in one partition, so the row with the largest {@code
 * sourceOffset} per key is the latest: a timeline exported again (a late correction) supersedes the
 * earlier row by that rule (see the README's views).
 */
public final class WarehouseTables {

  public static final String POD_TIMELINES = "pod_timelines";
  public static final String PREEMPTIONS = "preemptions";
  public static final String WORKLOAD_TIMELINES = "workload_timelines";
  public static final String WORKLOAD_INTERVALS = "workload_intervals";

  /** Every dataset, in the order they are written. */
  public static final List<String> DATASETS =
      List.of(POD_TIMELINES, PREEMPTIONS, WORKLOAD_TIMELINES, WORKLOAD_INTERVALS);

  static final String SOURCE_PARTITION = "sourcePartition";
  static final String SOURCE_OFFSET = "sourceOffset";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The file rows of pod_timelines: the published PodTimeline with its source. */
  public static final Schema POD_TIMELINE_ROW = withSource(OutputSchemas.podTimeline());

  /** The file rows of workload_timelines. */
  public static final Schema WORKLOAD_TIMELINE_ROW = withSource(OutputSchemas.workloadTimeline());

  /** pod_timelines in SQL: flat columns (the whole timeline is kept as JSON beside them). */
  public static final List<Column> POD_TIMELINE_COLUMNS =
      List.of(
          Column.of("uid", "/uid", TEXT),
          Column.of("namespace", "/namespace", TEXT),
          Column.of("name", "/name", TEXT),
          Column.of("node", "/node", TEXT),
          Column.of("priorityClass", "/priorityClass", TEXT),
          Column.of("priority", "/priority", INT),
          Column.of("workloadKind", "/workload/kind", TEXT),
          Column.of("workloadName", "/workload/name", TEXT),
          Column.of("application", "/application", TEXT),
          Column.of("experiment", "/experiment", TEXT),
          Column.of("arm", "/arm", TEXT),
          Column.of("repeat", "/repeat", TEXT),
          Column.of("createdAt", "/createdAt", TIMESTAMP),
          Column.of("scheduledAt", "/scheduledAt", TIMESTAMP),
          Column.of("runningAt", "/runningAt", TIMESTAMP),
          Column.of("readyAt", "/readyAt", TIMESTAMP),
          Column.of("firstOkRequestAt", "/firstOkRequestAt", TIMESTAMP),
          Column.of("terminatedAt", "/terminatedAt", TIMESTAMP),
          Column.of("pendingMs", "/pendingMs", BIGINT),
          Column.of("neverScheduled", "/neverScheduled", BOOLEAN),
          Column.of("startupMs", "/startupMs", BIGINT),
          Column.of("modelLoadMs", "/modelLoadMs", BIGINT),
          Column.of("timeToReadyMs", "/timeToReadyMs", BIGINT),
          Column.of("timeToFirstOkMs", "/timeToFirstOkMs", BIGINT),
          Column.of("failedSchedulingCount", "/failedSchedulingCount", INT),
          Column.of("preemptionAttempted", "/preemptionAttempted", BOOLEAN),
          Column.of("nominatedNode", "/nominatedNode", TEXT),
          Column.of("preemptedAt", "/preemptedAt", TIMESTAMP),
          Column.of("preemptorUid", "/preemptor/uid", TEXT),
          Column.of("gpus", "/gpus", INT),
          Column.of("allocatedGpuSeconds", "/allocatedGpuSeconds", DOUBLE),
          Column.of("busyGpuSeconds", "/busyGpuSeconds", DOUBLE),
          Column.of("idleAllocatedGpuSeconds", "/idleAllocatedGpuSeconds", DOUBLE),
          Column.of("unsampledGpuSeconds", "/unsampledGpuSeconds", DOUBLE),
          Column.of("wastedGpuSeconds", "/wastedGpuSeconds", DOUBLE),
          Column.of("wastedBusyGpuSeconds", "/wastedBusyGpuSeconds", DOUBLE),
          Column.of("requests", "/requests", BIGINT),
          Column.of("errors", "/errors", BIGINT),
          Column.of("sloBreaches", "/sloBreaches", BIGINT),
          Column.of("latencyP50Ms", "/latencyP50Ms", DOUBLE),
          Column.of("latencyP95Ms", "/latencyP95Ms", DOUBLE),
          Column.of("latencyP99Ms", "/latencyP99Ms", DOUBLE),
          Column.of("restarts", "/restarts", INT),
          Column.of("outcome", "/outcome", TEXT),
          Column.of("disruptionCause", "/disruption/cause", TEXT),
          Column.of("disruptionAt", "/disruption/at", TIMESTAMP),
          Column.of("disruptionBy", "/disruption/by", TEXT),
          Column.of("preemptionsOfWorkload", "/preemptionsOfWorkload", INT),
          Column.of("starving", "/starving", BOOLEAN),
          Column.of("updatedAt", "/updatedAt", TIMESTAMP),
          Column.of("endedBy", "/endedBy", TEXT),
          Column.of("queue", "/queue", TEXT),
          Column.of("admittedAt", "/admittedAt", TIMESTAMP),
          Column.of("queueWaitMs", "/queueWaitMs", BIGINT),
          Column.of("gatedMs", "/gatedMs", BIGINT),
          Column.of("gpuResource", "/gpuResource", TEXT),
          Column.of("gpuShare", "/gpuShare", DOUBLE),
          Column.of("gpuShared", "/gpuShared", BOOLEAN));

  /** preemptions: one row per victim, from the victim's final timeline. */
  public static final FlatTable PREEMPTION_TABLE =
      FlatTable.of(
          PREEMPTIONS,
          "One pod preempted by the scheduler or by Kueue (cause), from the victim's final"
              + " timeline.",
          List.of(
              Column.of("victimUid", "/uid", TEXT),
              Column.of("victimNamespace", "/namespace", TEXT),
              Column.of("victimName", "/name", TEXT),
              Column.of("victimPriorityClass", "/priorityClass", TEXT),
              Column.of("victimPriority", "/priority", INT),
              Column.of("victimWorkloadKind", "/workload/kind", TEXT),
              Column.of("victimWorkloadName", "/workload/name", TEXT),
              Column.of("victimGpus", "/gpus", INT),
              Column.of("preemptorUid", "/preemptor/uid", TEXT),
              Column.of("preemptorNamespace", "/preemptor/namespace", TEXT),
              Column.of("preemptorName", "/preemptor/name", TEXT),
              Column.of("preemptorPriorityClass", "/preemptor/priorityClass", TEXT),
              Column.of("preemptorPriority", "/preemptor/priority", INT),
              Column.of("preemptorInferred", "/preemptor/inferred", BOOLEAN),
              Column.of("node", "/node", TEXT),
              Column.of("preemptedAt", "/preemptedAt", TIMESTAMP),
              Column.of("wastedGpuSeconds", "/wastedGpuSeconds", DOUBLE),
              Column.of("wastedBusyGpuSeconds", "/wastedBusyGpuSeconds", DOUBLE),
              Column.of("cause", "/disruption/cause", TEXT),
              Column.of("queue", "/queue", TEXT),
              Column.of("application", "/application", TEXT),
              Column.of("experiment", "/experiment", TEXT),
              Column.of("arm", "/arm", TEXT),
              Column.of("repeat", "/repeat", TEXT),
              Column.of("updatedAt", "/updatedAt", TIMESTAMP),
              Column.of(SOURCE_PARTITION, "/" + SOURCE_PARTITION, INT),
              Column.of(SOURCE_OFFSET, "/" + SOURCE_OFFSET, BIGINT)));

  /** workload_timelines in SQL: flat columns (the whole timeline as JSON beside them). */
  public static final List<Column> WORKLOAD_TIMELINE_COLUMNS =
      List.of(
          Column.of("workloadKey", "/workloadKey", TEXT),
          Column.of("namespace", "/namespace", TEXT),
          Column.of("kind", "/kind", TEXT),
          Column.of("name", "/name", TEXT),
          Column.of("controllerUid", "/controllerUid", TEXT),
          Column.of("application", "/application", TEXT),
          Column.of("priorityClass", "/priorityClass", TEXT),
          Column.of("experiment", "/experiment", TEXT),
          Column.of("arm", "/arm", TEXT),
          Column.of("repeat", "/repeat", TEXT),
          Column.of("desiredSource", "/desiredSource", TEXT),
          Column.of("desired", "/desired", INT),
          Column.of("ready", "/ready", INT),
          Column.of("interruptionMs", "/interruptionMs", BIGINT),
          Column.of("degradedMs", "/degradedMs", BIGINT),
          Column.of("pods", "/pods", INT),
          Column.of("restarts", "/restarts", INT),
          Column.of("preemptions", "/preemptions", INT),
          Column.of("evictions", "/evictions", INT),
          Column.of("requests", "/requests", BIGINT),
          Column.of("errors", "/errors", BIGINT),
          Column.of("sloBreaches", "/sloBreaches", BIGINT),
          Column.of("updatedAt", "/updatedAt", TIMESTAMP),
          Column.of("gangRunningAt", "/gangRunningAt", TIMESTAMP),
          Column.of("gangWaitGpuSeconds", "/gangWaitGpuSeconds", DOUBLE));

  /** workload_intervals: every interruption and degraded interval of a workload's timeline. */
  public static final FlatTable INTERVAL_TABLE =
      FlatTable.of(
          WORKLOAD_INTERVALS,
          "An interval without full service of one workload (child rows of workload_timelines).",
          List.of(
              Column.of("workloadKey", "/workloadKey", TEXT),
              Column.of("namespace", "/namespace", TEXT),
              Column.of("kind", "/kind", TEXT),
              Column.of("name", "/name", TEXT),
              Column.of("controllerUid", "/controllerUid", TEXT),
              Column.of("application", "/application", TEXT),
              Column.of("type", "/type", TEXT),
              Column.of("startedAt", "/start", TIMESTAMP),
              Column.of("endedAt", "/end", TIMESTAMP),
              Column.of("durationMs", "/durationMs", BIGINT),
              Column.of("cause", "/cause", TEXT),
              Column.of("pod", "/pod", TEXT),
              Column.of("arm", "/arm", TEXT),
              Column.of("repeat", "/repeat", TEXT),
              Column.of("errors", "/errors", BIGINT),
              Column.of("sloBreaches", "/sloBreaches", BIGINT),
              Column.of("updatedAt", "/updatedAt", TIMESTAMP),
              Column.of(SOURCE_PARTITION, "/" + SOURCE_PARTITION, INT),
              Column.of(SOURCE_OFFSET, "/" + SOURCE_OFFSET, BIGINT)));

  /** The type column of workload_intervals. */
  public static final String INTERRUPTION = "interruption";

  public static final String DEGRADED = "degraded";

  private WarehouseTables() {}

  /** A file row: the record, its table and its day partition. */
  public record Row(String dataset, String day, IndexedRecord record) {}

  /** The file rows of a final pod timeline: its own, and a preemption when it is a victim. */
  public static List<Row> rowsOf(PodTimeline t, int partition, long offset) {
    List<Row> rows = new ArrayList<>(2);
    String day = day(t.getTerminatedAt() != null ? t.getTerminatedAt() : t.getUpdatedAt());
    rows.add(
        new Row(POD_TIMELINES, day, new SourcedRecord(POD_TIMELINE_ROW, t, partition, offset)));
    if (t.getPreemptedAt() != null) {
      ObjectNode json = withSource(AvroJson.toJson(t), partition, offset);
      rows.add(new Row(PREEMPTIONS, day(t.getPreemptedAt()), PREEMPTION_TABLE.row(json)));
    }
    return rows;
  }

  /** The file rows of a workload timeline: its own, and one per interval. */
  public static List<Row> rowsOf(String key, WorkloadTimeline w, int partition, long offset) {
    List<Row> rows = new ArrayList<>();
    String day = day(w.getUpdatedAt());
    rows.add(
        new Row(
            WORKLOAD_TIMELINES,
            day,
            new SourcedRecord(WORKLOAD_TIMELINE_ROW, w, partition, offset)));
    for (ObjectNode interval : intervals(workloadJson(key, w))) {
      rows.add(
          new Row(
              WORKLOAD_INTERVALS,
              day,
              INTERVAL_TABLE.row(withSource(interval, partition, offset))));
    }
    return rows;
  }

  /**
   * The rows of workload_intervals (before the source columns) of a workload timeline in its JSON
   * form with its key ({@link #workloadJson}).
   */
  public static List<ObjectNode> intervals(ObjectNode json) {
    String key = json.path("workloadKey").asText();
    List<ObjectNode> out = new ArrayList<>();
    for (String type : List.of(INTERRUPTION, DEGRADED)) {
      JsonNode list = json.path(type.equals(INTERRUPTION) ? "interruptions" : "degraded");
      for (JsonNode i : list) {
        ObjectNode row = ((ObjectNode) i).deepCopy();
        row.put("workloadKey", key);
        row.put("type", type);
        for (String f :
            List.of("namespace", "kind", "name", "controllerUid", "application", "updatedAt")) {
          row.set(f, json.get(f));
        }
        out.add(row);
      }
    }
    return out;
  }

  /**
   * A workload's identity: {@code namespace/kind/name}, with {@code /controllerUid} when the
   * workload is its pods' controller (a Job or StatefulSet created again under the same name is
   * another workload, as each repeat's Job is). The topic's key leaves the UID out, so the export
   * keys workloads by this instead.
   */
  public static String workloadKey(WorkloadTimeline w) {
    return WorkloadKey.of(w).identity();
  }

  /** The JSON form of a workload timeline with its key, for the SQL columns. */
  public static ObjectNode workloadJson(String key, WorkloadTimeline w) {
    ObjectNode json = AvroJson.toJson(w);
    json.put("workloadKey", key);
    return json;
  }

  /** The UTC day of an instant, as the partition directory names it. */
  public static String day(long epochMs) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(epochMs), ZoneOffset.UTC).toString();
  }

  private static ObjectNode withSource(ObjectNode json, int partition, long offset) {
    json.put(SOURCE_PARTITION, partition);
    json.put(SOURCE_OFFSET, offset);
    return json;
  }

  /** {@code schema} with the two source columns appended. */
  static Schema withSource(Schema schema) {
    try {
      ObjectNode tree = (ObjectNode) JSON.readTree(schema.toString());
      ArrayNode fields = (ArrayNode) tree.get("fields");
      fields
          .addObject()
          .put("name", SOURCE_PARTITION)
          .put("type", "int")
          .put("doc", "Partition of the topic the record was read from.");
      fields
          .addObject()
          .put("name", SOURCE_OFFSET)
          .put("type", "long")
          .put(
              "doc",
              "Offset of the record in that partition: of two rows of one key, the larger is the"
                  + " later.");
      return new Schema.Parser().parse(JSON.writeValueAsString(tree));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A record seen through a schema with two more fields, the source columns: written as it is,
   * without copying its fields.
   */
  static final class SourcedRecord implements IndexedRecord {
    private final Schema schema;
    private final IndexedRecord record;
    private final int fields;
    private final int partition;
    private final long offset;

    SourcedRecord(Schema schema, IndexedRecord record, int partition, long offset) {
      this.schema = schema;
      this.record = record;
      this.fields = record.getSchema().getFields().size();
      this.partition = partition;
      this.offset = offset;
    }

    @Override
    public Schema getSchema() {
      return schema;
    }

    @Override
    public Object get(int i) {
      return i < fields ? record.get(i) : i == fields ? (Object) partition : (Object) offset;
    }

    @Override
    public void put(int i, Object v) {
      throw new UnsupportedOperationException("a row being written is read-only");
    }
  }
}
