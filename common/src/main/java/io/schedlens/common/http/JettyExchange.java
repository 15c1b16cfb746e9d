package io.schedlens.common.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A Jetty request and response seen as the JDK's {@link HttpExchange}, so that the handlers keep
 * the JDK's small standard interface (and client_java's {@code MetricsHandler}) while Jetty serves
 * the connections.
 *
 * <p>Written here rather than taken from Jetty's {@code jetty-http-spi}: that jar also registers
 * itself as the JVM's {@code com.sun.net.httpserver} provider, so every other {@code
 * HttpServer.create} in the process (the simulator's dcgm-exporter, test servers) would get its
 * server, which reports port -1 when bound to port 0.
 */
final class JettyExchange extends HttpExchange {

  private final Request request;
  private final Response response;
  private final Headers responseHeaders = new Headers();
  private InputStream in;
  private OutputStream out;
  private int code = -1;

  private JettyExchange(Request request, Response response) {
    this.request = request;
    this.response = response;
    this.in = Content.Source.asInputStream(request);
    this.out = Content.Sink.asOutputStream(response);
  }

  /** A blocking Jetty handler that gives each request to {@code handler} as an exchange. */
  static Handler handler(HttpHandler handler) {
    return new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        JettyExchange exchange = new JettyExchange(request, response);
        try {
          handler.handle(exchange);
          exchange.close();
          callback.succeeded();
        } catch (Throwable e) {
          if (response.isCommitted()) {
            callback.failed(e);
          } else {
            Response.writeError(request, response, callback, e);
          }
        }
        return true;
      }
    };
  }

  @Override
  public Headers getRequestHeaders() {
    Headers headers = new Headers();
    for (HttpField field : request.getHeaders()) {
      if (field.getValue() != null) {
        headers.add(field.getName(), field.getValue());
      }
    }
    return headers;
  }

  @Override
  public Headers getResponseHeaders() {
    return responseHeaders;
  }

  @Override
  public URI getRequestURI() {
    return request.getHttpURI().toURI();
  }

  @Override
  public String getRequestMethod() {
    return request.getMethod();
  }

  /** There are no JDK contexts here: routes are matched by {@link HttpEndpoint} itself. */
  @Override
  public HttpContext getHttpContext() {
    return null;
  }

  @Override
  public void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public InputStream getRequestBody() {
    return in;
  }

  @Override
  public OutputStream getResponseBody() {
    return out;
  }

  /** As the JDK's: a length of -1 means no body, 0 a body of unknown length (chunked). */
  @Override
  public void sendResponseHeaders(int rCode, long responseLength) {
    if (code >= 0) {
      throw new IllegalStateException("response headers already sent");
    }
    code = rCode;
    for (Map.Entry<String, List<String>> header : responseHeaders.entrySet()) {
      response.getHeaders().remove(header.getKey());
      for (String value : header.getValue()) {
        response.getHeaders().add(header.getKey(), value);
      }
    }
    if (responseLength > 0) {
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, responseLength);
    } else if (responseLength < 0) {
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0L);
    }
    response.setStatus(rCode);
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return inet(request.getConnectionMetaData().getRemoteSocketAddress());
  }

  @Override
  public int getResponseCode() {
    return code;
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    return inet(request.getConnectionMetaData().getLocalSocketAddress());
  }

  private static InetSocketAddress inet(SocketAddress address) {
    return address instanceof InetSocketAddress i ? i : null;
  }

  @Override
  public String getProtocol() {
    return request.getConnectionMetaData().getProtocol();
  }

  @Override
  public Object getAttribute(String name) {
    return request.getAttribute(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    request.setAttribute(name, value);
  }

  @Override
  public void setStreams(InputStream i, OutputStream o) {
    if (i != null) {
      in = i;
    }
    if (o != null) {
      out = o;
    }
  }

  @Override
  public HttpPrincipal getPrincipal() {
    return null;
  }
}
