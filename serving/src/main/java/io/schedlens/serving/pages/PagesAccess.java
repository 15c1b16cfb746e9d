package io.schedlens.serving.pages;

import java.time.Clock;
import java.time.Duration;

/**
 * Who may see the pages and how a browser logs in to them.
 *
 * @param token the bearer token the pages require (a header, or the login form), or null: open
 * @param sessionKey what signs the login sessions ({@code api.session.key}); null: derived from the
 *     token
 * @param sessionTtl how long a login lasts
 * @param clientAddressHeader the header a proxy in front writes the client's address in (its last
 *     value is the one the nearest proxy added), or null: the connection's own address
 * @param clock the wall clock: when a session expires, how long a client waits after failed logins
 */
public record PagesAccess(
    String token, byte[] sessionKey, Duration sessionTtl, String clientAddressHeader, Clock clock) {

  public static final Duration DEFAULT_SESSION_TTL = Duration.ofHours(12);

  public PagesAccess {
    if (sessionKey == null && token != null) {
      sessionKey = Sessions.keyFromToken(token);
    }
  }

  /** Pages anyone who reaches them may see (a post-mortem's on loopback). */
  public static PagesAccess open() {
    return new PagesAccess(null, null, DEFAULT_SESSION_TTL, null, Clock.systemUTC());
  }

  /** Pages behind {@code token}, sessions signed with a key derived from it. */
  public static PagesAccess behind(String token) {
    return new PagesAccess(token, null, DEFAULT_SESSION_TTL, null, Clock.systemUTC());
  }
}
