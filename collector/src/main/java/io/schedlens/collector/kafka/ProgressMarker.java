package io.schedlens.collector.kafka;

import io.schedlens.common.threads.WorkerThreads;
import io.schedlens.projections.records.Records;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Writes the collector's progress marks: every interval, to every partition of each input topic, a
 * mark of its clock minus an allowance, through the send buffer, so that it goes behind every
 * record read before it. The streams app decides from these marks alone when a pod's inputs are
 * complete (which incarnation a sample belongs to, when one matches no pod, when a final timeline
 * may go out), which makes its results a function of the inputs, not of timing.
 *
 * <p>A mark is a promise, so each topic's source may limit it ({@link MarkLimit}): a Kubernetes
 * topic is marked only once its informers have synced and while no records of its source are
 * waiting to be re-sent (a relist after a full buffer); the request topic's marks stay behind the
 * lines the intake refused or held up until the shipper has caught up ({@code
 * intake.RequestMarkHold}). Marks never go back, and a mark that says nothing new is not sent.
 */
public final class ProgressMarker implements AutoCloseable {

  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final long allowanceMs;
  private final Map<String, MarkLimit> limits;
  private final ScheduledExecutorService ticker;
  private final Map<String, Long> last = new HashMap<>();

  /**
   * @param limits per marked topic, how far its source lets the marks go (absent: the clock)
   */
  public ProgressMarker(
      KafkaSink sink,
      Records records,
      Clock clock,
      Duration interval,
      Duration allowance,
      Map<String, MarkLimit> limits) {
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.allowanceMs = allowance.toMillis();
    this.limits = limits;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(WorkerThreads.factory("progress-marks"));
    ticker.scheduleAtFixedRate(
        WorkerThreads.periodic("the progress marks", this::mark),
        interval.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Queues one mark per topic whose source lets it say something new: the clock less the allowance,
   * or less where the source limits it; never back (a clock may go back).
   */
  synchronized void mark() {
    long now = clock.millis();
    for (String topic : records.markedTopics()) {
      MarkLimit limit = limits.get(topic);
      long latest = limit == null ? MarkLimit.UNLIMITED : limit.latest();
      if (latest == MarkLimit.NONE) {
        continue;
      }
      long time = Math.min(now - allowanceMs, latest);
      Long before = last.get(topic);
      if (before != null && time <= before) {
        continue;
      }
      if (sink.offer(records.mark(topic, time, now))) {
        last.put(topic, time);
      }
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
