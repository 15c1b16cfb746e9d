package io.schedlens.streams.pages;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.streams.api.TimelineApi;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The running app's timelines, across its instances, through the API's interactive queries. */
public final class LivePageSource implements PageSource {

  private final TimelineApi api;

  public LivePageSource(TimelineApi api) {
    this.api = api;
  }

  @Override
  public Optional<PodTimeline> pod(String uid) throws IOException {
    return api.pod(uid);
  }

  @Override
  public List<PodTimeline> pods(String state, Map<String, String> filters) throws IOException {
    return api.pods(state, filters);
  }

  @Override
  public Optional<WorkloadTimeline> workload(String namespace, String kind, String name)
      throws IOException {
    return api.workload(WorkloadKey.of(namespace, kind, name).topicKey());
  }

  @Override
  public List<WorkloadTimeline> workloads(Map<String, String> filters) throws IOException {
    return api.workloads(filters);
  }

  /** Wall-clock time: it decides only how far a live pod's bands reach on the page. */
  @Override
  public long now() {
    return System.currentTimeMillis();
  }
}
