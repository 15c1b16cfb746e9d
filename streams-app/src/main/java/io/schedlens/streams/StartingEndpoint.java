package io.schedlens.streams;

import com.sun.net.httpserver.HttpHandler;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.HttpEndpoint.Readiness;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the streams app's endpoint answers before Kafka Streams runs: not ready, with what it waits
 * for, and 503 on the API and pages; then, once {@link #serve} is called, the app's own readiness
 * and handlers. So the probes answer from the first second, Kafka or not.
 */
final class StartingEndpoint {

  private volatile String waiting;
  private volatile Supplier<Readiness> readiness;
  private volatile Map<String, HttpHandler> handlers = Map.of();

  StartingEndpoint(String waiting) {
    this.waiting = waiting;
  }

  /** Says what the start waits for now. */
  void waiting(String what) {
    this.waiting = what;
  }

  /** From now on: the app's readiness and handlers, by route path. */
  void serve(Supplier<Readiness> appReadiness, Map<String, HttpHandler> appHandlers) {
    this.handlers = Map.copyOf(appHandlers);
    this.readiness = appReadiness;
  }

  Readiness readiness() {
    Supplier<Readiness> r = readiness;
    return r != null ? r.get() : Readiness.notReady("not ready: " + waiting);
  }

  /** A route whose handler is the app's once it serves, a 503 saying what it waits for before. */
  HttpEndpoint.Route route(String path) {
    return new HttpEndpoint.Route(
        path,
        exchange -> {
          HttpHandler h = handlers.get(path);
          if (h != null) {
            h.handle(exchange);
          } else {
            exchange.getResponseHeaders().set("Retry-After", "5");
            HttpEndpoint.respondJson(exchange, 503, Map.of("error", "not ready: " + waiting));
          }
        });
  }
}
