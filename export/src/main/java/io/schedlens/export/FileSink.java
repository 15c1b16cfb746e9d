package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.export.WarehouseTables.Row;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.kafka.common.TopicPartition;

/**
 * Avro or Parquet files, Hive-partitioned by day: {@code <table>/dt=YYYY-MM-DD/part-<partition>-
 * <offset>.<avro|parquet>} (one file per table and day per commit, named by its first row's topic
 * position) for the tables of {@link WarehouseTables}. BigQuery, Snowflake, Redshift, Athena/Trino,
 * Spark and DuckDB load these directly (schema from the file; {@code dt} as a partition column);
 * each table's schema is also at {@code <table>.avsc}.
 *
 * <p>Exactly once: data files are written under temporary names and moved into place, then {@code
 * _manifest.json} (every committed file and the next offset per topic partition) is replaced
 * atomically. That replacement is the commit. At start, files the manifest does not list (a crash
 * between the two) are deleted and their records read again.
 */
public final class FileSink implements WarehouseSink {

  public static final String MANIFEST = "_manifest.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path root;
  private final FileFormat format;
  private final String podTopic;
  private final String workloadTopic;
  private final Map<TopicPartition, Long> offsets = new HashMap<>();
  private final Map<String, JsonNode> files = new LinkedHashMap<>();

  /** Test hook: fail after the data files are in place, before the manifest commits them. */
  private final boolean failBeforeCommit;

  public FileSink(Path root, FileFormat format, String podTopic, String workloadTopic)
      throws IOException {
    this(root, format, podTopic, workloadTopic, false);
  }

  FileSink(
      Path root, FileFormat format, String podTopic, String workloadTopic, boolean failBeforeCommit)
      throws IOException {
    this.root = root;
    this.format = format;
    this.podTopic = podTopic;
    this.workloadTopic = workloadTopic;
    this.failBeforeCommit = failBeforeCommit;
    Files.createDirectories(root);
    load();
    for (String dataset : WarehouseTables.DATASETS) {
      Files.createDirectories(root.resolve(dataset));
      Files.writeString(root.resolve(dataset + ".avsc"), schemaOf(dataset).toString(true));
    }
  }

  static Schema schemaOf(String dataset) {
    return switch (dataset) {
      case WarehouseTables.POD_TIMELINES -> WarehouseTables.POD_TIMELINE_ROW;
      case WarehouseTables.PREEMPTIONS -> WarehouseTables.PREEMPTION_TABLE.schema();
      case WarehouseTables.WORKLOAD_TIMELINES -> WarehouseTables.WORKLOAD_TIMELINE_ROW;
      case WarehouseTables.WORKLOAD_INTERVALS -> WarehouseTables.INTERVAL_TABLE.schema();
      default -> throw new IllegalArgumentException(dataset);
    };
  }

  private void load() throws IOException {
    Path manifest = root.resolve(MANIFEST);
    if (Files.exists(manifest)) {
      JsonNode m = JSON.readTree(manifest.toFile());
      String was = m.path("format").asText("avro");
      if (!was.equals(format.extension())) {
        throw new IllegalStateException(
            root
                + " holds a "
                + was
                + " export: give --format "
                + was
                + " to go on with it, or another --to directory");
      }
      JsonNode topic = m.path("topic");
      if (!topic.isMissingNode() && !podTopic.equals(topic.asText())) {
        throw new IllegalStateException(
            root
                + " holds an export of topic "
                + topic.asText()
                + ", not "
                + podTopic
                + ": use another --to directory");
      }
      m.path("offsets")
          .fields()
          .forEachRemaining(
              e -> {
                if (e.getValue().isNumber()) {
                  // the first manifests: one topic, offsets by partition
                  offsets.put(
                      new TopicPartition(podTopic, Integer.parseInt(e.getKey())),
                      e.getValue().asLong());
                } else {
                  e.getValue()
                      .fields()
                      .forEachRemaining(
                          p ->
                              offsets.put(
                                  new TopicPartition(e.getKey(), Integer.parseInt(p.getKey())),
                                  p.getValue().asLong()));
                }
              });
      m.path("files").forEach(f -> files.put(f.path("path").asText(), f));
    }
    // Anything not committed is left over from a crash: remove it, its records come again.
    Set<String> committed = new HashSet<>(files.keySet());
    for (String dataset : WarehouseTables.DATASETS) {
      if (!Files.isDirectory(root.resolve(dataset))) {
        continue;
      }
      try (Stream<Path> all = Files.walk(root.resolve(dataset))) {
        for (Path p : all.filter(Files::isRegularFile).toList()) {
          if (!committed.contains(root.relativize(p).toString())) {
            Files.delete(p);
          }
        }
      }
    }
  }

  @Override
  public Map<TopicPartition, Long> committedOffsets() {
    return Map.copyOf(offsets);
  }

  /**
   * A group of rows that goes into one file: a table's rows of one day in one commit, from every
   * partition (larger files: a query engine reads a few large files much faster than many small
   * ones). Named by its first row's partition and offset: unique, and stable on a retry.
   */
  private record Group(String dataset, String day, String topic, int partition, long firstOffset) {
    String path() {
      return dataset + "/dt=" + day + "/part-" + partition + "-" + firstOffset;
    }
  }

  @Override
  public void write(Batch batch) throws IOException {
    // one file per table, day and partition, named by its first offset (unique, stable on a retry)
    Map<String, Group> groups = new TreeMap<>();
    Map<String, List<Row>> rows = new HashMap<>();
    for (WarehouseSink.Exported<PodTimeline> e : batch.pods()) {
      for (Row r : WarehouseTables.rowsOf(e.value(), e.partition(), e.offset())) {
        add(groups, rows, r, podTopic, e.partition(), e.offset());
      }
    }
    for (WarehouseSink.Exported<WorkloadTimeline> e : batch.workloads()) {
      for (Row r : WarehouseTables.rowsOf(e.key(), e.value(), e.partition(), e.offset())) {
        add(groups, rows, r, workloadTopic, e.partition(), e.offset());
      }
    }
    List<ObjectNode> written = new ArrayList<>();
    for (Map.Entry<String, Group> entry : groups.entrySet()) {
      Group g = entry.getValue();
      List<Row> mine = rows.get(entry.getKey());
      Path target = root.resolve(g.path() + "." + format.extension());
      Files.createDirectories(target.getParent());
      Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      try (FileFormat.RowWriter w = format.open(tmp, schemaOf(g.dataset()))) {
        for (Row r : mine) {
          w.write(r.record());
        }
      }
      move(tmp, target);
      ObjectNode f = JSON.createObjectNode();
      f.put("path", root.relativize(target).toString());
      f.put("dataset", g.dataset());
      f.put("dt", g.day());
      f.put("topic", g.topic());
      f.put("records", mine.size());
      f.put("bytes", Files.size(target));
      written.add(f);
    }
    if (failBeforeCommit && !written.isEmpty()) {
      throw new IOException("test: crash after the data files, before the manifest");
    }
    written.forEach(f -> files.put(f.path("path").asText(), f));
    offsets.putAll(batch.next());
    commit();
  }

  private static void add(
      Map<String, Group> groups,
      Map<String, List<Row>> rows,
      Row r,
      String topic,
      int partition,
      long offset) {
    String id = r.dataset() + "/" + r.day();
    groups.computeIfAbsent(id, k -> new Group(r.dataset(), r.day(), topic, partition, offset));
    rows.computeIfAbsent(id, k -> new ArrayList<>()).add(r);
  }

  private void commit() throws IOException {
    ObjectNode m = JSON.createObjectNode();
    m.put("format", format.extension());
    ObjectNode topics = m.putObject("topics");
    topics.put("podTimelines", podTopic);
    topics.put("workloadTimelines", workloadTopic);
    ObjectNode datasets = m.putObject("datasets");
    Map<String, Long> records = new TreeMap<>();
    for (String d : WarehouseTables.DATASETS) {
      datasets.putObject(d).put("schema", d + ".avsc");
      records.put(d, 0L);
    }
    m.put(
        "partitioning",
        "dt=YYYY-MM-DD, UTC: pod_timelines by terminatedAt (else updatedAt), preemptions by"
            + " preemptedAt, workload tables by updatedAt");
    m.put(
        "supersede",
        "of several rows of one key (uid; victimUid; namespace, kind, name, controllerUid), the one"
            + " with the largest sourceOffset is the latest");
    m.put("committedAt", Instant.now().toString());
    ObjectNode o = m.putObject("offsets");
    Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
    offsets.forEach(
        (tp, off) ->
            byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), off));
    byTopic.forEach(
        (topic, parts) -> {
          ObjectNode t = o.putObject(topic);
          parts.forEach((p, off) -> t.put(Integer.toString(p), off));
        });
    ArrayNode list = m.putArray("files");
    for (JsonNode f : files.values()) {
      list.add(f);
      records.merge(
          f.path("dataset").asText(WarehouseTables.POD_TIMELINES),
          f.path("records").asLong(),
          Long::sum);
    }
    ObjectNode r = m.putObject("records");
    records.forEach(r::put);
    Path tmp = root.resolve("." + MANIFEST + ".tmp");
    Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
    move(tmp, root.resolve(MANIFEST));
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException(
          "the export directory's file system cannot rename atomically ("
              + to
              + "): exactly-once needs it; use a local or POSIX file system and copy from there",
          e);
    }
  }

  @Override
  public void close() {}
}
