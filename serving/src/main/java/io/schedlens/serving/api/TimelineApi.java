package io.schedlens.serving.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.PeerCalls;
import io.schedlens.schemas.AvroJson;
import io.schedlens.schemas.PublishedStores;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The timeline API's HTTP side: authentication, routing and the answers. {@code GET
 * /api/pods/{uid}} and {@code GET /api/pods?state=pending|starving|preempted|all&namespace=...};
 * {@code GET /api/workloads/{namespace}/{kind}/{name}} and {@code GET
 * /api/workloads?namespace=&kind=&arm=&interrupted=true}. Live pods, and gone ones for {@code
 * api.final.retention}. What is asked is answered by {@link TimelineQueries} across the instances;
 * {@code local=true} (one instance asking another, with the instances' own token, {@link
 * PeerCalls}) by this instance's {@link LocalStores}; a client may not ask so (403).
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

  private final TimelineQueries queries;
  private final LocalStores local;

  /** The bearer token clients present, or null (no authentication). */
  private final byte[] token;

  /** How the other instances' calls are known. */
  private final PeerCalls peers;

  /**
   * @param token the bearer token /api requires of clients, or null
   * @param peers how the other instances' calls are known (their own token)
   */
  public TimelineApi(TimelineQueries queries, String token, PeerCalls peers) {
    this.queries = queries;
    this.local = queries.local();
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    this.peers = peers;
  }

  private boolean authorized(HttpExchange exchange, boolean peer) {
    return token == null
        || peer
        || BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token);
  }

  public void handle(HttpExchange exchange) throws IOException {
    boolean peer = peers.isPeer(exchange);
    if (!authorized(exchange, peer)) {
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
    try {
      Map<String, String> query = TimelineFilters.query(exchange.getRequestURI());
      if (query.containsKey("local") && !peer) {
        HttpEndpoint.respondJson(
            exchange,
            403,
            Map.of(
                "error",
                "local=true is for the app's own instances, which have a token of theirs"));
        return;
      }
      if (path.equals("/api/pods") || path.equals("/api/pods/")) {
        pods(exchange, query);
      } else if (path.startsWith("/api/pods/")) {
        pod(exchange, path.substring("/api/pods/".length()), query.containsKey("local"));
      } else if (path.equals("/api/workloads") || path.equals("/api/workloads/")) {
        workloads(exchange, query);
      } else if (path.startsWith("/api/workloads/")) {
        workload(exchange, path.substring("/api/workloads/".length()), query);
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

  /** {@code GET /api/pods/{uid}}. */
  private void pod(HttpExchange exchange, String uid, boolean localOnly) throws IOException {
    Optional<PodTimeline> t =
        localOnly ? Optional.ofNullable(local.timelines().get(uid)) : queries.pod(uid);
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

  /**
   * {@code GET /api/workloads/{namespace}/{kind}/{name}}: the newest workload of that name; {@code
   * .../{name}/{controllerUid}}: that one.
   */
  private void workload(HttpExchange exchange, String key, Map<String, String> query)
      throws IOException {
    String[] parts = key.split("/", -1);
    if (parts.length < 3 || parts.length > 4 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
      HttpEndpoint.respondJson(
          exchange,
          400,
          Map.of(
              "error",
              "ask for /api/workloads/{namespace}/{kind}/{name}[/{controllerUid}], e.g."
                  + " /api/workloads/ai-lab/Deployment/interactive-inference"));
      return;
    }
    Optional<WorkloadTimeline> t =
        query.containsKey("local")
            ? WorkloadsOfName.find(local.workloads(), key)
            : queries.workload(key);
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
  private void workloads(HttpExchange exchange, Map<String, String> query) throws IOException {
    int limit = ListPaging.parseLimit(query.get("limit"));
    if (query.containsKey("local")) {
      ListPaging.Part<WorkloadTimeline> part =
          local.part(
              PublishedStores.WORKLOADS,
              (WorkloadTimeline w) -> TimelineFilters.workloadMatches(w, query),
              ListPaging.after(query.get("after")),
              limit,
              ListPaging::workload);
      respondPart(exchange, "workloads", part);
    } else {
      respondListing(exchange, "workloads", queries.workloads(query, query.get("after"), limit));
    }
  }

  /** {@code GET /api/pods?state=&...&limit=&after=}: one page, across instances. */
  private void pods(HttpExchange exchange, Map<String, String> query) throws IOException {
    String state = query.getOrDefault("state", "all");
    Predicate<PodTimeline> filter = TimelineFilters.pods(state, query);
    if (filter == null) {
      HttpEndpoint.respondJson(
          exchange, 400, Map.of("error", "state must be pending, starving, preempted or all"));
      return;
    }
    int limit = ListPaging.parseLimit(query.get("limit"));
    if (query.containsKey("local")) {
      ListPaging.Part<PodTimeline> part =
          local.part(
              PublishedStores.TIMELINES,
              filter,
              ListPaging.after(query.get("after")),
              limit,
              ListPaging::pod);
      respondPart(exchange, "pods", part);
    } else {
      respondListing(exchange, "pods", queries.pods(state, query, query.get("after"), limit));
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
}
