package io.schedlens.collector.dcgm;

import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.common.threads.WorkerThreads;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.dcgm.ExpositionFormatException;
import io.schedlens.projections.dcgm.ExpositionParser;
import io.schedlens.projections.dcgm.ExpositionSample;
import io.schedlens.projections.dcgm.GpuIntervals;
import io.schedlens.projections.dcgm.GpuSampleAssembler;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scrapes every dcgm-exporter target each interval (OkHttp, asynchronous), turns each answer into
 * GPU samples and queues them for Kafka. A target that fails waits twice as long before each retry
 * (up to a maximum); its up and duration gauges say how it is doing. An answer that is not a valid
 * exposition goes to the dead-letter topic. When the send buffer is nearly full the scrape is
 * skipped and counted, rather than queued behind records that cannot leave.
 */
public final class DcgmScraper implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DcgmScraper.class);

  private final Supplier<List<ScrapeTarget>> targets;
  private final OkHttpClient http;
  private final KafkaSink sink;
  private final Records records;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final Duration interval;
  private final Duration maxBackoff;
  private final long maxBytes;
  private final long forgetAfterNanos;
  private final ScheduledExecutorService ticker;
  private final Map<String, TargetState> states = new ConcurrentHashMap<>();

  private static final class TargetState {
    volatile boolean inFlight;
    volatile int failures;
    volatile long notBefore;
    volatile boolean everOk;

    /** When discovery stopped naming the target (System.nanoTime), or 0 while it names it. */
    long goneSince;

    /** One scrape of a target at a time (inFlight), so its samples are stamped in order. */
    final GpuIntervals intervals = new GpuIntervals();
  }

  private final InputBounds bounds;

  public DcgmScraper(
      Supplier<List<ScrapeTarget>> targets,
      KafkaSink sink,
      Records records,
      CollectorMetrics metrics,
      Clock clock,
      Duration interval,
      Duration timeout,
      Duration maxBackoff,
      long maxBytes) {
    this(
        targets,
        sink,
        records,
        metrics,
        clock,
        interval,
        timeout,
        maxBackoff,
        maxBytes,
        InputBounds.defaults(),
        DEFAULT_FORGET_AFTER);
  }

  /** How long a target discovery no longer names keeps its state and metrics by default. */
  public static final Duration DEFAULT_FORGET_AFTER = Duration.ofMinutes(1);

  /**
   * A scraper whose samples must be timed within {@code bounds}, and which forgets a target that
   * discovery has not named for {@code forgetAfter} (a node scaled down): its state and its series
   * ({@code schedlens_collector_scrape_up} and the rest), so that a node that left does not keep
   * {@code SchedlensDcgmScrapeFailing} firing until the collector restarts.
   */
  public DcgmScraper(
      Supplier<List<ScrapeTarget>> targets,
      KafkaSink sink,
      Records records,
      CollectorMetrics metrics,
      Clock clock,
      Duration interval,
      Duration timeout,
      Duration maxBackoff,
      long maxBytes,
      InputBounds bounds,
      Duration forgetAfter) {
    this.bounds = bounds;
    this.forgetAfterNanos = forgetAfter.toNanos();
    this.targets = targets;
    this.sink = sink;
    this.records = records;
    this.metrics = metrics;
    this.clock = clock;
    this.interval = interval;
    this.maxBackoff = maxBackoff;
    this.maxBytes = maxBytes;
    this.http =
        new OkHttpClient.Builder()
            .callTimeout(timeout)
            .connectTimeout(timeout)
            .readTimeout(timeout)
            .retryOnConnectionFailure(false)
            .build();
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(WorkerThreads.factory("dcgm-scrape-ticker"));
  }

  public void start() {
    ticker.scheduleAtFixedRate(
        WorkerThreads.periodic("the DCGM scrape", this::tick),
        0,
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void tick() {
    long now = System.nanoTime();
    List<ScrapeTarget> current = targets.get();
    forgetGone(current, now);
    for (ScrapeTarget target : current) {
      TargetState state = states.computeIfAbsent(target.url(), u -> new TargetState());
      state.goneSince = 0;
      if (state.inFlight || now < state.notBefore) {
        continue;
      }
      if (sink.saturated() || !sink.kafkaReachable()) {
        metrics.scrapes.labelValues(target.url(), "skipped-backpressure").inc();
        continue;
      }
      scrape(target, state);
    }
  }

  /** Forgets the targets discovery has not named for the forget-after time. */
  private void forgetGone(List<ScrapeTarget> current, long now) {
    Set<String> named = new HashSet<>();
    current.forEach(t -> named.add(t.url()));
    for (Map.Entry<String, TargetState> e : states.entrySet()) {
      TargetState state = e.getValue();
      if (named.contains(e.getKey())) {
        continue;
      }
      if (state.goneSince == 0) {
        state.goneSince = now;
      } else if (now - state.goneSince >= forgetAfterNanos && !state.inFlight) {
        states.remove(e.getKey());
        metrics.forgetScrapeTarget(e.getKey());
        log.info("{}: no longer discovered; forgotten", e.getKey());
      }
    }
  }

  private void scrape(ScrapeTarget target, TargetState state) {
    state.inFlight = true;
    long started = System.nanoTime();
    Request request =
        new Request.Builder()
            .url(target.url())
            .header(
                "Accept",
                "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1")
            .build();
    http.newCall(request)
        .enqueue(
            new Callback() {
              @Override
              public void onFailure(Call call, IOException e) {
                finish(
                    target,
                    state,
                    started,
                    e instanceof InterruptedIOException ? "timeout" : "io-error",
                    e.toString());
              }

              @Override
              public void onResponse(Call call, Response response) {
                try (response) {
                  handle(target, state, started, response);
                } catch (IOException e) {
                  finish(target, state, started, "io-error", e.toString());
                } catch (RuntimeException e) {
                  log.error("scrape of {} failed unexpectedly", target.url(), e);
                  finish(target, state, started, "io-error", e.toString());
                }
              }
            });
  }

  private void handle(ScrapeTarget target, TargetState state, long started, Response response)
      throws IOException {
    long scrapedAt = clock.millis();
    if (response.code() != 200) {
      finish(target, state, started, "http-error", "HTTP " + response.code());
      return;
    }
    ResponseBody body = response.body();
    BufferedSource source = body.source();
    if (source.request(maxBytes + 1)) {
      finish(target, state, started, "too-large", "body over " + maxBytes + " bytes");
      return;
    }
    String text = source.readString(StandardCharsets.UTF_8);
    List<ExpositionSample> samples;
    try {
      samples =
          ExpositionParser.parse(text, ExpositionParser.formatOf(response.header("Content-Type")));
    } catch (ExpositionFormatException e) {
      sink.offer(
          records.deadLetter(
              "dcgm:" + target.url(),
              "unparseable-scrape",
              e.getMessage(),
              text.getBytes(StandardCharsets.UTF_8),
              scrapedAt,
              scrapedAt,
              null));
      metrics.deadLetters.labelValues("dcgm", "unparseable-scrape").inc();
      finish(target, state, started, "parse-error", e.getMessage());
      return;
    }
    GpuSampleAssembler.Result result =
        GpuSampleAssembler.assemble(samples, scrapedAt, target.url(), target.node());
    result.notUsed().forEach((reason, n) -> metrics.dcgmValuesNotUsed.labelValues(reason).inc(n));
    List<Outgoing> out = new ArrayList<>(result.samples().size());
    for (var k : result.samples()) {
      String problem = bounds.timeProblem(k.sample().getTime(), scrapedAt);
      if (problem == null) {
        state.intervals.stamp(k.sample());
        out.add(records.gpuSample(k.key(), k.sample()));
      } else {
        // An exposition timestamp Kafka would refuse: this sample alone goes to the dead letters.
        out.add(
            records.deadLetter(
                "dcgm:" + target.url(),
                InputBounds.TIME_OUT_OF_RANGE,
                "GPU sample of " + k.key() + ": " + problem,
                null,
                null,
                scrapedAt,
                null));
        metrics.deadLetters.labelValues("dcgm", InputBounds.TIME_OUT_OF_RANGE).inc();
      }
    }
    if (sink.offerAll(Records.GPU, out)) {
      metrics.gpuSamples.inc(out.size());
      finish(target, state, started, "ok", null);
    } else {
      finish(target, state, started, "skipped-backpressure", "send buffer full");
    }
  }

  private void finish(
      ScrapeTarget target, TargetState state, long started, String result, String detail) {
    double seconds = (System.nanoTime() - started) / 1e9;
    metrics.scrapes.labelValues(target.url(), result).inc();
    metrics.scrapeDuration.labelValues(target.url()).set(seconds);
    boolean ok = result.equals("ok") || result.equals("skipped-backpressure");
    metrics.scrapeUp.labelValues(target.url()).set(ok ? 1 : 0);
    if (ok) {
      if (state.failures > 0) {
        log.info("dcgm target {} is back after {} failed scrape(s)", target.url(), state.failures);
      }
      state.failures = 0;
      state.notBefore = 0;
      state.everOk = true;
    } else {
      int failures = ++state.failures;
      long backoff =
          Math.min(maxBackoff.toNanos(), interval.toNanos() * (1L << Math.min(failures - 1, 20)));
      state.notBefore = System.nanoTime() + backoff;
      if (failures == 1 || Integer.bitCount(failures) == 1) {
        log.warn(
            "dcgm target {}: scrape failed ({}: {}); failure {}, next try in {} ms",
            target.url(),
            result,
            detail,
            failures,
            backoff / 1_000_000);
      }
    }
    state.inFlight = false;
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
