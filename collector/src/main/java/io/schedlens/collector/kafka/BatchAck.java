package io.schedlens.collector.kafka;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Completes when Kafka has acknowledged every record of a batch, or fails with the first error. */
public final class BatchAck {

  private final AtomicInteger remaining;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  public BatchAck(int records) {
    this.remaining = new AtomicInteger(records);
    if (records == 0) {
      done.complete(null);
    }
  }

  void acknowledged() {
    if (remaining.decrementAndGet() == 0) {
      done.complete(null);
    }
  }

  void failed(Exception e) {
    done.completeExceptionally(e);
  }

  /** The future of the whole batch. */
  public CompletableFuture<Void> future() {
    return done;
  }
}
