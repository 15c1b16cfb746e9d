package io.schedlens.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Avro object-container files, Hive-partitioned by day: {@code pod_timelines/dt=YYYY-MM-DD/
 * part-<partition>-<first offset>.avro}, the day being the pod's end (terminatedAt, else its last
 * update) in UTC. BigQuery, Snowflake, Redshift, Athena/Trino and Spark load these directly (schema
 * from the file; {@code dt} as a partition column).
 *
 * <p>Exactly once: data files are written under temporary names and moved into place, then {@code
 * _manifest.json} — every committed file and the next offset per partition — is replaced
 * atomically. That replacement is the commit. At start, files the manifest does not list (a crash
 * between the two) are deleted and their records read again.
 */
public final class AvroFileSink implements TimelineSink {

  public static final String MANIFEST = "_manifest.json";
  public static final String DATASET = "pod_timelines";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path root;
  private final String topic;
  private final Map<Integer, Long> offsets = new TreeMap<>();
  private final Map<String, JsonNode> files = new LinkedHashMap<>();

  /** Test hook: fail after the data files are in place, before the manifest commits them. */
  private final boolean failBeforeCommit;

  public AvroFileSink(Path root, String topic) throws IOException {
    this(root, topic, false);
  }

  AvroFileSink(Path root, String topic, boolean failBeforeCommit) throws IOException {
    this.root = root;
    this.topic = topic;
    this.failBeforeCommit = failBeforeCommit;
    Files.createDirectories(root.resolve(DATASET));
    Files.writeString(root.resolve(DATASET + ".avsc"), PodTimeline.getClassSchema().toString(true));
    load();
  }

  private void load() throws IOException {
    Path manifest = root.resolve(MANIFEST);
    if (Files.exists(manifest)) {
      JsonNode m = JSON.readTree(manifest.toFile());
      if (!topic.equals(m.path("topic").asText(topic))) {
        throw new IllegalStateException(
            root
                + " holds an export of topic "
                + m.path("topic").asText()
                + ", not "
                + topic
                + ": use another --to directory");
      }
      m.path("offsets")
          .fields()
          .forEachRemaining(e -> offsets.put(Integer.parseInt(e.getKey()), e.getValue().asLong()));
      m.path("files").forEach(f -> files.put(f.path("path").asText(), f));
    }
    // Anything not committed is left over from a crash: remove it, its records come again.
    Set<String> committed = new HashSet<>(files.keySet());
    try (Stream<Path> all = Files.walk(root.resolve(DATASET))) {
      for (Path p : all.filter(Files::isRegularFile).toList()) {
        String rel = root.relativize(p).toString();
        if (!committed.contains(rel)) {
          Files.delete(p);
        }
      }
    }
  }

  @Override
  public Map<Integer, Long> committedOffsets() {
    return Map.copyOf(offsets);
  }

  @Override
  public void write(List<Exported> finals, Map<Integer, Long> next) throws IOException {
    // one file per partition and day, named by its first offset (unique, and stable on a retry)
    Map<String, List<Exported>> groups = new TreeMap<>();
    for (Exported e : finals) {
      groups
          .computeIfAbsent(day(e.timeline()) + "/" + e.partition(), k -> new ArrayList<>())
          .add(e);
    }
    List<ObjectNode> written = new ArrayList<>();
    for (List<Exported> group : groups.values()) {
      Exported first = group.get(0);
      String day = day(first.timeline());
      Path dir = root.resolve(DATASET).resolve("dt=" + day);
      Files.createDirectories(dir);
      String name = "part-" + first.partition() + "-" + first.offset() + ".avro";
      Path tmp = dir.resolve("." + name + ".tmp");
      try (DataFileWriter<PodTimeline> w =
          new DataFileWriter<>(new SpecificDatumWriter<>(PodTimeline.class))) {
        w.setCodec(CodecFactory.deflateCodec(6));
        w.create(PodTimeline.getClassSchema(), tmp.toFile());
        for (Exported e : group) {
          w.append(e.timeline());
        }
      }
      Path target = dir.resolve(name);
      move(tmp, target);
      ObjectNode f = JSON.createObjectNode();
      f.put("path", root.relativize(target).toString());
      f.put("dt", day);
      f.put("partition", first.partition());
      f.put("firstOffset", first.offset());
      f.put("lastOffset", group.get(group.size() - 1).offset());
      f.put("records", group.size());
      f.put("bytes", Files.size(target));
      written.add(f);
    }
    if (failBeforeCommit && !written.isEmpty()) {
      throw new IOException("test: crash after the data files, before the manifest");
    }
    written.forEach(f -> files.put(f.path("path").asText(), f));
    offsets.putAll(next);
    commit();
  }

  private void commit() throws IOException {
    ObjectNode m = JSON.createObjectNode();
    m.put("topic", topic);
    m.put("dataset", DATASET);
    m.put("format", "avro");
    m.put("schema", DATASET + ".avsc");
    m.put("partitioning", "dt=YYYY-MM-DD (UTC day of terminatedAt, else updatedAt)");
    m.put("committedAt", Instant.now().toString());
    ObjectNode o = m.putObject("offsets");
    offsets.forEach((p, off) -> o.put(Integer.toString(p), off));
    long records = 0;
    ArrayNode list = m.putArray("files");
    for (JsonNode f : files.values()) {
      list.add(f);
      records += f.path("records").asLong();
    }
    m.put("records", records);
    Path tmp = root.resolve("." + MANIFEST + ".tmp");
    Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
    move(tmp, root.resolve(MANIFEST));
  }

  static String day(PodTimeline t) {
    long at = t.getTerminatedAt() != null ? t.getTerminatedAt() : t.getUpdatedAt();
    return LocalDate.ofInstant(Instant.ofEpochMilli(at), ZoneOffset.UTC).toString();
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
