package io.schedlens.serving.pages;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.AvroJson;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.ListPaging;
import io.schedlens.serving.api.Listing;
import io.schedlens.serving.api.TimelineFilters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The timelines a demo or replay wrote ({@code timelines.jsonl}, {@code workloads.jsonl}), so that
 * a post-mortem can be shared as a directory: the latest line per pod UID and per workload wins.
 * "Now" is the latest event time in them, not the wall clock.
 */
public final class FilePageSource implements PageSource {

  private final Map<String, PodTimeline> pods = new LinkedHashMap<>();
  private final Map<String, WorkloadTimeline> workloads = new LinkedHashMap<>();
  private long now;

  public FilePageSource(Path dir) throws IOException {
    Path timelines = dir.resolve("timelines.jsonl");
    if (!Files.isRegularFile(timelines)) {
      throw new IOException(
          "no timelines.jsonl in " + dir + ": give the --out directory of a demo or replay");
    }
    try (Stream<String> lines = Files.lines(timelines)) {
      lines
          .filter(l -> !l.isBlank())
          .forEach(
              l -> {
                PodTimeline t = AvroJson.fromLine(l, PodTimeline.class);
                pods.put(t.getUid(), t);
                now = Math.max(now, t.getUpdatedAt());
              });
    }
    Path w = dir.resolve("workloads.jsonl");
    if (Files.isRegularFile(w)) {
      try (Stream<String> lines = Files.lines(w)) {
        lines
            .filter(l -> !l.isBlank())
            .forEach(
                l -> {
                  WorkloadTimeline t = AvroJson.fromLine(l, WorkloadTimeline.class);
                  workloads.put(WorkloadKey.of(t).identity(), t);
                  now = Math.max(now, t.getUpdatedAt());
                });
      }
    }
  }

  public int podCount() {
    return pods.size();
  }

  @Override
  public Optional<PodTimeline> pod(String uid) {
    return Optional.ofNullable(pods.get(uid));
  }

  @Override
  public Listing<PodTimeline> pods(String state, Map<String, String> filters, int limit) {
    Predicate<PodTimeline> p = TimelineFilters.pods(state, filters);
    if (p == null) {
      throw new IllegalArgumentException("state must be pending, starving, preempted or all");
    }
    ListPaging.FirstAfter<PodTimeline> first =
        new ListPaging.FirstAfter<>(null, limit, ListPaging::pod);
    pods.values().stream().filter(p).forEach(first::offer);
    return ListPaging.whole(first);
  }

  @Override
  public Optional<WorkloadTimeline> workload(WorkloadKey key) {
    if (key.controllerUid() != null) {
      return Optional.ofNullable(workloads.get(key.identity()));
    }
    return workloads.values().stream()
        .filter(w -> WorkloadKey.of(w).topicKey().equals(key.topicKey()))
        .max(
            Comparator.comparingLong(WorkloadTimeline::getUpdatedAt)
                .thenComparing(w -> WorkloadKey.of(w).identity()));
  }

  @Override
  public Listing<WorkloadTimeline> workloads(Map<String, String> filters, int limit) {
    ListPaging.FirstAfter<WorkloadTimeline> first =
        new ListPaging.FirstAfter<>(null, limit, ListPaging::workload);
    workloads.values().stream()
        .filter(w -> TimelineFilters.workloadMatches(w, filters))
        .forEach(first::offer);
    return ListPaging.whole(first);
  }

  @Override
  public long now() {
    return now;
  }
}
