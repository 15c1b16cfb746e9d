package io.schedlens.serving.pages;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Logging in to the pages without the token in an address: a form that POSTs it to {@code /login}
 * (a token in a query string lands in every proxy's and ingress's access log and in the browser's
 * history), answered with a session cookie ({@link Sessions}) that is {@code Secure} (sent over
 * HTTPS only; browsers take it from {@code http://localhost} too), {@code HttpOnly} (no script
 * reads it) and {@code SameSite=Strict} (no other site's page sends it). Pure: the forms, the form
 * body's fields, where to go back to.
 */
final class Login {

  static final String PATH = "/login";

  /** The longest form body read: a token and a path back. */
  static final int MAX_BODY_BYTES = 8 * 1024;

  private Login() {}

  /** The login form; {@code next} the page to go back to, {@code failed} after a wrong token. */
  static String form(String next, boolean failed) {
    return Html.page(
        "Log in",
        "<h1>A token is needed</h1>"
            + (failed ? "<p class=\"bad\" id=\"login-failed\">That token is not valid.</p>" : "")
            + "<p>These pages are behind the API's bearer token. Paste it here (the session that"
            + " follows is kept in a cookie for this site only and ends at /logout), or let an"
            + " authenticating proxy send"
            + " <code>Authorization: Bearer &lt;token&gt;</code>.</p>"
            + "<form method=\"post\" action=\""
            + PATH
            + "\"><label for=\"token\">Token</label> <input type=\"password\" id=\"token\""
            + " name=\"token\" autocomplete=\"current-password\" required>"
            + "<input type=\"hidden\" name=\"next\" value=\""
            + Html.esc(safeNext(next))
            + "\"> <button type=\"submit\">Log in</button></form>");
  }

  /** The page of {@code /logout}: a button that ends this browser's session. */
  static String logoutForm() {
    return Html.page(
        "Log out",
        "<h1>Log out</h1><p>Ends this browser's session; the pages ask for the token again.</p>"
            + "<form method=\"post\" action=\"/logout\"><button type=\"submit\">Log out"
            + "</button></form>");
  }

  /**
   * The fields of an {@code application/x-www-form-urlencoded} body.
   *
   * @throws IllegalArgumentException a malformed escape
   */
  static Map<String, String> fields(String body) {
    Map<String, String> m = new HashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        m.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return m;
  }

  /**
   * Where to go after logging in: a path of this site ({@code /pods/...}), never another site
   * ({@code //evil.example}, {@code https://...}, {@code /\evil}); else the index.
   */
  static String safeNext(String next) {
    if (next == null
        || !next.startsWith("/")
        || next.startsWith("//")
        || next.startsWith("/\\")
        || next.startsWith(PATH)
        || next.chars().anyMatch(c -> c < 0x20)) {
      return "/";
    }
    return next;
  }
}
