package io.schedlens.serving.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.common.http.PeerCalls;
import io.schedlens.schemas.AvroJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.apache.avro.specific.SpecificRecord;

/**
 * The calls to the other instances of the app, for the keys and list parts they hold: their own
 * {@code /api} with {@code local=true}, over the scheme they all serve, with the instances' own
 * token ({@link PeerCalls}).
 *
 * <p>The parts of a list are asked of every instance at once, on the HTTP client's own threads,
 * each with {@link #TIMEOUT}: a list waits for the slowest instance, not for their sum, and an
 * instance that does not answer in time makes a 503 within the timeout. The other instances serve
 * these calls ({@code local=true}) from threads of their own (see {@code HttpEndpoint.Limits}).
 */
final class OtherInstances {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a call to another instance may take. */
  static final Duration TIMEOUT = Duration.ofSeconds(3);

  private final HttpClient http;

  /** http or https: how this instance reaches the others (they all serve the same way). */
  private final String scheme;

  /** The {@code Authorization} header to present, or null. */
  private final String authorization;

  OtherInstances(PeerCalls peers, boolean tls, SSLContext trust) {
    this.scheme = tls ? "https" : "http";
    this.authorization = peers.authorization();
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
    if (trust != null) {
      client.sslContext(trust);
    }
    this.http = client.build();
  }

  /** Another instance did not answer: the answer would be partial, so there is none. */
  static final class InstanceUnavailable extends ApiUnavailable {
    private static final long serialVersionUID = 1L;

    InstanceUnavailable(String host, Exception cause) {
      super("instance " + host + " did not answer: " + cause.getMessage(), cause);
    }
  }

  /** GET from another instance: the body of a 200, null for a 404; else InstanceUnavailable. */
  String fetch(String host, String pathAndQuery) throws IOException {
    return await(host, call(host, pathAndQuery));
  }

  private CompletableFuture<HttpResponse<String>> call(String host, String pathAndQuery) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(scheme + "://" + host + pathAndQuery)).timeout(TIMEOUT);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The body of a call's 200, null for a 404; else InstanceUnavailable. */
  private static String await(String host, CompletableFuture<HttpResponse<String>> call)
      throws IOException {
    HttpResponse<String> r;
    try {
      r = call.get(TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InstanceUnavailable(host, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new InstanceUnavailable(
          host, cause instanceof Exception x ? x : new IOException(String.valueOf(cause)));
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new InstanceUnavailable(host, e);
    }
    if (r.statusCode() == 404) {
      return null;
    }
    if (r.statusCode() != 200) {
      throw new InstanceUnavailable(
          host, new IOException("HTTP " + r.statusCode() + ": " + r.body().strip()));
    }
    return r.body();
  }

  /**
   * The parts of a list that the given instances hold, asked of all of them at once, in the order
   * of {@code hosts}.
   */
  <T extends SpecificRecord> List<ListPaging.Part<T>> parts(
      Collection<String> hosts, String path, String field, Class<T> type) throws IOException {
    Map<String, CompletableFuture<HttpResponse<String>>> calls = new LinkedHashMap<>();
    for (String host : hosts) {
      calls.put(host, call(host, path));
    }
    List<ListPaging.Part<T>> parts = new ArrayList<>();
    try {
      for (Map.Entry<String, CompletableFuture<HttpResponse<String>>> c : calls.entrySet()) {
        parts.add(part(c.getKey(), path, await(c.getKey(), c.getValue()), field, type));
      }
    } finally {
      calls.values().forEach(f -> f.cancel(true));
    }
    return parts;
  }

  /** Another instance's part of a list, from its {@code local=true} answer. */
  private static <T extends SpecificRecord> ListPaging.Part<T> part(
      String host, String path, String body, String field, Class<T> type) throws IOException {
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
}
