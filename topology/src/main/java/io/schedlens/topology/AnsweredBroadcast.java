package io.schedlens.topology;

import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The watermark an answering stage (workloads, nodes) sends back to the pod stage: every question
 * up to what every pod-stage task was heard at is answered. Sent when it moved, and again every
 * {@value #REBROADCAST_MS} ms of wall time so that a pod-stage task that restarted hears it; the
 * {@link Broadcast} partitioner takes it to every partition.
 */
final class AnsweredBroadcast {

  static final long REBROADCAST_MS = 2_000;

  private final String stage;
  private final String sink;
  private long sentAnswered = Long.MIN_VALUE;
  private long sentAtWall;

  /**
   * @param stage the stage's name in its watermarks ({@link Watermarks#NODES}, {@link
   *     Watermarks#WORKLOADS})
   * @param sink the sink to the pod stage
   */
  AnsweredBroadcast(String stage, String sink) {
    this.stage = stage;
    this.sink = sink;
  }

  /** Sends {@code answered} through {@code context} unless it was sent lately. */
  <V> void send(ProcessorContext<String, V> context, long answered, long wallNow) {
    if (answered == sentAnswered && wallNow - sentAtWall < REBROADCAST_MS) {
      return;
    }
    sentAnswered = answered;
    sentAtWall = wallNow;
    Watermark w = Watermarks.of(stage, context.taskId().partition(), Long.MAX_VALUE, answered);
    @SuppressWarnings("unchecked") // a StageMessage goes out on the sink to the pod stage
    V message = (V) new StageMessage(null, w);
    context.forward(
        new Record<>("watermark", message, Math.max(0, context.currentStreamTimeMs())), sink);
  }
}
