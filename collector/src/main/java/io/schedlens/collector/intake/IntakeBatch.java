package io.schedlens.collector.intake;

import io.schedlens.avro.RequestLog;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.records.BatchAck;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import java.util.ArrayList;
import java.util.List;

/**
 * What walking one request's body made: each accepted line serialized as it is parsed, its bytes
 * taken from the request's part of the intake's budget; the rejected ones gathered into a few dead
 * letters ({@link RejectedLines}); the items counted against {@code intake.max.items}.
 *
 * <p>The rejected lines' bytes are copies of the body's, at most as many (a line's head and a
 * separator, never more than the line and its newline), so the body's own part of the budget covers
 * them: the body's bytes are held until the batch is in the send buffer. Taking room for them again
 * while the body is held would have requests that filled the budget with bodies wait on each other.
 */
final class IntakeBatch implements Items {

  /** More items than a request may carry: it is refused whole (413). */
  static final class TooManyItems extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooManyItems(int max) {
      super(
          "the batch carries more than "
              + max
              + " items (lines, or spans, log records and the resource and scope entries that hold"
              + " them; intake.max.items): send it in smaller batches",
          null,
          false,
          false);
    }
  }

  private final Records records;
  private final IntakeBudget.Hold hold;
  private final int maxItems;
  private final BatchAck ack = BatchAck.unsealed();
  private final List<Outgoing> out = new ArrayList<>();
  private final RejectedLines rejected;
  private int items;
  private int accepted;
  private long oldest = Long.MAX_VALUE;

  IntakeBatch(Records records, IntakeBudget.Hold hold, int maxItems) {
    this.records = records;
    this.hold = hold;
    this.maxItems = maxItems;
    this.rejected = new RejectedLines(records.maxDeadLetterBytes());
  }

  @Override
  public void accepted(RequestLog log) {
    count();
    Outgoing record = records.requestLog(log, ack);
    hold.take(KafkaSink.bytesOf(record));
    out.add(record);
    accepted++;
    oldest = Math.min(oldest, log.getTime());
  }

  @Override
  public void rejected(int item, String reason, String detail, Body raw, int from, int to) {
    count();
    rejected.add(item, reason, detail, raw, from, to);
  }

  @Override
  public void passedOver() {
    count();
  }

  private void count() {
    if (++items > maxItems) {
      throw new TooManyItems(maxItems);
    }
  }

  /**
   * The records to offer: the accepted lines, then the rejected ones' dead letters, all under one
   * acknowledgement.
   */
  List<Outgoing> seal(String source, long now) {
    for (RejectedLines.Chunk c : rejected.chunks()) {
      out.add(records.deadLetter(source, c.reason(), c.where(), c.raw(), null, now, ack));
    }
    ack.seal(out.size());
    return out;
  }

  BatchAck ack() {
    return ack;
  }

  int accepted() {
    return accepted;
  }

  RejectedLines rejected() {
    return rejected;
  }

  /** The time of its oldest accepted line, or {@link Long#MAX_VALUE}. */
  long oldest() {
    return oldest;
  }

  /** Every item seen, accepted, rejected or passed over. */
  int items() {
    return items;
  }
}
