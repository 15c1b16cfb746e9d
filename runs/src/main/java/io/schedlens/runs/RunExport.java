package io.schedlens.runs;

import io.schedlens.export.ExportConfig;
import io.schedlens.export.Exporter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * {@code --export DIR} of {@code demo} and {@code replay}: the run's warehouse tables as Parquet
 * files, without a Kafka cluster of one's own. The same {@link Exporter} as {@code ./schedlens
 * export}, reading the run's embedded broker to its end before it stops: the same tables, columns
 * and layout ({@code DIR/pod_timelines/dt=YYYY-MM-DD/*.parquet}, ...).
 */
public final class RunExport {

  public static final String EXPORT = "export";

  private RunExport() {}

  /** Adds the {@code export} setting to a command's settings. */
  public static ConfigDef define(ConfigDef def) {
    return def.define(
        EXPORT,
        Type.STRING,
        "",
        Importance.MEDIUM,
        "Directory to write the run's warehouse tables to as Parquet, as ./schedlens export writes them (pod_timelines, preemptions, workload_timelines, workload_intervals, by day): DuckDB reads them with read_parquet('DIR/pod_timelines/**/*.parquet', hive_partitioning=true). Empty: no export.");
  }

  /**
   * Exports the final pod timelines and the workload timelines on the broker at {@code bootstrap}
   * to {@code dir}; does nothing when {@code dir} is empty.
   */
  public static void to(String dir, String bootstrap, PrintStream progress) throws Exception {
    if (dir.isEmpty()) {
      return;
    }
    Map<String, Object> v = new HashMap<>();
    v.put(ExportConfig.TO, Path.of(dir).toAbsolutePath().toString());
    v.put(ExportConfig.FORMAT, "parquet");
    v.put(ExportConfig.STOP_AT_END, true);
    v.put(ExportConfig.FLUSH_INTERVAL, "0s");
    ExportConfig config = new ExportConfig(v, Map.of("bootstrap.servers", bootstrap));
    try (Exporter exporter = new Exporter(config, Exporter.sinkFor(config), progress, progress)) {
      exporter.run();
    }
  }

  /** Refuses, before the run, an export directory that is a URL (s3://, gs://). */
  public static void validate(String dir) {
    if (!dir.isEmpty()) {
      ExportConfig.requireLocalOrJdbc(dir, "--export");
    }
  }
}
