package io.schedlens.common.http;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * How an app's instances know each other's calls: by a bearer token of their own ({@code
 * api.peer.token}), never the one clients hold, so that a client can neither ask an instance for
 * its part alone ({@code local=true}) nor take the threads kept for the instances. Without
 * authentication at all ({@code api.auth none}) a call that says {@code local=true} is one.
 */
public final class PeerCalls {

  /** No authentication: a call is an instance's when its query says {@code local=true}. */
  public static final PeerCalls UNAUTHENTICATED = new PeerCalls(null);

  private final byte[] token;
  private final String header;

  private PeerCalls(String token) {
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    this.header = token == null ? null : "Bearer " + token;
  }

  /** The instances present {@code token}. */
  public static PeerCalls withToken(String token) {
    return token == null ? UNAUTHENTICATED : new PeerCalls(token);
  }

  /** The {@code Authorization} header an instance sends, or null without authentication. */
  public String authorization() {
    return header;
  }

  /** Whether a request (as Jetty reads it, before a thread is given) is an instance's call. */
  boolean isPeer(Request request) {
    if (token == null) {
      return localQuery(request.getHttpURI().getQuery());
    }
    return BearerToken.authorizes(request.getHeaders().get(HttpHeader.AUTHORIZATION), token);
  }

  /** Whether an exchange is an instance's call. */
  public boolean isPeer(HttpExchange exchange) {
    if (token == null) {
      return localQuery(exchange.getRequestURI().getRawQuery());
    }
    return BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token);
  }

  private static boolean localQuery(String query) {
    return query != null && ("&" + query + "&").contains("&local=true&");
  }
}
