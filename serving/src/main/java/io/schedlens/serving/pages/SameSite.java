package io.schedlens.serving.pages;

import com.sun.net.httpserver.HttpExchange;
import java.net.URI;

/**
 * Whether a form post comes from another site: what the browser says of it ({@code Sec-Fetch-Site},
 * sent by every current browser), else whether its {@code Origin} is this host. A request with
 * neither (a script, curl) is not a browser's cross-site post. Without this another site's page
 * could post a guess to {@code /login} from a visitor's browser, or log them out.
 */
final class SameSite {

  private SameSite() {}

  static boolean crossSite(HttpExchange exchange) {
    String site = exchange.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (site != null) {
      return !(site.equals("same-origin") || site.equals("none"));
    }
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    if (origin == null) {
      return false;
    }
    String host = exchange.getRequestHeaders().getFirst("Host");
    try {
      String authority = URI.create(origin).getRawAuthority();
      return authority == null || host == null || !authority.equalsIgnoreCase(host.strip());
    } catch (IllegalArgumentException e) {
      return true;
    }
  }
}
