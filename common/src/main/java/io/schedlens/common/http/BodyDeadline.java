package io.schedlens.common.http;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;

/**
 * A request's body must have come whole within a deadline of the request's start. The idle timeout
 * closes a connection that sends nothing; a client that sends a few bytes every few seconds is
 * never idle, and without a deadline it holds its request (and what was read of it) for as long as
 * it likes. Past the deadline the body reads as failed ({@link TimeoutException}): the early read
 * answers 408, a handler reading it gets an {@code IOException}, and the connection is closed.
 *
 * <p>Written here rather than taken from Jetty: its {@code MinimumDataRateHandler} measures the
 * bytes read by all requests of the handler together (its statistics), not each request's, so one
 * fast client hides any number of slow ones.
 */
final class BodyDeadline extends Handler.Wrapper {

  private final long deadlineNanos;
  private final Duration deadline;

  BodyDeadline(Handler next, Duration deadline) {
    super(next);
    this.deadline = deadline;
    this.deadlineNanos = deadline.toNanos();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    return super.handle(new Timed(request, NanoTime.now()), response, callback);
  }

  /** The request, its body failing once the deadline has passed before its last byte came. */
  private final class Timed extends Request.Wrapper {
    private final long start;
    private volatile boolean whole;

    Timed(Request request, long start) {
      super(request);
      this.start = start;
    }

    private boolean late() {
      return !whole && NanoTime.since(start) > deadlineNanos;
    }

    @Override
    public Content.Chunk read() {
      if (late()) {
        return Content.Chunk.from(
            new TimeoutException(
                "the request body did not come whole within "
                    + deadline.toSeconds()
                    + " s (http.body.deadline)"),
            true);
      }
      Content.Chunk chunk = super.read();
      if (chunk != null && chunk.isLast() && !Content.Chunk.isFailure(chunk)) {
        whole = true;
      }
      return chunk;
    }

    @Override
    public void demand(Runnable demandCallback) {
      if (late()) {
        // The next read says why; no need to wait for the client's next bytes.
        getContext().execute(demandCallback);
      } else {
        super.demand(demandCallback);
      }
    }
  }
}
