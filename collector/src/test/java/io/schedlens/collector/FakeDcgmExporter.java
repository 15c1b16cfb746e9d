package io.schedlens.collector;

import com.sun.net.httpserver.HttpServer;
import io.schedlens.testsupport.Fixtures;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A dcgm-exporter stand-in on loopback: {@code /metrics} serves a real recorded scrape; {@code
 * /slow} answers after 3 s; {@code /error} answers 500; {@code /garbage} answers HTML.
 */
final class FakeDcgmExporter implements AutoCloseable {

  static final String FIXTURE = "dcgm/aicr-h100-eks-8gpu-exposition-2026-02-19.prom";

  private final HttpServer server;

  FakeDcgmExporter() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(4));
    byte[] scrape = Fixtures.text(FIXTURE).getBytes(StandardCharsets.UTF_8);
    server.createContext("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4", scrape));
    server.createContext(
        "/slow",
        ex -> {
          try {
            Thread.sleep(3000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          send(ex, 200, "text/plain", scrape);
        });
    server.createContext(
        "/error", ex -> send(ex, 500, "text/plain", "boom".getBytes(StandardCharsets.UTF_8)));
    server.createContext(
        "/garbage",
        ex ->
            send(
                ex,
                200,
                "text/html",
                "<html><body>502 Bad Gateway</body></html>".getBytes(StandardCharsets.UTF_8)));
    server.start();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void send(
      com.sun.net.httpserver.HttpExchange ex, int code, String type, byte[] body)
      throws IOException {
    try {
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(code, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    } catch (IOException e) {
      // the scraper gave up (timeout)
    } finally {
      ex.close();
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.stop(0);
    }
  }

  private boolean closed;
}
