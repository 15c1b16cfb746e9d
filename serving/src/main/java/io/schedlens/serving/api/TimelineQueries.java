package io.schedlens.serving.api;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.http.PeerCalls;
import io.schedlens.schemas.AvroJson;
import io.schedlens.schemas.PublishedStores;
import io.schedlens.schemas.WorkloadKey;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;

/**
 * The published timelines across every instance of the app, typed: a key is asked of the instance
 * that holds it, a list is this instance's part merged with every other's ({@link ListPaging}). The
 * API answers from it; so do the live pages.
 */
public final class TimelineQueries {

  private final LocalStores local;
  private final OtherInstances others;

  /**
   * @param peers how this instance presents itself to the others
   * @param tls whether the instances serve HTTPS (then they are called so)
   * @param trust what the calls to the other instances trust, or null for the JVM's trust store
   */
  public TimelineQueries(LocalStores local, PeerCalls peers, boolean tls, SSLContext trust) {
    this.local = local;
    this.others = new OtherInstances(peers, tls, trust);
  }

  LocalStores local() {
    return local;
  }

  /** The timeline of a pod UID, asked of the instance that holds it. */
  public Optional<PodTimeline> pod(String uid) throws IOException {
    String owner = local.otherOwner(PublishedStores.TIMELINES, uid);
    if (owner == null) {
      return Optional.ofNullable(local.timelines().get(uid));
    }
    String body =
        others.fetch(
            owner, "/api/pods/" + URLEncoder.encode(uid, StandardCharsets.UTF_8) + "?local=true");
    return Optional.ofNullable(body).map(b -> AvroJson.fromLine(b, PodTimeline.class));
  }

  /**
   * One page of the timelines of every instance that match {@code state} and the attribute filters:
   * the first {@code limit} after the cursor {@code after} (null: from the start) by creation time,
   * then UID. Each instance keeps only its first {@code limit} matches.
   *
   * @throws ApiUnavailable when an instance does not answer or the instances' partitions do not
   *     make the whole store (a rebalance is under way)
   */
  public Listing<PodTimeline> pods(String state, Map<String, String> query, String after, int limit)
      throws IOException {
    Predicate<PodTimeline> filter = TimelineFilters.pods(state, query);
    if (filter == null) {
      throw new IllegalArgumentException("state must be pending, starving, preempted or all");
    }
    List<ListPaging.Part<PodTimeline>> parts = new ArrayList<>();
    parts.add(
        local.part(
            PublishedStores.TIMELINES, filter, ListPaging.after(after), limit, ListPaging::pod));
    String path =
        "/api/pods?local=true&state="
            + URLEncoder.encode(state, StandardCharsets.UTF_8)
            + forwarded(TimelineFilters.POD_ATTRIBUTES.keySet(), query)
            + forwarded(List.of("preemptedSince"), query)
            + paging(after, limit);
    parts.addAll(others.parts(local.otherInstances(), path, "pods", PodTimeline.class));
    return ListPaging.merge(parts, local.partitions(), limit, ListPaging::pod);
  }

  /**
   * The timeline of a workload: {@code namespace/kind/name/controllerUid} that identity, {@code
   * namespace/kind/name} the newest workload of that name (a Job created again under its name is
   * another workload, each kept).
   */
  public Optional<WorkloadTimeline> workload(String key) throws IOException {
    String owner = local.otherOwner(PublishedStores.WORKLOADS, WorkloadKey.parse(key).topicKey());
    if (owner == null) {
      return WorkloadsOfName.find(local.workloads(), key);
    }
    StringBuilder path = new StringBuilder("/api/workloads");
    for (String segment : key.split("/", -1)) {
      path.append('/').append(URLEncoder.encode(segment, StandardCharsets.UTF_8));
    }
    String body = others.fetch(owner, path + "?local=true");
    return Optional.ofNullable(body).map(b -> AvroJson.fromLine(b, WorkloadTimeline.class));
  }

  /** One page of the workload timelines of every instance that match, as {@link #pods}. */
  public Listing<WorkloadTimeline> workloads(Map<String, String> query, String after, int limit)
      throws IOException {
    List<ListPaging.Part<WorkloadTimeline>> parts = new ArrayList<>();
    parts.add(
        local.part(
            PublishedStores.WORKLOADS,
            (WorkloadTimeline w) -> TimelineFilters.workloadMatches(w, query),
            ListPaging.after(after),
            limit,
            ListPaging::workload));
    String path =
        "/api/workloads?local=true"
            + forwarded(TimelineFilters.WORKLOAD_ATTRIBUTES, query)
            + paging(after, limit);
    parts.addAll(others.parts(local.otherInstances(), path, "workloads", WorkloadTimeline.class));
    return ListPaging.merge(parts, local.partitions(), limit, ListPaging::workload);
  }

  private static String forwarded(Collection<String> keys, Map<String, String> query) {
    StringBuilder b = new StringBuilder();
    for (String key : keys) {
      String v = query.get(key);
      if (v != null && !v.isEmpty()) {
        b.append('&').append(key).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    }
    return b.toString();
  }

  private static String paging(String after, int limit) {
    return "&limit="
        + limit
        + (after == null || after.isEmpty()
            ? ""
            : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8));
  }
}
