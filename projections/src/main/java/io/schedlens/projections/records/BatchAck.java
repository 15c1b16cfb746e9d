package io.schedlens.projections.records;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Completes when Kafka has answered for every record of a batch: acknowledged it, or refused it for
 * good. A record Kafka refuses does not fail its neighbours; the batch tells how many were refused
 * and why the first one was.
 */
public final class BatchAck {

  private final AtomicInteger remaining;
  private final AtomicInteger refused = new AtomicInteger();
  private final AtomicReference<Exception> firstError = new AtomicReference<>();
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  public BatchAck(int records) {
    this.remaining = new AtomicInteger(records);
    if (records == 0) {
      done.complete(null);
    }
  }

  private BatchAck() {
    this.remaining = new AtomicInteger();
  }

  /**
   * A batch whose size is told later ({@link #seal}), so that its records can be made as they are
   * read: none of them may be offered before the seal.
   */
  public static BatchAck unsealed() {
    return new BatchAck();
  }

  /** Tells how many records the batch holds; before any of them is offered. */
  public void seal(int records) {
    if (remaining.addAndGet(records) == 0) {
      done.complete(null);
    }
  }

  public void acknowledged() {
    if (remaining.decrementAndGet() == 0) {
      done.complete(null);
    }
  }

  public void failed(Exception e) {
    refused.incrementAndGet();
    firstError.compareAndSet(null, e);
    acknowledged();
  }

  /** Completes once Kafka has answered for every record. */
  public CompletableFuture<Void> future() {
    return done;
  }

  /** Records Kafka refused for good. */
  public int refused() {
    return refused.get();
  }

  /** Why the first refused record was refused, or null. */
  public Exception firstError() {
    return firstError.get();
  }
}
