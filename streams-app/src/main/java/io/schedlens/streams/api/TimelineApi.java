package io.schedlens.streams.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.schemas.AvroJson;
import io.schedlens.streams.topology.TimelineTopology;
import java.io.IOException;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The timeline API, answered across all instances of the app with Kafka Streams' interactive
 * queries: {@code GET /api/pods/{uid}} asks the instance that holds the pod (by the store's key
 * metadata) and {@code GET /api/pods?state=pending|starving|preempted|all&namespace=...&limit=...}
 * asks every instance and merges. Live pods, and gone ones for {@code api.final.retention}.
 * Workloads the same way: {@code GET /api/workloads/{namespace}/{kind}/{name}} and {@code GET
 * /api/workloads?namespace=&kind=&arm=&interrupted=true}.
 */
public final class TimelineApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DEFAULT_LIMIT = 500;

  private final KafkaStreams streams;
  private final String self;

  /** The bearer token callers and the other instances present, or null (no authentication). */
  private final byte[] token;

  private final HttpClient http;

  /** http or https: how this instance reaches the others (they all serve the same way). */
  private final String scheme;

  public TimelineApi(KafkaStreams streams, String self) {
    this(streams, self, null);
  }

  public TimelineApi(KafkaStreams streams, String self, String token) {
    this(streams, self, token, false, null);
  }

  /**
   * @param token the bearer token /api requires (and sends to the other instances), or null
   * @param tls whether the instances serve HTTPS (then they are called so)
   * @param trust what the calls to the other instances trust, or null for the JVM's trust store
   */
  public TimelineApi(
      KafkaStreams streams, String self, String token, boolean tls, SSLContext trust) {
    this.streams = streams;
    this.self = self;
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
    } catch (InvalidStateStoreException e) {
      HttpEndpoint.respondJson(
          exchange, 503, Map.of("error", "state is being restored or rebalanced; retry shortly"));
    }
  }

  private void one(HttpExchange exchange, String uid, boolean localOnly) throws IOException {
    String owner = otherOwner(TimelineTopology.PUBLISHED_STORE, uid);
    if (!localOnly && owner != null) {
      proxy(exchange, scheme + "://" + owner + "/api/pods/" + uid + "?local=true");
      return;
    }
    PodTimeline t = localTimelines().get(uid);
    if (t == null) {
      HttpEndpoint.respondJson(
          exchange,
          404,
          Map.of(
              "error",
              "no timeline for pod UID "
                  + uid
                  + " (unknown, or gone longer than api.final.retention)"));
    } else {
      HttpEndpoint.respond(exchange, 200, "application/json", AvroJson.toLine(t) + "\n");
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
    String owner = otherOwner(TimelineTopology.PUBLISHED_WORKLOADS_STORE, key);
    if (!query.containsKey("local") && owner != null) {
      proxy(exchange, scheme + "://" + owner + "/api/workloads/" + key + "?local=true");
      return;
    }
    WorkloadTimeline t = localWorkloads().get(key);
    if (t == null) {
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
      HttpEndpoint.respond(exchange, 200, "application/json", AvroJson.toLine(t) + "\n");
    }
  }

  /** {@code GET /api/workloads?namespace=&kind=&arm=&interrupted=true}: across instances. */
  private void listWorkloads(HttpExchange exchange, Map<String, String> query) throws IOException {
    List<ObjectNode> found = new ArrayList<>();
    List<WorkloadTimeline> local = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadTimeline> it = localWorkloads().all()) {
      it.forEachRemaining(kv -> local.add(kv.value));
    }
    for (WorkloadTimeline t : local) {
      if (workloadMatches(t, query)) {
        found.add(AvroJson.toJson(t));
      }
    }
    if (!query.containsKey("local")) {
      StringBuilder forwarded = new StringBuilder();
      for (String k : WORKLOAD_LIST_PARAMETERS) {
        if (k.equals("limit") || k.equals("local")) {
          continue;
        }
        String v = query.get(k);
        if (v != null && !v.isEmpty()) {
          forwarded
              .append('&')
              .append(k)
              .append('=')
              .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
        }
      }
      if (!fromOtherInstances(
          exchange, "/api/workloads?local=true" + forwarded, "workloads", found)) {
        return;
      }
    }
    found.sort(
        Comparator.comparing(
            (ObjectNode n) ->
                n.path("namespace").asText()
                    + "/"
                    + n.path("kind").asText()
                    + "/"
                    + n.path("name").asText()));
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    answer.put("count", found.size());
    ArrayNode workloads = answer.putArray("workloads");
    found.stream().limit(parseLimit(query.get("limit"))).forEach(workloads::add);
    HttpEndpoint.respond(exchange, 200, "application/json", JSON.writeValueAsString(answer) + "\n");
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

  private void list(HttpExchange exchange, Map<String, String> query) throws IOException {
    String state = query.getOrDefault("state", "all");
    Predicate<PodTimeline> filter = filter(state, query);
    if (filter == null) {
      HttpEndpoint.respondJson(
          exchange, 400, Map.of("error", "state must be pending, starving, preempted or all"));
      return;
    }
    int limit = parseLimit(query.get("limit"));
    List<ObjectNode> found = new ArrayList<>();
    for (var kv : iterable(localTimelines())) {
      if (filter.test(kv)) {
        found.add(AvroJson.toJson(kv));
      }
    }
    if (!query.containsKey("local")) {
      if (!fromOtherInstances(
          exchange,
          "/api/pods?local=true&state=" + state + forwardedFilters(query),
          "pods",
          found)) {
        return;
      }
    }
    found.sort(Comparator.comparingLong(n -> n.path("createdAt").asLong(Long.MAX_VALUE)));
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    answer.put("count", found.size());
    ArrayNode pods = answer.putArray("pods");
    found.stream().limit(limit).forEach(pods::add);
    HttpEndpoint.respond(exchange, 200, "application/json", JSON.writeValueAsString(answer) + "\n");
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
      Set.of("namespace", "kind", "arm", "interrupted", "limit", "local");

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
          "limit",
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

  private static String forwardedFilters(Map<String, String> query) {
    StringBuilder b = new StringBuilder();
    for (String key : FILTERS.keySet()) {
      String v = query.get(key);
      if (v != null && !v.isEmpty()) {
        b.append('&').append(key).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ typed, for the pages

  /** Another instance did not answer: the answer would be partial, so there is none. */
  public static final class InstanceUnavailable extends IOException {
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

  /** The timelines of every instance that match {@code state} and the attribute filters. */
  public List<PodTimeline> pods(String state, Map<String, String> query) throws IOException {
    Predicate<PodTimeline> filter = filter(state, query);
    if (filter == null) {
      throw new IllegalArgumentException("state must be pending, starving, preempted or all");
    }
    List<PodTimeline> found = new ArrayList<>();
    for (PodTimeline t : iterable(localTimelines())) {
      if (filter.test(t)) {
        found.add(t);
      }
    }
    String path =
        "/api/pods?local=true&limit="
            + Integer.MAX_VALUE
            + "&state="
            + state
            + forwardedFilters(query);
    for (String host : otherInstances()) {
      String body = fetch(host, path);
      if (body != null) {
        for (var node : JSON.readTree(body).path("pods")) {
          found.add(AvroJson.fromJson(node, PodTimeline.class));
        }
      }
    }
    return found;
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

  /** The workload timelines of every instance that match the filters. */
  public List<WorkloadTimeline> workloads(Map<String, String> query) throws IOException {
    List<WorkloadTimeline> found = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadTimeline> it = localWorkloads().all()) {
      it.forEachRemaining(
          kv -> {
            if (workloadMatches(kv.value, query)) {
              found.add(kv.value);
            }
          });
    }
    StringBuilder path = new StringBuilder("/api/workloads?local=true&limit=" + Integer.MAX_VALUE);
    for (String k : List.of("namespace", "kind", "arm", "interrupted")) {
      String v = query.get(k);
      if (v != null && !v.isEmpty()) {
        path.append('&').append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    }
    for (String host : otherInstances()) {
      String body = fetch(host, path.toString());
      if (body != null) {
        for (var node : JSON.readTree(body).path("workloads")) {
          found.add(AvroJson.fromJson(node, WorkloadTimeline.class));
        }
      }
    }
    return found;
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

  /** The instance holding the key in the store, when it is another one; null when this one. */
  private String otherOwner(String store, String key) {
    KeyQueryMetadata md = streams.queryMetadataForKey(store, key, new StringSerializer());
    if (md == null || md == KeyQueryMetadata.NOT_AVAILABLE || md.activeHost() == null) {
      return null;
    }
    String owner = md.activeHost().host() + ":" + md.activeHost().port();
    return owner.equals(self) ? null : owner;
  }

  /**
   * Asks every other instance for {@code pathAndQuery} and adds the elements of the answer's {@code
   * field} array; answers 502 and returns false when one does not answer.
   */
  private boolean fromOtherInstances(
      HttpExchange exchange, String pathAndQuery, String field, List<ObjectNode> found)
      throws IOException {
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      String host = m.hostInfo().host() + ":" + m.hostInfo().port();
      if (host.equals(self)) {
        continue;
      }
      try {
        HttpResponse<String> r =
            http.send(
                toInstance(URI.create(scheme + "://" + host + pathAndQuery)).build(),
                HttpResponse.BodyHandlers.ofString());
        for (var node : JSON.readTree(r.body()).path(field)) {
          found.add((ObjectNode) node);
        }
      } catch (Exception e) {
        HttpEndpoint.respondJson(
            exchange, 502, Map.of("error", "instance " + host + " did not answer: " + e));
        return false;
      }
    }
    return true;
  }

  private void proxy(HttpExchange exchange, String url) throws IOException {
    try {
      HttpResponse<String> r =
          http.send(toInstance(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
      HttpEndpoint.respond(exchange, r.statusCode(), "application/json", r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      HttpEndpoint.respondJson(exchange, 503, Map.of("error", "interrupted"));
    } catch (IOException e) {
      HttpEndpoint.respondJson(
          exchange,
          502,
          Map.of("error", "the instance holding this pod did not answer: " + e.getMessage()));
    }
  }

  private static Iterable<PodTimeline> iterable(ReadOnlyKeyValueStore<String, PodTimeline> store) {
    List<PodTimeline> all = new ArrayList<>();
    try (KeyValueIterator<String, PodTimeline> it = store.all()) {
      it.forEachRemaining(kv -> all.add(kv.value));
    }
    return all;
  }

  private static int parseLimit(String s) {
    try {
      return s == null ? DEFAULT_LIMIT : Math.max(1, Integer.parseInt(s));
    } catch (NumberFormatException e) {
      return DEFAULT_LIMIT;
    }
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
