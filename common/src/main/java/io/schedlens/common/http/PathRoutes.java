package io.schedlens.common.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JDK server's context rule: a request goes to the route with the longest path that is a prefix
 * of its own; 404 when none is.
 */
final class PathRoutes implements HttpHandler {
  private final TreeMap<String, HttpHandler> byPath = new TreeMap<>();

  void add(String path, HttpHandler handler) {
    byPath.put(path, handler);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path;
    try {
      path = exchange.getRequestURI().getRawPath();
    } catch (IllegalArgumentException e) {
      // A malformed escape in the address: no URI to route by.
      HttpEndpoint.BAD_REQUESTS.log(
          exchange.getRequestMethod() + ": an address that is not a URI: " + e);
      HttpEndpoint.answerQuietly(exchange, 400, "bad request: a malformed address");
      exchange.close();
      return;
    }
    for (Map.Entry<String, HttpHandler> e : byPath.descendingMap().entrySet()) {
      if (path.startsWith(e.getKey())) {
        e.getValue().handle(exchange);
        return;
      }
    }
    HttpEndpoint.respond(exchange, 404, "text/plain", "no such path: " + path + "\n");
  }
}
