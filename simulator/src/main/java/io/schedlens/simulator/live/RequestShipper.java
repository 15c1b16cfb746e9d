package io.schedlens.simulator.live;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.simulator.cluster.RequestSink;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships the inference servers' request logs to the collector's intake as a log shipper would
 * (Fluent Bit's {@code http} output, {@code json_lines}): batches every {@code flushEvery}, retried
 * while the intake answers 503 or cannot be reached, so that none is lost.
 */
public final class RequestShipper implements RequestSink, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RequestShipper.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType JSON_LINES = MediaType.get("application/x-ndjson");

  private final String url;
  private final String token;
  private final OkHttpClient http =
      new OkHttpClient.Builder().callTimeout(Duration.ofSeconds(30)).build();
  private final Thread flusher;
  private final long flushEveryMs;
  private final AtomicLong shipped = new AtomicLong();
  private List<String> pending = new ArrayList<>();
  private volatile boolean closing;

  /**
   * @param intakeUrl e.g. {@code http://127.0.0.1:9470/v1/request-logs}
   * @param token bearer token, or null
   */
  public RequestShipper(String intakeUrl, String token, Duration flushEvery) {
    this.url = intakeUrl;
    this.token = token;
    this.flushEveryMs = flushEvery.toMillis();
    this.flusher = new Thread(this::loop, "sim-request-shipper");
    this.flusher.setDaemon(true);
    this.flusher.start();
  }

  /** Lines the intake has accepted. */
  public long shipped() {
    return shipped.get();
  }

  @Override
  public void request(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      int status,
      double latencyMs,
      double ttftMs,
      String requestId) {
    String o = line(time, namespace, pod, service, route, status, latencyMs, ttftMs, requestId);
    synchronized (this) {
      pending.add(o);
    }
  }

  private List<String> take() {
    synchronized (this) {
      List<String> batch = pending;
      pending = new ArrayList<>();
      return batch;
    }
  }

  private void loop() {
    while (!closing) {
      try {
        Thread.sleep(flushEveryMs);
        flush();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Sends what is pending; retries until the intake has taken it. */
  public void flush() throws InterruptedException {
    List<String> batch = take();
    if (batch.isEmpty()) {
      return;
    }
    String body = String.join("\n", batch) + "\n";
    long backoff = 100;
    while (true) {
      Request.Builder r = new Request.Builder().url(url).post(RequestBody.create(body, JSON_LINES));
      if (token != null && !token.isEmpty()) {
        r.header("Authorization", "Bearer " + token);
      }
      try (Response response = http.newCall(r.build()).execute()) {
        if (response.code() == 202) {
          shipped.addAndGet(batch.size());
          return;
        }
        if (response.code() != 503) {
          log.warn(
              "the intake refused {} request logs: HTTP {} {}",
              batch.size(),
              response.code(),
              response.body() == null ? "" : response.body().string());
          return;
        }
      } catch (IOException e) {
        log.debug("intake not reachable ({}); retrying", e.toString());
      }
      Thread.sleep(backoff);
      backoff = Math.min(2000, backoff * 2);
    }
  }

  @Override
  public void close() throws InterruptedException {
    // Not interrupted: a batch being retried must not be dropped.
    closing = true;
    flusher.join(60_000);
    flush();
  }

  /** One request-log line with the collector intake's field names. */
  static String line(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      int status,
      double latencyMs,
      double ttftMs,
      String requestId) {
    ObjectNode o = JSON.createObjectNode();
    o.put("time", Instant.ofEpochMilli(time).toString());
    o.put("namespace", namespace);
    o.put("pod", pod);
    o.put("service", service);
    o.put("route", route);
    o.put("status", status);
    o.put("latency_ms", latencyMs);
    o.put("ttft_ms", ttftMs);
    o.put("request_id", requestId);
    return o.toString();
  }
}
