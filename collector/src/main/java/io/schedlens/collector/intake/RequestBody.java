package io.schedlens.collector.intake;

import com.sun.net.httpserver.HttpExchange;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * Reads a request's body into memory under the intake's bounds: the body limit ({@code
 * intake.max.body.bytes}) on the bytes sent and on the bytes they inflate to, and the intake's
 * budget, taken as the bytes arrive (a shipper that announces 16 MiB and sends five bytes holds
 * five bytes). How long a body may take is the port's {@code http.body.deadline}: past it the read
 * fails.
 */
final class RequestBody {

  private RequestBody() {}

  /** A body over the limit: the rest is not read. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  /** Whether a body is gzip-encoded, by its {@code Content-Encoding}. */
  static boolean gzip(HttpExchange exchange) {
    String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
    return encoding != null && encoding.equalsIgnoreCase("gzip");
  }

  /**
   * The body, whole, as the chunks it was read in. The bytes are taken from {@code hold} as they
   * are read; the hold keeps them (the caller gives them back once the body is parsed).
   *
   * @throws TooLarge the body (sent or inflated) is over {@code maxBody}
   * @throws IntakeBudget.Exhausted no room for the next bytes
   * @throws IOException the body stopped coming, or could not be inflated
   */
  static Body read(HttpExchange exchange, int maxBody, IntakeBudget.Hold hold) throws IOException {
    Limited sent = new Limited(exchange.getRequestBody(), maxBody, "sent");
    InputStream in = gzip(exchange) ? new GZIPInputStream(sent, Body.CHUNK) : sent;
    Body.Builder body = new Body.Builder();
    while (true) {
      byte[] chunk = in.readNBytes(Body.CHUNK);
      if (chunk.length == 0) {
        break;
      }
      if ((long) body.length() + chunk.length > maxBody) {
        throw new TooLarge("body is over the limit of " + maxBody + " bytes");
      }
      try {
        hold.take(chunk.length);
      } catch (IntakeBudget.Exhausted e) {
        // What it read is no longer needed: room for the others while it drains.
        hold.close();
        drain(sent);
        throw e;
      }
      body.add(chunk);
      if (chunk.length < Body.CHUNK) {
        break;
      }
    }
    return body.build();
  }

  /**
   * Reads the rest of a body the intake will not take, keeping none of it, so that the answer
   * reaches a client still sending: a connection closed on unread bytes is reset, and the client
   * sees a broken pipe instead of the 503 that tells it to send again. Bounded by the body limit
   * and the port's body deadline.
   */
  private static void drain(InputStream sent) {
    byte[] scratch = new byte[8192];
    try {
      while (sent.read(scratch) >= 0) {
        // discarded
      }
    } catch (IOException overTheLimitOrStopped) {
      // the connection closes after the answer
    }
  }

  /** The bytes sent, held to the limit before they are inflated. */
  private static final class Limited extends FilterInputStream {
    private final long max;
    private final String what;
    private long read;

    Limited(InputStream in, long max, String what) {
      super(in);
      this.max = max;
      this.what = what;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws TooLarge {
      read += n;
      if (read > max) {
        throw new TooLarge("body (" + what + ") is over the limit of " + max + " bytes");
      }
    }
  }
}
