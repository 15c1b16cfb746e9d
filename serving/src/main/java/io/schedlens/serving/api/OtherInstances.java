package io.schedlens.serving.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.schemas.AvroJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.net.ssl.SSLContext;
import org.apache.avro.specific.SpecificRecord;

/**
 * The calls to the other instances of the app, for the keys and list parts they hold: their own
 * {@code /api} with {@code local=true}, over the scheme they all serve, with the token.
 */
final class OtherInstances {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;

  /** http or https: how this instance reaches the others (they all serve the same way). */
  private final String scheme;

  /** The bearer token to present, or null. */
  private final String token;

  OtherInstances(String token, boolean tls, SSLContext trust) {
    this.scheme = tls ? "https" : "http";
    this.token = token;
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
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
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(scheme + "://" + host + pathAndQuery))
            .timeout(Duration.ofSeconds(10));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
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

  /** Another instance's part of a list, as its {@code local=true} answer gives it. */
  <T extends SpecificRecord> ListPaging.Part<T> part(
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
}
