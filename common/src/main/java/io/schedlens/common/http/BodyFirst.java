package io.schedlens.common.http;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.EagerContentHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Reads a request's body (up to a size) before the next handler gets a thread, as Jetty's {@code
 * EagerContentHandler.RetainedContentLoaderFactory} does, for any content type; past the size the
 * handler gets the request with what has come and reads the rest itself.
 *
 * <p>The bodies read so, for all requests of a port, are bounded too ({@code budgetBytes}), counted
 * as their bytes arrive, not as they are announced: a client that announces 16 MiB and sends five
 * bytes holds five bytes. A request whose next bytes find no room goes to its handler with what it
 * has, and is read on there, on one of the port's bounded threads, so that many connections sending
 * part of a body cannot hold unbounded memory.
 *
 * <p>Written here rather than taken from Jetty because Jetty's loader reads on after a transient
 * failure: the idle timeout of a client that stopped sending in the middle of its body is such a
 * failure, so the connection and the body so far were held for ever. This one answers 408 and
 * closes the connection on any failure.
 */
final class BodyFirst implements EagerContentHandler.ContentLoaderFactory {

  private final long maxBytes;
  private final Semaphore budget;

  BodyFirst(int maxBytes, int budgetBytes) {
    this.maxBytes = maxBytes;
    this.budget = new Semaphore(Math.max(budgetBytes, maxBytes));
  }

  @Override
  public String getApplicableMimeType() {
    return null;
  }

  @Override
  public EagerContentHandler.ContentLoader newContentLoader(
      String contentType,
      String mimeType,
      Handler handler,
      Request request,
      Response response,
      Callback callback) {
    return new Loader(handler, request, response, callback, maxBytes, new Taken(budget));
  }

  /** The bytes of the budget one request has taken; given back once, whole. */
  private static final class Taken {
    private final Semaphore budget;
    private final AtomicInteger bytes = new AtomicInteger();
    private final AtomicBoolean released = new AtomicBoolean();

    Taken(Semaphore budget) {
      this.budget = budget;
    }

    /** Takes room for {@code n} more bytes, or nothing when there is none. */
    boolean take(int n) {
      if (n == 0 || budget.tryAcquire(n)) {
        bytes.addAndGet(n);
        return true;
      }
      return false;
    }

    void release() {
      if (released.compareAndSet(false, true)) {
        budget.release(bytes.get());
      }
    }
  }

  private static final class Loader extends EagerContentHandler.ContentLoader
      implements Invocable.Task {
    private final Deque<Content.Chunk> chunks = new ArrayDeque<>();
    private final long maxBytes;
    private final Taken taken;
    private long bytes;

    Loader(
        Handler handler,
        Request request,
        Response response,
        Callback callback,
        long maxBytes,
        Taken taken) {
      super(handler, request, response, callback);
      this.maxBytes = maxBytes;
      this.taken = taken;
    }

    @Override
    protected void load() {
      read(false);
    }

    /** Called by the request's demand when more content (or a failure) has come. */
    @Override
    public void run() {
      read(true);
    }

    @Override
    public InvocationType getInvocationType() {
      return InvocationType.NON_BLOCKING;
    }

    private void read(boolean fromDemand) {
      while (true) {
        Content.Chunk chunk = getRequest().read();
        if (chunk == null) {
          getRequest().demand(this);
          return;
        }
        if (Content.Chunk.isFailure(chunk)) {
          // An idle timeout (transient) or a broken connection: the body will not come.
          chunks.forEach(Content.Chunk::release);
          chunks.clear();
          taken.release();
          getResponse().getHeaders().put(HttpHeader.CONNECTION, "close");
          Response.writeError(
              getRequest(),
              getResponse(),
              getCallback(),
              HttpStatus.REQUEST_TIMEOUT_408,
              "the request body stopped coming: " + chunk.getFailure());
          return;
        }
        chunks.add(chunk);
        bytes += chunk.remaining();
        // No room for these bytes: the handler reads on, on a thread of its own.
        boolean room = taken.take(chunk.remaining());
        if (chunk.isLast() || bytes >= maxBytes || !room) {
          if (fromDemand) {
            getRequest().getContext().execute(this::dispatch);
          } else {
            dispatch();
          }
          return;
        }
      }
    }

    private void dispatch() {
      Replayed replayed = new Replayed(getRequest(), getCallback(), chunks, taken::release);
      handle(replayed, getResponse(), replayed);
    }
  }

  /** The request with the chunks read so far given back first; releases them when done. */
  private static final class Replayed extends Request.Wrapper implements Callback {
    private final Callback callback;
    private final Deque<Content.Chunk> chunks;
    private final Runnable releaseBudget;

    Replayed(
        Request request, Callback callback, Deque<Content.Chunk> chunks, Runnable releaseBudget) {
      super(request);
      this.callback = callback;
      this.chunks = chunks;
      this.releaseBudget = releaseBudget;
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk chunk = chunks.pollFirst();
      return chunk != null ? chunk : super.read();
    }

    @Override
    public void demand(Runnable demandCallback) {
      if (!chunks.isEmpty()) {
        demandCallback.run();
      } else {
        super.demand(demandCallback);
      }
    }

    @Override
    public InvocationType getInvocationType() {
      return callback.getInvocationType();
    }

    private void release() {
      chunks.forEach(Content.Chunk::release);
      chunks.clear();
      releaseBudget.run();
    }

    @Override
    public void succeeded() {
      release();
      callback.succeeded();
    }

    @Override
    public void failed(Throwable failure) {
      release();
      callback.failed(failure);
    }
  }
}
