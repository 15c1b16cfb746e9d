package io.schedlens.collector.intake;

import java.time.Duration;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes the intake holds for the requests it is handling, all together ({@code
 * intake.max.inflight.bytes}): each request's body as its bytes arrive (after gzip decoding), and
 * what parsing it makes (the records and the rejected lines' bytes) until Kafka's send buffer takes
 * them. A request takes its bytes as it goes ({@link Hold}); one that finds no room is answered 503
 * and sends nothing on, so whatever the shippers send, the intake holds at most this.
 *
 * <p>Requests that all hold part of their bodies and all want more would wait on each other, so
 * only the oldest request being handled waits for room (up to {@link #WAIT}: the others give theirs
 * back within a parse or a refusal); a younger one that finds none is refused at once and gives
 * back what it holds, so that the older ones can finish.
 */
final class IntakeBudget {

  /** How long a request waits for room for its next bytes before it is answered 503. */
  static final Duration WAIT = Duration.ofSeconds(1);

  private final Semaphore room;
  private final int total;
  private final AtomicLong sequence = new AtomicLong();

  /** The requests being handled, by the order they came in. */
  private final ConcurrentSkipListSet<Long> handled = new ConcurrentSkipListSet<>();

  /** The request refused for room that has not yet given its room back, or 0. */
  private final AtomicLong giving = new AtomicLong();

  IntakeBudget(int totalBytes) {
    this.total = totalBytes;
    this.room = new Semaphore(totalBytes);
  }

  /** The whole budget, in bytes. */
  int total() {
    return total;
  }

  /** A new request's part, empty. */
  Hold hold() {
    return new Hold(sequence.incrementAndGet());
  }

  /** No room for a request's next bytes. */
  static final class Exhausted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether the request needs more than the whole budget: it can never be taken. */
    final boolean never;

    Exhausted(boolean never, String message) {
      super(message, null, false, false);
      this.never = never;
    }
  }

  /** The bytes one request holds; closed once, when the request has been answered. */
  final class Hold implements AutoCloseable {
    private final long order;
    private long held;
    private boolean closed;

    private Hold(long order) {
      this.order = order;
      handled.add(order);
    }

    /** Whether no request being handled came in before this one. */
    private boolean oldest() {
      Long first = handled.isEmpty() ? null : handled.first();
      return first == null || first == order;
    }

    /**
     * Takes room for {@code bytes} more.
     *
     * @throws Exhausted when there is none now, or never will be (the request alone needs more than
     *     the whole budget)
     */
    void take(long bytes) {
      if (bytes <= 0) {
        return;
      }
      if (held + bytes > total) {
        throw new Exhausted(
            true,
            "the batch needs more than the intake's "
                + total
                + " bytes (intake.max.inflight.bytes) for its body and records");
      }
      boolean taken = room.tryAcquire((int) bytes);
      if (!taken && !oldest() && giving.compareAndSet(0, order)) {
        // This one gives way, unless another's refusal gave room back since it looked.
        taken = room.tryAcquire((int) bytes);
        if (taken) {
          giving.compareAndSet(order, 0);
        }
      } else if (!taken) {
        // The oldest waits; so does a younger one while another's refusal gives its room back.
        try {
          taken = room.tryAcquire((int) bytes, WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (!taken) {
          giving.compareAndSet(0, order);
        }
      }
      if (!taken) {
        throw new Exhausted(
            false,
            "the intake holds "
                + total
                + " bytes of request bodies and records already (intake.max.inflight.bytes)");
      }
      held += bytes;
    }

    /** Gives back {@code bytes} of what it holds (a body parsed, records taken by the buffer). */
    void give(long bytes) {
      long n = Math.min(bytes, held);
      if (n > 0) {
        held -= n;
        room.release((int) n);
      }
    }

    /** What it holds, in bytes. */
    long held() {
      return held;
    }

    @Override
    public void close() {
      give(held);
      if (!closed) {
        closed = true;
        handled.remove(order);
        giving.compareAndSet(order, 0);
      }
    }
  }
}
