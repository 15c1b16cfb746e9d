package io.schedlens.export;

import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.schemas.Topics;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** Settings of {@code ./schedlens export}. */
public final class ExportConfig extends AppConfig {

  public static final String TO = "to";
  public static final String FORMAT = "format";
  public static final String TOPIC_PREFIX = "topic.prefix";
  public static final String STOP_AT_END = "stop.at.end";
  public static final String MAX_POLL_RECORDS = "max.poll.records";
  public static final String FLUSH_RECORDS = "flush.records";
  public static final String FLUSH_INTERVAL = "flush.interval";
  public static final String JDBC_USER = "jdbc.user";
  public static final String JDBC_PASSWORD = "jdbc.password";
  public static final String JDBC_CREATE_TABLES = "jdbc.create.tables";

  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              TO,
              Type.STRING,
              "",
              Importance.HIGH,
              "Where the tables go (pod_timelines, preemptions, workload_timelines, workload_intervals): a directory (Parquet or Avro files partitioned dt=YYYY-MM-DD, with _manifest.json) or a JDBC URL (jdbc:postgresql://host:5432/db).")
          .define(
              FORMAT,
              Type.STRING,
              "parquet",
              ConfigDef.ValidString.in("parquet", "avro"),
              Importance.MEDIUM,
              "File format of a directory export: parquet (zstd) or avro (deflate); a directory keeps the format it was started with.")
          .define(
              STOP_AT_END,
              Type.BOOLEAN,
              false,
              Importance.MEDIUM,
              "Stop once the topics' current ends are exported (a batch load); false: keep exporting as timelines come.")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              Topics.DEFAULT_PREFIX,
              Importance.LOW,
              "Prefix of the topic names, as the streams app's.")
          .define(
              MAX_POLL_RECORDS,
              Type.INT,
              2000,
              Range.between(1, 100_000),
              Importance.LOW,
              "Records fetched per poll.")
          .define(
              FLUSH_RECORDS,
              Type.INT,
              50_000,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Commit once this many final pod timelines and workload timelines are waiting (one file per table, partition and day, or one transaction, per commit).")
          .define(
              FLUSH_INTERVAL,
              Type.STRING,
              "5m",
              Importance.MEDIUM,
              "Commit at the latest this long after the first waiting timeline arrived; a stop or --stop-at-end commits at once.")
          .define(
              JDBC_USER, Type.STRING, "", Importance.MEDIUM, "Database user (or in the JDBC URL).")
          .define(
              JDBC_PASSWORD,
              Type.PASSWORD,
              "",
              Importance.MEDIUM,
              "Database password; prefer the environment variable SCHEDLENS_JDBC_PASSWORD.")
          .define(
              JDBC_CREATE_TABLES,
              Type.BOOLEAN,
              true,
              Importance.LOW,
              "Create the tables (pod_timelines, preemptions, workload_timelines, workload_intervals, schedlens_export_offsets) when missing, and add columns added since (ddl/postgresql.sql).");

  public ExportConfig(Map<String, Object> values, Map<String, Object> kafka) {
    super(DEF, values, kafka);
    getDuration(FLUSH_INTERVAL);
    if (getString(TO).isEmpty()) {
      throw new ConfigException(
          "give --to DIR (Parquet or Avro files) or --to jdbc:postgresql://HOST/DB");
    }
    requireLocalOrJdbc(getString(TO), "--to");
  }

  /**
   * Refuses a destination that is a URL other than JDBC ({@code s3://}, {@code gs://}, {@code
   * abfss://}, {@code hdfs://}, {@code file://}): files go to a local directory, which a copy
   * command or a mounted bucket takes further; a URL must not become a folder named {@code s3:}.
   */
  public static void requireLocalOrJdbc(String to, String setting) {
    if (to.startsWith("jdbc:")) {
      return;
    }
    int scheme = to.indexOf("://");
    if (scheme > 0 && to.substring(0, scheme).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
      throw new ConfigException(
          setting
              + " "
              + to
              + ": "
              + to.substring(0, scheme)
              + ":// is not a destination schedlens writes to; give a local directory (then copy"
              + " it, e.g. aws s3 sync DIR s3://bucket/prefix, gcloud storage rsync -r DIR"
              + " gs://bucket/prefix) or a jdbc: URL");
    }
  }

  public static ExportConfig from(CommandLineSettings s) {
    return new ExportConfig(s.values(), s.kafka());
  }

  public FileFormat format() {
    return FileFormat.of(getString(FORMAT));
  }

  public boolean toJdbc() {
    return getString(TO).startsWith("jdbc:");
  }
}
