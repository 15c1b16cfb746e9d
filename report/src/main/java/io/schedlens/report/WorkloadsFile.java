package io.schedlens.report;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code workloads.jsonl}, the sibling of {@code timelines.jsonl}: one workload timeline per line
 * (the latest of each workload), ordered by namespace, kind and name, as the demo and the replay
 * write it and the report reads it.
 */
public final class WorkloadsFile {

  public static final String NAME = "workloads.jsonl";

  private WorkloadsFile() {}

  /**
   * Where a workload timeline is kept: its topic key, plus the controller's UID for a Job or
   * StatefulSet (a Job created again under the same name is another workload, with its own line).
   */
  public static String identity(WorkloadTimeline t) {
    return WorkloadKey.of(t).identity();
  }

  /** Keeps the latest timeline of each workload, as read from the topic in order. */
  public static void keepLatest(Map<String, WorkloadTimeline> latest, WorkloadTimeline t) {
    if (t != null) {
      latest.put(identity(t), t);
    }
  }

  /** Writes {@code dir/workloads.jsonl}; returns the timelines in the order written. */
  public static List<WorkloadTimeline> write(Path dir, Collection<WorkloadTimeline> workloads)
      throws IOException {
    List<WorkloadTimeline> ordered = new ArrayList<>(workloads);
    ordered.sort(Comparator.comparing(WorkloadsFile::identity));
    JsonLines.write(dir.resolve(NAME), ordered);
    return ordered;
  }

  /**
   * Reads {@code dir/workloads.jsonl} (or the file itself); an absent file is no workloads (a
   * timelines file from before workloads existed).
   *
   * @throws IllegalArgumentException naming the line that is not a workload timeline
   */
  public static List<WorkloadTimeline> read(Path path) throws IOException {
    Path p = Files.isDirectory(path) ? path.resolve(NAME) : path;
    if (!Files.exists(p)) {
      return List.of();
    }
    Map<String, WorkloadTimeline> out = new LinkedHashMap<>();
    for (WorkloadTimeline t : JsonLines.read(p, WorkloadTimeline.class, "a workload timeline")) {
      keepLatest(out, t);
    }
    return new ArrayList<>(out.values());
  }
}
