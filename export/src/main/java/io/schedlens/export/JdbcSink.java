package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
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
import org.apache.kafka.common.TopicPartition;

/**
 * Upserts final pod timelines into {@code pod_timelines}, their preemptions into {@code
 * preemptions}, workload timelines into {@code workload_timelines} with their intervals in {@code
 * workload_intervals}, and the topic offsets into {@code schedlens_export_offsets}, in one
 * transaction per batch: exactly once across restarts, and idempotent besides (a row is only
 * replaced by a newer timeline of the same key, so a correction replaces it and a replay changes
 * nothing). DDL: {@code ddl/postgresql.sql} (applied when the tables are missing).
 */
public final class JdbcSink implements WarehouseSink {

  private final Connection db;

  public JdbcSink(String url, Properties credentials, boolean createTables)
      throws SQLException, IOException {
    this.db = DriverManager.getConnection(url, credentials);
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
  public Map<TopicPartition, Long> committedOffsets() throws SQLException {
    Map<TopicPartition, Long> out = new HashMap<>();
    try (PreparedStatement q =
        db.prepareStatement("SELECT topic, partition, next_offset FROM schedlens_export_offsets")) {
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          out.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
        }
      }
    }
    db.commit();
    return out;
  }

  @Override
  public void write(Batch batch) throws SQLException {
    List<Column> preemptionColumns =
        WarehouseTables.PREEMPTION_TABLE.columns().stream().filter(JdbcSink::notSource).toList();
    List<Column> intervalColumns =
        WarehouseTables.INTERVAL_TABLE.columns().stream().filter(JdbcSink::notSource).toList();
    try (PreparedStatement timelines =
            db.prepareStatement(
                upsert("pod_timelines", WarehouseTables.POD_TIMELINE_COLUMNS, true));
        PreparedStatement preemptions =
            db.prepareStatement(upsert("preemptions", preemptionColumns, false));
        PreparedStatement workloads =
            db.prepareStatement(
                upsert("workload_timelines", WarehouseTables.WORKLOAD_TIMELINE_COLUMNS, true));
        PreparedStatement dropIntervals =
            db.prepareStatement("DELETE FROM workload_intervals WHERE workload_key = ?");
        PreparedStatement intervals =
            db.prepareStatement(insert("workload_intervals", intervalColumns));
        PreparedStatement offsets =
            db.prepareStatement(
                "INSERT INTO schedlens_export_offsets (topic, partition, next_offset) VALUES (?, ?, ?)"
                    + " ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset")) {
      for (WarehouseSink.Exported<PodTimeline> e : batch.pods()) {
        JsonNode json = AvroJson.toJson(e.value());
        bind(timelines, WarehouseTables.POD_TIMELINE_COLUMNS, json);
        timelines.setString(WarehouseTables.POD_TIMELINE_COLUMNS.size() + 1, json.toString());
        timelines.addBatch();
        if (e.value().getPreemptedAt() != null) {
          bind(preemptions, preemptionColumns, json);
          preemptions.addBatch();
        }
      }
      timelines.executeBatch();
      preemptions.executeBatch();
      for (WarehouseSink.Exported<WorkloadTimeline> e : batch.workloads()) {
        ObjectNode json = WarehouseTables.workloadJson(e.key(), e.value());
        bind(workloads, WarehouseTables.WORKLOAD_TIMELINE_COLUMNS, json);
        workloads.setString(WarehouseTables.WORKLOAD_TIMELINE_COLUMNS.size() + 1, json.toString());
        // the intervals follow their workload's row: replaced only when it was
        if (workloads.executeUpdate() > 0) {
          dropIntervals.setString(1, e.key());
          dropIntervals.executeUpdate();
          for (ObjectNode i : WarehouseTables.intervals(json)) {
            bind(intervals, intervalColumns, i);
            intervals.addBatch();
          }
        }
      }
      intervals.executeBatch();
      for (var n : batch.next().entrySet()) {
        offsets.setString(1, n.getKey().topic());
        offsets.setInt(2, n.getKey().partition());
        offsets.setLong(3, n.getValue());
        offsets.addBatch();
      }
      offsets.executeBatch();
      db.commit();
    } catch (SQLException e) {
      db.rollback();
      throw e;
    }
  }

  private static boolean notSource(Column c) {
    return !c.name().equals(WarehouseTables.SOURCE_PARTITION)
        && !c.name().equals(WarehouseTables.SOURCE_OFFSET);
  }

  private static String values(List<Column> columns) {
    return columns.stream()
        .map(c -> c.kind() == Column.Kind.TIMESTAMP ? "to_timestamp(? / 1000.0)" : "?")
        .collect(Collectors.joining(", "));
  }

  private static String names(List<Column> columns) {
    return columns.stream().map(Column::sqlName).collect(Collectors.joining(", "));
  }

  private static String insert(String table, List<Column> columns) {
    return "INSERT INTO " + table + " (" + names(columns) + ") VALUES (" + values(columns) + ")";
  }

  /**
   * An upsert on the first column, optionally with the whole record as JSON. A row is replaced only
   * by one at least as new (updated_at), so a replayed older timeline changes nothing.
   */
  private static String upsert(String table, List<Column> columns, boolean withJson) {
    String names = names(columns);
    String values = values(columns);
    String key = columns.get(0).sqlName();
    String updates =
        columns.stream()
            .skip(1)
            .map(c -> c.sqlName() + " = EXCLUDED." + c.sqlName())
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
    boolean versioned = columns.stream().anyMatch(c -> c.name().equals("updatedAt"));
    return versioned ? sql + " WHERE " + table + ".updated_at <= EXCLUDED.updated_at" : sql;
  }

  private static void bind(PreparedStatement st, List<Column> columns, JsonNode json)
      throws SQLException {
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      Object v = c.valueIn(json);
      int at = i + 1;
      if (v == null) {
        st.setNull(
            at,
            switch (c.kind()) {
              case TEXT -> Types.VARCHAR;
              case INT -> Types.INTEGER;
              case DOUBLE -> Types.DOUBLE;
              case BOOLEAN -> Types.BOOLEAN;
              case BIGINT, TIMESTAMP -> Types.BIGINT;
            });
        continue;
      }
      switch (c.kind()) {
        case TEXT -> st.setString(at, (String) v);
        case INT -> st.setInt(at, (Integer) v);
        case DOUBLE -> st.setDouble(at, (Double) v);
        case BOOLEAN -> st.setBoolean(at, (Boolean) v);
        case BIGINT, TIMESTAMP -> st.setLong(at, (Long) v);
      }
    }
  }

  @Override
  public void close() throws SQLException {
    db.close();
  }
}
