package io.schedlens.common.http;

import com.sun.net.httpserver.HttpHandler;
import java.util.Locale;
import java.util.Map;

/**
 * A handler for a server on loopback that answers only requests naming a loopback host ({@code
 * 127.0.0.1}, {@code localhost}, {@code [::1]}, any port). Binding to loopback keeps other machines
 * out, not other sites: a page elsewhere can point a name it controls at 127.0.0.1 and have the
 * browser read the answers as its own (DNS rebinding); the browser then sends that name as the
 * {@code Host}, which is refused here (421).
 */
public final class LoopbackHost {

  private LoopbackHost() {}

  public static HttpHandler only(HttpHandler handler) {
    return exchange -> {
      if (isLoopback(exchange.getRequestHeaders().getFirst("Host"))) {
        handler.handle(exchange);
      } else {
        HttpEndpoint.respondJson(
            exchange,
            421,
            Map.of("error", "served on loopback only: ask for 127.0.0.1, localhost or [::1]"));
      }
    };
  }

  static boolean isLoopback(String host) {
    if (host == null) {
      return false;
    }
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end > 0 && h.substring(1, end).equals("::1") && portOnly(h.substring(end + 1));
    }
    int colon = h.indexOf(':');
    String name = colon < 0 ? h : h.substring(0, colon);
    return (name.equals("127.0.0.1") || name.equals("localhost"))
        && portOnly(colon < 0 ? "" : h.substring(colon));
  }

  /** Nothing, or {@code :} and digits. */
  private static boolean portOnly(String rest) {
    return rest.isEmpty() || rest.matches(":[0-9]{1,5}");
  }
}
