package io.schedlens.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.Preemption;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.ServiceContinuity;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data team's proof, without a Kafka cluster: a replay of a recorded day08 cluster with {@code
 * --export DIR} writes Parquet, opened with DuckDB (in-process) and queried with the exact SQL of
 * docs/operators/warehouse.md, gives the report's numbers for the same run.
 */
class WarehouseQueriesIT {

  @TempDir Path dir;

  @Test
  void shouldGiveTheReportsNumbersFromSqlOverTheExportedParquetFiles() throws Exception {
    Path warehouse = dir.resolve("warehouse-day08-disruptions");
    Replay.Result replay = replayWithExport("day08-disruptions", warehouse);
    assertThat(replay.timelines().values()).allMatch(t -> t.getFinal$());
    ExperimentReport report = replay.report();

    Map<String, String> queries =
        queries(Files.readString(Path.of("../docs/operators/warehouse.md")));
    assertThat(queries)
        .containsKeys("views", "pending", "preempted-and-wasted", "preemptions-by-class");
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = db.createStatement()) {
      for (String view : queries.get("views").split(";")) {
        if (!view.strip().isEmpty()) {
          s.execute(view.replace("'warehouse/", "'" + warehouse + "/"));
        }
      }
      assertThat(count(s, "SELECT count(*) FROM pod_timelines"))
          .isEqualTo(replay.timelines().size());

      // GPU-equivalents by resource: day08's pods hold whole GPUs, and their timelines say so
      List<Map<String, Object>> equivalents = rows(s, queries.get("gpu-equivalents"));
      assertThat(equivalents).hasSize(1);
      assertThat(equivalents.get(0).get("resource")).isEqualTo("nvidia.com/gpu");
      assertThat(equivalents.get(0).get("shared")).isEqualTo(false);
      assertThat(num(equivalents.get(0), "gpu_hours"))
          .isCloseTo(
              replay.timelines().values().stream()
                      .filter(t -> t.getAllocatedGpuSeconds() != null)
                      .mapToDouble(t -> t.getAllocatedGpuSeconds())
                      .sum()
                  / 3600,
              within(1e-6));
      assertThat(replay.timelines().values())
          .filteredOn(t -> t.getGpus() > 0)
          .allMatch(t -> t.getGpuShare() == 1.0 && "nvidia.com/gpu".equals(t.getGpuResource()));

      List<Map<String, Object>> pending = rows(s, queries.get("pending"));
      assertThat(pending).hasSize(report.rows().size());
      for (Map<String, Object> r : pending) {
        ExperimentReport.Row row = report.row((String) r.get("arm"), (String) r.get("workload"));
        assertThat(row).as("report row of %s", r).isNotNull();
        assertThat(num(r, "pending_p50_ms"))
            .as("pending p50 of %s", r)
            .isCloseTo(row.pendingP50Ms().mean(), within(1e-6));
        assertThat(num(r, "pending_p95_ms"))
            .as("pending p95 of %s", r)
            .isCloseTo(row.pendingP95Ms().mean(), within(1e-6));
        assertThat(num(r, "repeats")).isEqualTo((double) row.pendingP50Ms().repeats());
      }

      List<Map<String, Object>> wasted = rows(s, queries.get("preempted-and-wasted"));
      assertThat(wasted).hasSize(report.rows().size());
      double preemptedSomewhere = 0;
      for (Map<String, Object> r : wasted) {
        ExperimentReport.Row row = report.row((String) r.get("arm"), (String) r.get("workload"));
        assertThat(num(r, "pods")).isCloseTo(row.pods().mean(), within(1e-9));
        assertThat(num(r, "preempted")).isCloseTo(row.preemptions().mean(), within(1e-9));
        assertThat(num(r, "wasted_gpu_hours"))
            .as("wasted GPU-hours of %s", r)
            .isCloseTo(row.wastedGpuSeconds().mean() / 3600, within(1e-9));
        preemptedSomewhere += num(r, "preempted");
      }
      assertThat(preemptedSomewhere).as("the scenario preempts").isPositive();

      // per victim class, against the streams app's own preemption records
      Map<String, double[]> byClass = new TreeMap<>();
      for (Preemption p : replay.preemptions().values()) {
        String c =
            p.getVictim().getPriorityClass() == null ? "(none)" : p.getVictim().getPriorityClass();
        double[] v = byClass.computeIfAbsent(c, k -> new double[2]);
        v[0]++;
        v[1] += p.getWastedGpuSeconds() == null ? 0 : p.getWastedGpuSeconds() / 3600;
      }
      Map<String, double[]> sqlByClass = new TreeMap<>();
      for (Map<String, Object> r : rows(s, queries.get("preemptions-by-class"))) {
        double[] v = sqlByClass.computeIfAbsent((String) r.get("victim_class"), k -> new double[2]);
        v[0] += num(r, "preemptions");
        v[1] += num(r, "wasted_gpu_hours");
      }
      assertThat(sqlByClass.keySet()).isEqualTo(byClass.keySet()).isNotEmpty();
      byClass.forEach(
          (c, v) -> {
            assertThat(sqlByClass.get(c)[0]).as("preemptions of class %s", c).isEqualTo(v[0]);
            assertThat(sqlByClass.get(c)[1]).isCloseTo(v[1], within(1e-9));
          });

      List<Map<String, Object>> interruptions = rows(s, queries.get("interruptions"));
      assertThat(interruptions).hasSize(report.continuity().size());
      double interrupted = 0;
      for (Map<String, Object> r : interruptions) {
        ServiceContinuity.Row row =
            report.continuity((String) r.get("arm"), (String) r.get("workload"));
        assertThat(num(r, "interruption_seconds"))
            .as("interruption seconds of %s", r)
            .isCloseTo(row.interruptionSeconds().mean(), within(1e-6));
        interrupted += num(r, "interruption_seconds");
      }
      assertThat(interrupted).as("the scenario interrupts a service").isPositive();

      List<Map<String, Object>> gangs = rows(s, queries.get("gang-wait"));
      List<ServiceContinuity.Row> gangRows =
          report.continuity().stream().filter(r -> r.gangWaitGpuSeconds() != null).toList();
      assertThat(gangs).as("rows with a gang").hasSize(gangRows.size());
      for (Map<String, Object> r : gangs) {
        ServiceContinuity.Row row =
            report.continuity((String) r.get("arm"), (String) r.get("workload"));
        assertThat(num(r, "gang_wait_gpu_seconds"))
            .as("gang wait of %s", r)
            .isCloseTo(row.gangWaitGpuSeconds().mean(), within(1e-6));
      }
    }
  }

  /**
   * Kueue's numbers: a replay of the {@code kueue} scenario with {@code --export}, the queue-wait
   * and queue-preemption blocks of docs/operators/warehouse.md against the report of the same run.
   */
  @Test
  void shouldGiveTheReportsQueueWaitAndKueuePreemptionsFromSql() throws Exception {
    Path warehouse = dir.resolve("warehouse-kueue");
    Replay.Result replay = replayWithExport("kueue", warehouse);
    ExperimentReport report = replay.report();
    Map<String, String> queries =
        queries(Files.readString(Path.of("../docs/operators/warehouse.md")));
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = db.createStatement()) {
      for (String view : queries.get("views").split(";")) {
        // No service was interrupted: workload_intervals has no file, and DuckDB refuses a view
        // over a directory without one (as docs/operators/warehouse.md says).
        if (!view.strip().isEmpty() && !view.contains("workload_intervals/")) {
          s.execute(view.replace("'warehouse/", "'" + warehouse + "/"));
        }
      }
      try (var files = Files.walk(warehouse)) {
        assertThat(files.map(Path::toString))
            .noneMatch(f -> f.contains("workload_intervals/") && f.endsWith(".parquet"));
      }
      List<Map<String, Object>> waits = rows(s, queries.get("queue-wait"));
      List<ExperimentReport.Row> queued =
          report.rows().stream().filter(ExperimentReport.Row::queued).toList();
      assertThat(waits).as("rows whose pods waited in a queue").hasSize(queued.size()).isNotEmpty();
      for (Map<String, Object> r : waits) {
        ExperimentReport.Row row = report.row((String) r.get("arm"), (String) r.get("workload"));
        assertThat(num(r, "queue_wait_p50_ms"))
            .as("queue wait p50 of %s", r)
            .isCloseTo(row.queueWaitP50Ms().mean(), within(1e-6));
        assertThat(num(r, "queue_wait_p95_ms"))
            .as("queue wait p95 of %s", r)
            .isCloseTo(row.queueWaitP95Ms().mean(), within(1e-6));
      }
      List<Map<String, Object>> preempted = rows(s, queries.get("queue-preemptions"));
      List<ExperimentReport.Row> victims =
          report.rows().stream()
              .filter(r -> r.queuePreemptions() != null && r.queuePreemptions().mean() > 0)
              .toList();
      assertThat(preempted).as("rows Kueue preempted").hasSize(victims.size()).isNotEmpty();
      for (Map<String, Object> r : preempted) {
        ExperimentReport.Row row = report.row((String) r.get("arm"), (String) r.get("workload"));
        assertThat(num(r, "preempted_pods")).isCloseTo(row.queuePreemptions().mean(), within(1e-9));
        assertThat(num(r, "wasted_gpu_hours"))
            .as("work Kueue's preemptions lost in %s", r)
            .isCloseTo(row.queueWastedGpuSeconds().mean() / 3600, within(1e-9));
      }
    }
  }

  /**
   * A bundled scenario simulated, recorded as from a cluster and replayed with {@code --export
   * warehouse}: no Kafka of one's own, the replay writes the tables itself, with the same exporter
   * as ./schedlens export.
   */
  Replay.Result replayWithExport(String name, Path warehouse) throws Exception {
    Scenario scenario = ScenarioLoader.load(name);
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording-" + name));
    List<String> args =
        new ArrayList<>(Recordings.replayArgs(rec.dir(), dir.resolve("out-" + name), scenario));
    args.addAll(List.of("--export", warehouse.toString()));
    return new Replay(
            ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, Map.of())),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .run();
  }

  /** The named SQL blocks of the document: {@code -- name: X} as their first line. */
  static Map<String, String> queries(String markdown) {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile("```sql\\n-- name: ([\\w-]+)\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  static List<Map<String, Object>> rows(Statement s, String sql) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql.strip().replaceAll(";$", ""))) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= n; i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  static double num(Map<String, Object> row, String column) {
    return ((Number) row.get(column)).doubleValue();
  }

  static long count(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
