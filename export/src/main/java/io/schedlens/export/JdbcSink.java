package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.schemas.AvroJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Upserts final timelines into {@code pod_timelines} and their preemptions into {@code
 * preemptions}, and the topic offsets into {@code schedlens_export_offsets}, in one transaction per
 * batch: exactly once across restarts, and idempotent besides (a row is only replaced by a newer
 * timeline of the same pod). DDL: {@code ddl/postgresql.sql} (applied when the tables are missing).
 */
public final class JdbcSink implements TimelineSink {

  /** A column: its name, where its value is in the timeline's JSON form, and its kind. */
  private record Column(String name, String path, char kind) {}

  // kind: s text, l bigint, i integer, d double, b boolean, t timestamptz from epoch ms
  private static final List<Column> TIMELINE_COLUMNS =
      List.of(
          new Column("uid", "/uid", 's'),
          new Column("namespace", "/namespace", 's'),
          new Column("name", "/name", 's'),
          new Column("node", "/node", 's'),
          new Column("priority_class", "/priorityClass", 's'),
          new Column("priority", "/priority", 'i'),
          new Column("workload_kind", "/workload/kind", 's'),
          new Column("workload_name", "/workload/name", 's'),
          new Column("application", "/application", 's'),
          new Column("experiment", "/experiment", 's'),
          new Column("arm", "/arm", 's'),
          new Column("repeat", "/repeat", 's'),
          new Column("created_at", "/createdAt", 't'),
          new Column("scheduled_at", "/scheduledAt", 't'),
          new Column("running_at", "/runningAt", 't'),
          new Column("ready_at", "/readyAt", 't'),
          new Column("first_ok_request_at", "/firstOkRequestAt", 't'),
          new Column("terminated_at", "/terminatedAt", 't'),
          new Column("pending_ms", "/pendingMs", 'l'),
          new Column("never_scheduled", "/neverScheduled", 'b'),
          new Column("startup_ms", "/startupMs", 'l'),
          new Column("model_load_ms", "/modelLoadMs", 'l'),
          new Column("time_to_ready_ms", "/timeToReadyMs", 'l'),
          new Column("time_to_first_ok_ms", "/timeToFirstOkMs", 'l'),
          new Column("failed_scheduling_count", "/failedSchedulingCount", 'i'),
          new Column("preemption_attempted", "/preemptionAttempted", 'b'),
          new Column("nominated_node", "/nominatedNode", 's'),
          new Column("preempted_at", "/preemptedAt", 't'),
          new Column("preemptor_uid", "/preemptor/uid", 's'),
          new Column("gpus", "/gpus", 'i'),
          new Column("allocated_gpu_seconds", "/allocatedGpuSeconds", 'd'),
          new Column("busy_gpu_seconds", "/busyGpuSeconds", 'd'),
          new Column("idle_allocated_gpu_seconds", "/idleAllocatedGpuSeconds", 'd'),
          new Column("wasted_gpu_seconds", "/wastedGpuSeconds", 'd'),
          new Column("wasted_busy_gpu_seconds", "/wastedBusyGpuSeconds", 'd'),
          new Column("requests", "/requests", 'l'),
          new Column("errors", "/errors", 'l'),
          new Column("slo_breaches", "/sloBreaches", 'l'),
          new Column("latency_p50_ms", "/latencyP50Ms", 'd'),
          new Column("latency_p95_ms", "/latencyP95Ms", 'd'),
          new Column("latency_p99_ms", "/latencyP99Ms", 'd'),
          new Column("restarts", "/restarts", 'i'),
          new Column("outcome", "/outcome", 's'),
          new Column("disruption_cause", "/disruption/cause", 's'),
          new Column("disruption_at", "/disruption/at", 't'),
          new Column("disruption_by", "/disruption/by", 's'),
          new Column("preemptions_of_workload", "/preemptionsOfWorkload", 'i'),
          new Column("starving", "/starving", 'b'),
          new Column("updated_at", "/updatedAt", 't'));

  private static final List<Column> PREEMPTION_COLUMNS =
      List.of(
          new Column("victim_uid", "/uid", 's'),
          new Column("victim_namespace", "/namespace", 's'),
          new Column("victim_name", "/name", 's'),
          new Column("victim_priority_class", "/priorityClass", 's'),
          new Column("victim_priority", "/priority", 'i'),
          new Column("preemptor_uid", "/preemptor/uid", 's'),
          new Column("preemptor_namespace", "/preemptor/namespace", 's'),
          new Column("preemptor_name", "/preemptor/name", 's'),
          new Column("preemptor_priority_class", "/preemptor/priorityClass", 's'),
          new Column("preemptor_priority", "/preemptor/priority", 'i'),
          new Column("node", "/node", 's'),
          new Column("preempted_at", "/preemptedAt", 't'),
          new Column("wasted_gpu_seconds", "/wastedGpuSeconds", 'd'),
          new Column("experiment", "/experiment", 's'),
          new Column("arm", "/arm", 's'),
          new Column("repeat", "/repeat", 's'));

  private final Connection db;
  private final String topic;

  public JdbcSink(String url, Properties credentials, String topic, boolean createTables)
      throws SQLException, IOException {
    this.db = DriverManager.getConnection(url, credentials);
    this.topic = topic;
    db.setAutoCommit(false);
    if (createTables) {
      try (Statement s = db.createStatement()) {
        for (String sql : ddl().split(";\\s*\\n")) {
          String stripped =
              sql.lines()
                  .filter(l -> !l.strip().startsWith("--"))
                  .collect(Collectors.joining("\n"))
                  .strip();
          if (!stripped.isEmpty()) {
            s.execute(stripped);
          }
        }
      }
      db.commit();
    }
  }

  /** The DDL for PostgreSQL, as shipped. */
  public static String ddl() throws IOException {
    try (InputStream in = JdbcSink.class.getResourceAsStream("/ddl/postgresql.sql")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Override
  public Map<Integer, Long> committedOffsets() throws SQLException {
    Map<Integer, Long> out = new HashMap<>();
    try (PreparedStatement q =
        db.prepareStatement(
            "SELECT partition, next_offset FROM schedlens_export_offsets WHERE topic = ?")) {
      q.setString(1, topic);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getInt(1), rs.getLong(2));
        }
      }
    }
    db.commit();
    return out;
  }

  @Override
  public void write(List<Exported> finals, Map<Integer, Long> next) throws SQLException {
    try (PreparedStatement timelines =
            db.prepareStatement(upsert("pod_timelines", TIMELINE_COLUMNS, true));
        PreparedStatement preemptions =
            db.prepareStatement(upsert("preemptions", PREEMPTION_COLUMNS, false));
        PreparedStatement offsets =
            db.prepareStatement(
                "INSERT INTO schedlens_export_offsets (topic, partition, next_offset) VALUES (?, ?, ?)"
                    + " ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset")) {
      for (Exported e : finals) {
        JsonNode json = AvroJson.toJson(e.timeline());
        bind(timelines, TIMELINE_COLUMNS, json);
        timelines.setString(TIMELINE_COLUMNS.size() + 1, json.toString());
        timelines.addBatch();
        if (e.timeline().getPreemptedAt() != null) {
          bind(preemptions, PREEMPTION_COLUMNS, json);
          preemptions.addBatch();
        }
      }
      for (var n : next.entrySet()) {
        offsets.setString(1, topic);
        offsets.setInt(2, n.getKey());
        offsets.setLong(3, n.getValue());
        offsets.addBatch();
      }
      timelines.executeBatch();
      preemptions.executeBatch();
      offsets.executeBatch();
      db.commit();
    } catch (SQLException e) {
      db.rollback();
      throw e;
    }
  }

  private static String upsert(String table, List<Column> columns, boolean withJson) {
    String names = columns.stream().map(Column::name).collect(Collectors.joining(", "));
    String values =
        columns.stream()
            .map(c -> c.kind() == 't' ? "to_timestamp(? / 1000.0)" : "?")
            .collect(Collectors.joining(", "));
    String key = columns.get(0).name();
    String updates =
        columns.stream()
            .skip(1)
            .map(c -> c.name() + " = EXCLUDED." + c.name())
            .collect(Collectors.joining(", "));
    if (withJson) {
      names += ", timeline";
      values += ", CAST(? AS jsonb)";
      updates += ", timeline = EXCLUDED.timeline, exported_at = now()";
    }
    String sql =
        "INSERT INTO "
            + table
            + " ("
            + names
            + ") VALUES ("
            + values
            + ") ON CONFLICT ("
            + key
            + ") DO UPDATE SET "
            + updates;
    // a newer timeline of the same pod wins; an older one (replayed from the topic) changes nothing
    return withJson ? sql + " WHERE " + table + ".updated_at <= EXCLUDED.updated_at" : sql;
  }

  private static void bind(PreparedStatement st, List<Column> columns, JsonNode json)
      throws SQLException {
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      JsonNode v = json.at(c.path());
      int at = i + 1;
      if (v.isMissingNode() || v.isNull()) {
        st.setNull(
            at,
            switch (c.kind()) {
              case 's' -> Types.VARCHAR;
              case 'i' -> Types.INTEGER;
              case 'd' -> Types.DOUBLE;
              case 'b' -> Types.BOOLEAN;
              default -> Types.BIGINT;
            });
        continue;
      }
      switch (c.kind()) {
        case 's' -> st.setString(at, v.asText());
        case 'i' -> st.setInt(at, v.asInt());
        case 'd' -> st.setDouble(at, v.asDouble());
        case 'b' -> st.setBoolean(at, v.asBoolean());
        default -> st.setLong(at, v.asLong());
      }
    }
  }

  @Override
  public void close() throws SQLException {
    db.close();
  }
}
