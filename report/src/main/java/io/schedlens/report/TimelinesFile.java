package io.schedlens.report;

import io.schedlens.avro.PodTimeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * {@code timelines.jsonl}: one pod timeline per line in the JSON form of docs/design.md section 4,
 * ordered by creation time, as the demo and the replay write it and the report reads it.
 */
public final class TimelinesFile {

  public static final String NAME = "timelines.jsonl";

  private TimelinesFile() {}

  /** Writes {@code dir/timelines.jsonl}; returns the timelines in the order written. */
  public static List<PodTimeline> write(Path dir, Collection<PodTimeline> timelines)
      throws IOException {
    List<PodTimeline> ordered = new ArrayList<>(timelines);
    ordered.sort(
        Comparator.comparing((PodTimeline t) -> t.getCreatedAt() == null ? 0 : t.getCreatedAt())
            .thenComparing(PodTimeline::getUid));
    JsonLines.write(dir.resolve(NAME), ordered);
    return ordered;
  }

  /**
   * Reads a timelines file (or {@code dir/timelines.jsonl}).
   *
   * @throws IllegalArgumentException naming the line that is not a pod timeline
   */
  public static List<PodTimeline> read(Path path) throws IOException {
    Path p = Files.isDirectory(path) ? path.resolve(NAME) : path;
    return JsonLines.read(p, PodTimeline.class, "a pod timeline");
  }
}
