package io.schedlens.common.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many connections sending one request as fast as they are answered, from one thread: each sends
 * its next request when bytes of the last answer come back, and reads everything.
 */
final class Flood implements AutoCloseable {

  private final ByteBuffer request;

  private final Selector selector;
  private final Thread loop;
  private final AtomicLong answers = new AtomicLong();
  private volatile boolean running = true;

  private Flood(Selector selector, String request) {
    this.selector = selector;
    this.request = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
    this.loop = new Thread(this::run, "flood");
    this.loop.setDaemon(true);
  }

  /**
   * {@code connections} connections to {@code port}, each sending {@code request} again and again.
   */
  static Flood start(int port, int connections, String request) throws IOException {
    Flood flood = new Flood(Selector.open(), request);
    for (int i = 0; i < connections; i++) {
      SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
      ch.configureBlocking(false);
      ch.write(flood.request.duplicate());
      ch.register(flood.selector, SelectionKey.OP_READ);
    }
    flood.loop.start();
    return flood;
  }

  /** Reads that returned bytes: roughly the answers taken. */
  long answers() {
    return answers.get();
  }

  private void run() {
    ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
    while (running) {
      try {
        selector.select(100);
        for (SelectionKey key : selector.selectedKeys()) {
          SocketChannel ch = (SocketChannel) key.channel();
          buf.clear();
          int n;
          try {
            n = ch.read(buf);
          } catch (IOException e) {
            n = -1;
          }
          if (n < 0) {
            key.cancel();
            ch.close();
          } else if (n > 0) {
            answers.incrementAndGet();
            ch.write(request.duplicate());
          }
        }
        selector.selectedKeys().clear();
      } catch (IOException e) {
        return;
      }
    }
  }

  @Override
  public void close() throws IOException {
    running = false;
    try {
      loop.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (SelectionKey key : selector.keys()) {
      key.channel().close();
    }
    selector.close();
  }
}
