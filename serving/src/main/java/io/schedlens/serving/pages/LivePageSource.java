package io.schedlens.serving.pages;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.Listing;
import io.schedlens.serving.api.TimelineQueries;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/** The running app's timelines, across its instances, through the API's interactive queries. */
public final class LivePageSource implements PageSource {

  private final TimelineQueries api;
  private final LongSupplier eventNow;

  /**
   * @param eventNow the latest event time the app has published (what the pending gauges measure
   *     ages against), the time a live pod is shown at
   */
  public LivePageSource(TimelineQueries api, LongSupplier eventNow) {
    this.api = api;
    this.eventNow = eventNow;
  }

  @Override
  public Optional<PodTimeline> pod(String uid) throws IOException {
    return api.pod(uid);
  }

  @Override
  public Listing<PodTimeline> pods(String state, Map<String, String> filters, int limit)
      throws IOException {
    return api.pods(state, filters, null, limit);
  }

  @Override
  public Optional<WorkloadTimeline> workload(WorkloadKey key) throws IOException {
    return api.workload(key.identity());
  }

  @Override
  public Listing<WorkloadTimeline> workloads(Map<String, String> filters, int limit)
      throws IOException {
    return api.workloads(filters, null, limit);
  }

  /**
   * Event time, not the wall clock: a replay, the accelerated demo or a lagging app shows a live
   * pod's pending age as its inputs say, the same age as the gauges, and the same inputs draw the
   * same page.
   */
  @Override
  public long now() {
    return eventNow.getAsLong();
  }
}
