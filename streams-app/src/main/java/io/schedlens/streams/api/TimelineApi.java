package io.schedlens.streams.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.schemas.AvroJson;
import io.schedlens.streams.topology.TimelineTopology;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.InvalidStateStorePartitionException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The timeline API, answered across all instances of the app with Kafka Streams' interactive
 * queries: {@code GET /api/pods/{uid}} asks the instance that holds the pod (by the store's key
 * metadata) and {@code GET /api/pods?state=pending|starving|preempted|all&namespace=...} asks every
 * instance and merges. Live pods, and gone ones for {@code api.final.retention}. Workloads the same
 * way: {@code GET /api/workloads/{namespace}/{kind}/{name}} and {@code GET
 * /api/workloads?namespace=&kind=&arm=&interrupted=true}.
 *
 * <p>Lists are pages ({@link ListPaging}): {@code limit} (default 500, at most 1,000) items after
 * {@code after}, the {@code next} cursor of the previous page; every instance keeps only its first
 * {@code limit} matches and counts the rest, and the answer is written as it is encoded. An answer
 * is whole or not given: when an instance does not answer, or the instances' partitions do not make
 * the whole store (a rebalance), it is a 503 with {@code Retry-After}.
 */
public final class TimelineApi {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Seconds a client is asked to wait when the answer cannot be given whole now. */
  static final int RETRY_AFTER_SECONDS = 5;

  private final KafkaStreams streams;
  private final String self;

  /** Partitions of the stores (the joined topics'): a list must read each exactly once. */
  private final int partitions;

  /** The bearer token callers and the other instances present, or null (no authentication). */
  private final byte[] token;

  private final HttpClient http;

  /** http or https: how this instance reaches the others (they all serve the same way). */
  private final String scheme;

  /**
   * @param partitions partitions of the stores (of the joined topics)
   * @param token the bearer token /api requires (and sends to the other instances), or null
   * @param tls whether the instances serve HTTPS (then they are called so)
   * @param trust what the calls to the other instances trust, or null for the JVM's trust store
   */
  public TimelineApi(
      KafkaStreams streams,
      String self,
      int partitions,
      String token,
      boolean tls,
      SSLContext trust) {
    this.streams = streams;
    this.self = self;
    this.partitions = partitions;
    this.scheme = tls ? "https" : "http";
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
    if (trust != null) {
      client.sslContext(trust);
    }
    this.http = client.build();
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  private boolean authorized(HttpExchange exchange) {
    return token == null
        || BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token);
  }

  /** A request to another instance, with the token when there is one. */
  private HttpRequest.Builder toInstance(URI uri) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + new String(token, StandardCharsets.UTF_8));
    }
    return b;
  }

  /** The timelines held by this instance. */
  public ReadOnlyKeyValueStore<String, PodTimeline> localTimelines() {
    return streams.store(
        StoreQueryParameters.fromNameAndType(
            TimelineTopology.PUBLISHED_STORE,
            QueryableStoreTypes.<String, PodTimeline>keyValueStore()));
  }

  public void handle(HttpExchange exchange) throws IOException {
    if (!authorized(exchange)) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"schedlens\"");
      HttpEndpoint.respondJson(
          exchange,
          401,
          Map.of("error", "a valid 'Authorization: Bearer <token>' header is required"));
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      HttpEndpoint.respondJson(exchange, 405, Map.of("error", "use GET"));
      return;
    }
    String path = exchange.getRequestURI().getPath();
    Map<String, String> query = query(exchange.getRequestURI());
    try {
      if (path.equals("/api/pods") || path.equals("/api/pods/")) {
        list(exchange, query);
      } else if (path.startsWith("/api/pods/")) {
        one(exchange, path.substring("/api/pods/".length()), query.containsKey("local"));
      } else if (path.equals("/api/workloads") || path.equals("/api/workloads/")) {
        listWorkloads(exchange, query);
      } else if (path.startsWith("/api/workloads/")) {
        oneWorkload(exchange, path.substring("/api/workloads/".length()), query);
      } else {
        HttpEndpoint.respondJson(exchange, 404, Map.of("error", "no such endpoint"));
      }
    } catch (IllegalArgumentException e) {
      HttpEndpoint.respondJson(exchange, 400, Map.of("error", e.getMessage()));
    } catch (ApiUnavailable e) {
      unavailable(exchange, e.getMessage());
    } catch (InvalidStateStoreException e) {
      unavailable(exchange, "state is being restored or rebalanced (" + e.getMessage() + ")");
    }
  }

  /** 503 with Retry-After: the answer cannot be given whole now, and soon can. */
  private static void unavailable(HttpExchange exchange, String why) throws IOException {
    exchange.getResponseHeaders().set("Retry-After", String.valueOf(RETRY_AFTER_SECONDS));
    HttpEndpoint.respondJson(exchange, 503, Map.of("error", why + "; retry shortly"));
  }

  private void one(HttpExchange exchange, String uid, boolean localOnly) throws IOException {
    Optional<PodTimeline> t = localOnly ? Optional.ofNullable(localTimelines().get(uid)) : pod(uid);
    if (t.isEmpty()) {
      HttpEndpoint.respondJson(
          exchange,
          404,
          Map.of(
              "error",
              "no timeline for pod UID "
                  + uid
                  + " (unknown, or gone longer than api.final.retention)"));
    } else {
      HttpEndpoint.respond(exchange, 200, "application/json", AvroJson.toLine(t.get()) + "\n");
    }
  }

  /** The workload timelines held by this instance, keyed namespace/kind/name. */
  public ReadOnlyKeyValueStore<String, WorkloadTimeline> localWorkloads() {
    return streams.store(
        StoreQueryParameters.fromNameAndType(
            TimelineTopology.PUBLISHED_WORKLOADS_STORE,
            QueryableStoreTypes.<String, WorkloadTimeline>keyValueStore()));
  }

  /** {@code GET /api/workloads/{namespace}/{kind}/{name}}. */
  private void oneWorkload(HttpExchange exchange, String key, Map<String, String> query)
      throws IOException {
    String[] parts = key.split("/", -1);
    if (parts.length != 3 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
      HttpEndpoint.respondJson(
          exchange,
          400,
          Map.of(
              "error",
              "ask for /api/workloads/{namespace}/{kind}/{name}, e.g."
                  + " /api/workloads/ai-lab/Deployment/interactive-inference"));
      return;
    }
    Optional<WorkloadTimeline> t =
        query.containsKey("local") ? Optional.ofNullable(localWorkloads().get(key)) : workload(key);
    if (t.isEmpty()) {
      HttpEndpoint.respondJson(
          exchange,
          404,
          Map.of(
              "error",
              "no timeline for workload "
                  + key
                  + " (kind is Deployment, StatefulSet, Job, DaemonSet or Pod, spelt as"
                  + " Kubernetes does; none of its pods seen yet?)"));
    } else {
      HttpEndpoint.respond(exchange, 200, "application/json", AvroJson.toLine(t.get()) + "\n");
    }
  }

  /**
   * {@code GET /api/workloads?namespace=&kind=&arm=&interrupted=true&limit=&after=}: one page,
   * across instances.
   */
  private void listWorkloads(HttpExchange exchange, Map<String, String> query) throws IOException {
    int limit = ListPaging.parseLimit(query.get("limit"));
    if (query.containsKey("local")) {
      ListPaging.Part<WorkloadTimeline> part =
          localPart(
              TimelineTopology.PUBLISHED_WORKLOADS_STORE,
              (WorkloadTimeline w) -> workloadMatches(w, query),
              after(query.get("after")),
              limit,
              ListPaging::workload);
      respondPart(exchange, "workloads", part);
    } else {
      respondListing(exchange, "workloads", workloads(query, query.get("after"), limit));
    }
  }

  public static boolean workloadMatches(WorkloadTimeline t, Map<String, String> query) {
    return matches(query.get("namespace"), t.getNamespace())
        && matches(query.get("kind"), t.getKind())
        && matches(query.get("arm"), t.getArm())
        && (!"true".equals(query.get("interrupted")) || t.getDesired() >= 1 && t.getReady() == 0);
  }

  private static boolean matches(String wanted, String actual) {
    return wanted == null || wanted.isEmpty() || wanted.equals(actual);
  }

  /** {@code GET /api/pods?state=&...&limit=&after=}: one page, across instances. */
  private void list(HttpExchange exchange, Map<String, String> query) throws IOException {
    String state = query.getOrDefault("state", "all");
    Predicate<PodTimeline> filter = filter(state, query);
    if (filter == null) {
      HttpEndpoint.respondJson(
          exchange, 400, Map.of("error", "state must be pending, starving, preempted or all"));
      return;
    }
    int limit = ListPaging.parseLimit(query.get("limit"));
    if (query.containsKey("local")) {
      ListPaging.Part<PodTimeline> part =
          localPart(
              TimelineTopology.PUBLISHED_STORE,
              filter,
              after(query.get("after")),
              limit,
              ListPaging::pod);
      respondPart(exchange, "pods", part);
    } else {
      respondListing(exchange, "pods", pods(state, query, query.get("after"), limit));
    }
  }

  /** An instance's part, for the one that merges: its page, counts and partitions. */
  private static <T extends IndexedRecord> void respondPart(
      HttpExchange exchange, String field, ListPaging.Part<T> part) throws IOException {
    Map<String, Object> head = new LinkedHashMap<>();
    head.put("count", part.count());
    head.put("remaining", part.remaining());
    head.put("partitions", part.partitions());
    respondList(exchange, field, head, part.items());
  }

  /** The merged page, with {@code next} (and a {@code Link} header) when more follow. */
  private static <T extends IndexedRecord> void respondListing(
      HttpExchange exchange, String field, Listing<T> listing) throws IOException {
    Map<String, Object> head = new LinkedHashMap<>();
    head.put("count", listing.count());
    if (listing.next() != null) {
      head.put("next", listing.next());
      StringBuilder next = new StringBuilder(exchange.getRequestURI().getRawPath()).append('?');
      String raw = exchange.getRequestURI().getRawQuery();
      for (String pair : raw == null ? new String[0] : raw.split("&")) {
        if (!pair.isEmpty() && !pair.startsWith("after=")) {
          next.append(pair).append('&');
        }
      }
      next.append("after=").append(URLEncoder.encode(listing.next(), StandardCharsets.UTF_8));
      exchange.getResponseHeaders().set("Link", "<" + next + ">; rel=\"next\"");
    }
    respondList(exchange, field, head, listing.items());
  }

  /**
   * Writes a list as it encodes it (chunked), so that an answer never exists twice in memory: the
   * head's fields, then the items' JSON form under {@code field}.
   */
  private static <T extends IndexedRecord> void respondList(
      HttpExchange exchange, String field, Map<String, Object> head, List<T> items)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody();
        JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      g.writeStartObject();
      for (Map.Entry<String, Object> e : head.entrySet()) {
        g.writeObjectField(e.getKey(), e.getValue());
      }
      g.writeArrayFieldStart(field);
      for (T item : items) {
        g.writeRawValue(AvroJson.toLine(item));
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeRaw('\n');
    }
    exchange.close();
  }

  private static ListPaging.Position after(String cursor) {
    return cursor == null || cursor.isEmpty() ? null : ListPaging.parseCursor(cursor);
  }

  /**
   * The attribute filters of the list, by query parameter: a timeline must match every one given.
   */
  static final Map<String, Function<PodTimeline, String>> FILTERS =
      Map.of(
          "namespace", PodTimeline::getNamespace,
          "name", PodTimeline::getName,
          "priorityClass", PodTimeline::getPriorityClass,
          "arm", PodTimeline::getArm,
          "repeat", PodTimeline::getRepeat,
          "workloadKind", t -> t.getWorkload() == null ? null : t.getWorkload().getKind(),
          "workloadName", t -> t.getWorkload() == null ? null : t.getWorkload().getName());

  /** The query parameters of {@code GET /api/workloads}. */
  public static final Set<String> WORKLOAD_LIST_PARAMETERS =
      Set.of("namespace", "kind", "arm", "interrupted", "limit", "after", "local");

  /** The query parameters of {@code GET /api/pods}. */
  public static final Set<String> LIST_PARAMETERS =
      Set.of(
          "state",
          "namespace",
          "name",
          "priorityClass",
          "arm",
          "repeat",
          "workloadKind",
          "workloadName",
          "preemptedSince",
          "limit",
          "after",
          "local");

  public static Predicate<PodTimeline> filter(String state, Map<String, String> query) {
    Predicate<PodTimeline> p =
        switch (state) {
          case "pending" -> t -> !t.getFinal$() && "Pending".equals(t.getOutcome());
          case "starving" -> t -> !t.getFinal$() && t.getStarving();
          case "preempted" -> t -> t.getPreemptedAt() != null;
          case "all" -> t -> true;
          default -> null;
        };
    if (p == null) {
      return null;
    }
    String since = query.get("preemptedSince");
    if (since != null && !since.isEmpty()) {
      long from;
      try {
        from = Long.parseLong(since.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "preemptedSince must be epoch milliseconds, not '" + since + "'");
      }
      p = p.and(t -> t.getPreemptedAt() != null && t.getPreemptedAt() >= from);
    }
    for (var f : FILTERS.entrySet()) {
      String wanted = query.get(f.getKey());
      // Grafana sends "" or "All" style values when a variable is unset: an empty value filters
      // nothing.
      if (wanted != null && !wanted.isEmpty()) {
        var attribute = f.getValue();
        p = p.and(t -> wanted.equals(attribute.apply(t)));
      }
    }
    return p;
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

  /** The attribute filters of {@code GET /api/workloads}. */
  private static final List<String> WORKLOAD_FILTERS =
      List.of("namespace", "kind", "arm", "interrupted");

  // ------------------------------------------------------------------ typed, for the pages

  /** Another instance did not answer: the answer would be partial, so there is none. */
  public static final class InstanceUnavailable extends ApiUnavailable {
    private static final long serialVersionUID = 1L;

    InstanceUnavailable(String host, Exception cause) {
      super("instance " + host + " did not answer: " + cause.getMessage(), cause);
    }
  }

  /** The timeline of a pod UID, asked of the instance that holds it. */
  public Optional<PodTimeline> pod(String uid) throws IOException {
    String owner = otherOwner(TimelineTopology.PUBLISHED_STORE, uid);
    if (owner == null) {
      return Optional.ofNullable(localTimelines().get(uid));
    }
    String body =
        fetch(owner, "/api/pods/" + URLEncoder.encode(uid, StandardCharsets.UTF_8) + "?local=true");
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
    Predicate<PodTimeline> filter = filter(state, query);
    if (filter == null) {
      throw new IllegalArgumentException("state must be pending, starving, preempted or all");
    }
    List<ListPaging.Part<PodTimeline>> parts = new ArrayList<>();
    parts.add(
        localPart(TimelineTopology.PUBLISHED_STORE, filter, after(after), limit, ListPaging::pod));
    String path =
        "/api/pods?local=true&state="
            + URLEncoder.encode(state, StandardCharsets.UTF_8)
            + forwarded(FILTERS.keySet(), query)
            + forwarded(List.of("preemptedSince"), query)
            + paging(after, limit);
    for (String host : otherInstances()) {
      parts.add(remotePart(host, path, "pods", PodTimeline.class));
    }
    return ListPaging.merge(parts, partitions, limit, ListPaging::pod);
  }

  /** The timeline of a workload {@code namespace/kind/name}. */
  public Optional<WorkloadTimeline> workload(String key) throws IOException {
    String owner = otherOwner(TimelineTopology.PUBLISHED_WORKLOADS_STORE, key);
    if (owner == null) {
      return Optional.ofNullable(localWorkloads().get(key));
    }
    String body = fetch(owner, "/api/workloads/" + key + "?local=true");
    return Optional.ofNullable(body).map(b -> AvroJson.fromLine(b, WorkloadTimeline.class));
  }

  /** One page of the workload timelines of every instance that match, as {@link #pods}. */
  public Listing<WorkloadTimeline> workloads(Map<String, String> query, String after, int limit)
      throws IOException {
    List<ListPaging.Part<WorkloadTimeline>> parts = new ArrayList<>();
    parts.add(
        localPart(
            TimelineTopology.PUBLISHED_WORKLOADS_STORE,
            (WorkloadTimeline w) -> workloadMatches(w, query),
            after(after),
            limit,
            ListPaging::workload));
    String path =
        "/api/workloads?local=true" + forwarded(WORKLOAD_FILTERS, query) + paging(after, limit);
    for (String host : otherInstances()) {
      parts.add(remotePart(host, path, "workloads", WorkloadTimeline.class));
    }
    return ListPaging.merge(parts, partitions, limit, ListPaging::workload);
  }

  private static String paging(String after, int limit) {
    return "&limit="
        + limit
        + (after == null || after.isEmpty()
            ? ""
            : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8));
  }

  /**
   * This instance's part of a list: the store's partitions it holds as their active owner, read one
   * record at a time, keeping the first {@code limit} matches after the cursor.
   */
  private <T> ListPaging.Part<T> localPart(
      String store,
      Predicate<T> filter,
      ListPaging.Position after,
      int limit,
      Function<T, ListPaging.Position> position) {
    ListPaging.FirstAfter<T> first = new ListPaging.FirstAfter<>(after, limit, position);
    Set<Integer> served = new TreeSet<>();
    for (int p = 0; p < partitions; p++) {
      try {
        ReadOnlyKeyValueStore<String, T> s =
            streams.store(
                StoreQueryParameters.fromNameAndType(
                        store, QueryableStoreTypes.<String, T>keyValueStore())
                    .withPartition(p));
        try (KeyValueIterator<String, T> it = s.all()) {
          while (it.hasNext()) {
            T value = it.next().value;
            if (filter.test(value)) {
              first.offer(value);
            }
          }
        }
        served.add(p);
      } catch (InvalidStateStorePartitionException notHere) {
        // another instance's partition
      }
    }
    return first.part(served);
  }

  /** Another instance's part of a list. */
  private <T extends SpecificRecord> ListPaging.Part<T> remotePart(
      String host, String path, String field, Class<T> type) throws IOException {
    String body = fetch(host, path);
    if (body == null) {
      throw new InstanceUnavailable(host, new IOException("HTTP 404 for " + path));
    }
    JsonNode answer = JSON.readTree(body);
    List<T> items = new ArrayList<>();
    for (JsonNode node : answer.path(field)) {
      items.add(AvroJson.fromJson(node, type));
    }
    Set<Integer> served = new TreeSet<>();
    answer.path("partitions").forEach(n -> served.add(n.asInt()));
    return new ListPaging.Part<>(
        items, answer.path("count").asLong(), answer.path("remaining").asLong(), served);
  }

  private List<String> otherInstances() {
    List<String> hosts = new ArrayList<>();
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      String host = m.hostInfo().host() + ":" + m.hostInfo().port();
      if (!host.equals(self)) {
        hosts.add(host);
      }
    }
    return hosts;
  }

  /** GET from another instance: the body of a 200, null for a 404; else InstanceUnavailable. */
  private String fetch(String host, String pathAndQuery) throws IOException {
    try {
      HttpResponse<String> r =
          http.send(
              toInstance(URI.create(scheme + "://" + host + pathAndQuery)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 404) {
        return null;
      }
      if (r.statusCode() != 200) {
        throw new IOException("HTTP " + r.statusCode() + ": " + r.body().strip());
      }
      return r.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InstanceUnavailable(host, e);
    } catch (IOException e) {
      throw e instanceof InstanceUnavailable ? e : new InstanceUnavailable(host, e);
    }
  }

  /**
   * The instance holding the key in the store, when it is another one; null when this one.
   *
   * @throws ApiUnavailable when no instance holds it now (a rebalance is under way)
   */
  private String otherOwner(String store, String key) throws ApiUnavailable {
    KeyQueryMetadata md = streams.queryMetadataForKey(store, key, new StringSerializer());
    if (md == null || md == KeyQueryMetadata.NOT_AVAILABLE || md.activeHost() == null) {
      throw new ApiUnavailable("no instance holds " + key + " now (a rebalance is under way)");
    }
    String owner = md.activeHost().host() + ":" + md.activeHost().port();
    return owner.equals(self) ? null : owner;
  }

  public static Map<String, String> query(URI uri) {
    Map<String, String> q = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      q.put(k, v);
    }
    return q;
  }
}
