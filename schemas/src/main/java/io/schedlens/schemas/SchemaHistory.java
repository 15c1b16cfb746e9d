package io.schedlens.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The recorded versions of every wire schema, kept as resources {@code
 * schema-history/<Name>/v<N>.avsc} (fully inlined JSON). A version is added whenever a schema
 * changes; the compatibility test requires the current schema (for an output, its published form
 * with timestamps, {@link OutputSchemas}) to be among them and to be backward and forward
 * compatible with all of them, so old records stay readable and old readers keep working.
 */
public final class SchemaHistory {

  /** The top-level record names that travel on topics. */
  public static final List<String> WIRE_TYPES =
      List.of(
          "PodObservation",
          "WorkloadObservation",
          "ExperimentConfig",
          "ClusterEvent",
          "GpuSample",
          "ProgressMark",
          "RequestLog",
          "PodTimeline",
          "WorkloadTimeline",
          "Preemption",
          "DeadLetter");

  /**
   * The streams app's internal records: they live in internal topics, changelogs and state stores,
   * so an upgrade must read what the previous version wrote, just as for the wire types. A record
   * nested in another is here too when a store holds it on its own (a workload's members, its
   * per-second counts): the store's serde knows only the versions recorded under its own name.
   */
  public static final List<String> INTERNAL_TYPES =
      List.of(
          "StageMessage",
          "PodsOfName",
          "InputSecond",
          "NodeState",
          "TimelineState",
          "WorkloadState",
          "WorkloadMember",
          "SecondCount",
          "ClosedPoints");

  /**
   * The types the collector writes and the streams app (or the report) reads. Their schemas only
   * grow by fields appended at the end of the record, with defaults ({@link #appendOnly}; the
   * compatibility test holds every recorded version to it), so that a reader older than its writer
   * reads a newer version's record as its own latest one: the collector may be upgraded before or
   * after the streams app.
   */
  public static final List<String> INPUT_TYPES =
      List.of(
          "PodObservation",
          "WorkloadObservation",
          "ExperimentConfig",
          "ClusterEvent",
          "GpuSample",
          "ProgressMark",
          "RequestLog");

  /**
   * Whether each version, oldest first, is the one before with fields appended at the end (with
   * defaults) and nothing else changed on the wire: the fields before keep their names, order and
   * types (docs aside). Then a reader that knows an earlier version decodes a later one's binary
   * datum as its own: it reads the fields it knows, in place, and stops before the appended ones.
   */
  public static boolean appendOnly(List<Schema> versions) {
    for (int v = 1; v < versions.size(); v++) {
      List<Schema.Field> before = versions.get(v - 1).getFields();
      List<Schema.Field> after = versions.get(v).getFields();
      if (after.size() < before.size()) {
        return false;
      }
      for (int f = 0; f < after.size(); f++) {
        Schema.Field field = after.get(f);
        if (f < before.size()) {
          Schema.Field was = before.get(f);
          if (!was.name().equals(field.name())
              || !SchemaNormalization.toParsingForm(was.schema())
                  .equals(SchemaNormalization.toParsingForm(field.schema()))) {
            return false;
          }
        } else if (!field.hasDefaultValue()) {
          return false;
        }
      }
    }
    return true;
  }

  /** The Java class name of a recorded type. */
  public static String className(String name) {
    return (INTERNAL_TYPES.contains(name) ? "io.schedlens.avro.internal." : "io.schedlens.avro.")
        + name;
  }

  /** Every recorded type. */
  public static List<String> allTypes() {
    List<String> all = new ArrayList<>(WIRE_TYPES);
    all.addAll(INTERNAL_TYPES);
    return all;
  }

  private SchemaHistory() {}

  /** All recorded versions of a schema, oldest first; empty if none are recorded. */
  public static List<Schema> versionsOf(String name) {
    List<Schema> versions = new ArrayList<>();
    for (int v = 1; ; v++) {
      String resource = resourceOf(name, v);
      try (InputStream in = SchemaHistory.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          return versions;
        }
        versions.add(
            new Schema.Parser().parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read schema history resource " + resource, e);
      }
    }
  }

  /**
   * Records the current version of every wire schema that is not recorded yet, as the next {@code
   * v<N>.avsc} under the given resources directory. Run after a compatible schema change: {@code
   * mvn -q -pl schemas exec:java}.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: SchemaHistory <resources-dir>  (e.g. schemas/src/main/resources)");
      System.exit(2);
    }
    Path root = Path.of(args[0]);
    for (String name : allTypes()) {
      Schema current = OutputSchemas.published(name);
      List<Schema> versions = versionsOfDirectory(root, name);
      if (versions.stream().anyMatch(current::equals)) {
        System.out.println(
            name + ": current schema already recorded as v" + (versions.indexOf(current) + 1));
        continue;
      }
      Path file = root.resolve(resourceOf(name, versions.size() + 1));
      Files.createDirectories(file.getParent());
      Files.writeString(file, current.toString(true) + "\n");
      System.out.println(name + ": recorded " + file);
    }
  }

  private static List<Schema> versionsOfDirectory(Path root, String name) throws IOException {
    List<Schema> versions = new ArrayList<>();
    for (int v = 1; ; v++) {
      Path file = root.resolve(resourceOf(name, v));
      if (!Files.exists(file)) {
        return versions;
      }
      versions.add(new Schema.Parser().parse(Files.readString(file)));
    }
  }

  /** The classpath resource of version {@code v} of schema {@code name}. */
  public static String resourceOf(String name, int v) {
    return "schema-history/" + name + "/v" + v + ".avsc";
  }
}
