package io.schedlens.collector.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Writes the collector's progress marks: every interval, to every partition of each input topic, a
 * mark of its clock minus an allowance, through the send buffer, so that it goes behind every
 * record read before it. The streams app decides from these marks alone when a pod's inputs are
 * complete (which incarnation a sample belongs to, when one matches no pod, when a final timeline
 * may go out), which makes its results a function of the inputs, not of timing. A Kubernetes topic
 * is marked only once its informers have synced: before that, the pods listed at start are not all
 * sent.
 */
public final class ProgressMarker implements AutoCloseable {

  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final long allowanceMs;
  private final Map<String, BooleanSupplier> ready;
  private final ScheduledExecutorService ticker;
  private long last = Long.MIN_VALUE;

  /**
   * @param ready per marked topic, whether its source has sent what it read (absent: always)
   */
  public ProgressMarker(
      KafkaSink sink,
      Records records,
      Clock clock,
      Duration interval,
      Duration allowance,
      Map<String, BooleanSupplier> ready) {
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.allowanceMs = allowance.toMillis();
    this.ready = ready;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "progress-marks");
              t.setDaemon(true);
              return t;
            });
    ticker.scheduleAtFixedRate(
        this::mark, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Queues one mark per topic whose source is ready; marks never go back (a clock may). */
  void mark() {
    long now = clock.millis();
    long time = Math.max(last, now - allowanceMs);
    last = time;
    List<String> topics = records.markedTopics();
    for (String topic : topics) {
      BooleanSupplier r = ready.get(topic);
      if (r == null || r.getAsBoolean()) {
        sink.offer(records.mark(topic, time, now));
      }
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
