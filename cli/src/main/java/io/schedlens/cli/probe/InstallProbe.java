package io.schedlens.cli.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The checks of an installed schedlens, as a client in the cluster sees it through the Services:
 * the collector's and the streams app's {@code /readyz}, and the documented first call of the API,
 * {@code GET /api/pods?state=pending} with the API token. Each check is one request; what failed
 * says what to look at.
 */
final class InstallProbe {

  static final String PENDING_PODS = "/api/pods?state=pending";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One check's outcome: passed or not, and a line saying what was seen. */
  record Result(String check, boolean passed, String detail) {
    String line() {
      return (passed ? "ok   " : "FAIL ") + check + ": " + detail;
    }
  }

  private final HttpClient http;
  private final Duration timeout;
  private final String collectorUrl;
  private final String streamsUrl;
  private final String apiToken;

  InstallProbe(
      String collectorUrl, String streamsUrl, String apiToken, SSLContext tls, Duration timeout) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout);
    if (tls != null) {
      b.sslContext(tls);
    }
    this.http = b.build();
    this.timeout = timeout;
    this.collectorUrl = trimSlash(collectorUrl);
    this.streamsUrl = trimSlash(streamsUrl);
    this.apiToken = apiToken;
  }

  /** Every check once, in order. */
  List<Result> run() {
    return List.of(
        ready("collector", collectorUrl), ready("streams app", streamsUrl), pendingPods());
  }

  private Result ready(String app, String base) {
    String check = app + " " + base + "/readyz";
    try {
      HttpResponse<String> r = get(base + "/readyz", null);
      if (r.statusCode() == 200) {
        return new Result(check, true, "200 ready");
      }
      return new Result(
          check,
          false,
          r.statusCode() + " not ready: " + firstLine(r.body()) + " (its log says more)");
    } catch (IOException e) {
      return new Result(check, false, unreachable(base, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(check, false, "interrupted");
    }
  }

  private Result pendingPods() {
    String check = "GET " + streamsUrl + PENDING_PODS;
    try {
      HttpResponse<String> r = get(streamsUrl + PENDING_PODS, apiToken);
      return switch (r.statusCode()) {
        case 200 -> {
          JsonNode body = JSON.readTree(r.body());
          yield body.has("count")
              ? new Result(check, true, "200, " + body.path("count").asLong() + " pods pending")
              : new Result(check, false, "200 without a pod list: " + firstLine(r.body()));
        }
        case 401, 403 ->
            new Result(
                check,
                false,
                r.statusCode()
                    + ": the API refused the token; give the token of the Secret the streams app"
                    + " reads (the chart's streams.apiTokenSecret)");
        default -> new Result(check, false, r.statusCode() + ": " + firstLine(r.body()));
      };
    } catch (IOException e) {
      return new Result(check, false, unreachable(streamsUrl, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(check, false, "interrupted");
    }
  }

  private HttpResponse<String> get(String url, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET();
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** What a failed connection means, and where to look. */
  static String unreachable(String base, IOException e) {
    Throwable cause = e;
    while (cause.getCause() != null && !(cause instanceof SSLException)) {
      cause = cause.getCause();
    }
    if (cause instanceof SSLException) {
      return "TLS failed ("
          + cause.getMessage()
          + "): with TLS on, trust the release's CA (http.tls.ca, the TLS Secret's ca.crt)";
    }
    if (e instanceof HttpConnectTimeoutException || e instanceof HttpTimeoutException) {
      return "no answer in time: is a NetworkPolicy dropping this pod's connections to "
          + base
          + "?";
    }
    if (e instanceof ConnectException) {
      return "connection refused: is the Service "
          + host(base)
          + " there with a ready pod behind it (kubectl get endpoints)?";
    }
    return e.getClass().getSimpleName() + " " + e.getMessage() + ": cannot reach " + base;
  }

  private static String host(String base) {
    try {
      return URI.create(base).getHost();
    } catch (IllegalArgumentException e) {
      return base;
    }
  }

  private static String firstLine(String body) {
    String s = body == null ? "" : body.strip();
    int nl = s.indexOf('\n');
    s = nl < 0 ? s : s.substring(0, nl);
    return s.length() > 300 ? s.substring(0, 300) + "…" : s.isEmpty() ? "(no body)" : s;
  }

  private static String trimSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
