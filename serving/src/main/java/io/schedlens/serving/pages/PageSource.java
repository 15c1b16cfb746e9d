package io.schedlens.serving.pages;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.Listing;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * Where the pages get their timelines: the running app's stores across its instances ({@link
 * LivePageSource}), or the files a demo or replay wrote ({@link FilePageSource}).
 */
public interface PageSource {

  Optional<PodTimeline> pod(String uid) throws IOException;

  /**
   * The first {@code limit} pods (by creation) in {@code state} (pending, starving, preempted, all)
   * that match every filter given ({@code namespace}, {@code name}, {@code priorityClass}, {@code
   * arm}, {@code repeat}, {@code workloadKind}, {@code workloadName}, {@code preemptedSince}), as
   * {@code GET /api/pods} filters, and how many match in all.
   */
  Listing<PodTimeline> pods(String state, Map<String, String> filters, int limit)
      throws IOException;

  /**
   * The workload {@code key} names: with its controller UID that identity, without it the newest
   * workload of that name (a Job created again under its name is another workload).
   */
  Optional<WorkloadTimeline> workload(WorkloadKey key) throws IOException;

  /**
   * The workloads that match ({@code namespace}, {@code kind}, {@code arm}, {@code interrupted}).
   */
  Listing<WorkloadTimeline> workloads(Map<String, String> filters, int limit) throws IOException;

  /** The time a live pod is shown at, epoch ms: an event time (the latest the source holds). */
  long now();
}
