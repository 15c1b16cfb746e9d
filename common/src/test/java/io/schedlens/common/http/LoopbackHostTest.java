package io.schedlens.common.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LoopbackHostTest {

  @Test
  void shouldTakeOnlyLoopbackNamesWithOrWithoutAPort() {
    assertThat(LoopbackHost.isLoopback("127.0.0.1:9472")).isTrue();
    assertThat(LoopbackHost.isLoopback("localhost")).isTrue();
    assertThat(LoopbackHost.isLoopback("LOCALHOST:80")).isTrue();
    assertThat(LoopbackHost.isLoopback("[::1]:9472")).isTrue();
    assertThat(LoopbackHost.isLoopback("evil.example:9472")).isFalse();
    assertThat(LoopbackHost.isLoopback("localhost.evil.example")).isFalse();
    assertThat(LoopbackHost.isLoopback("127.0.0.1.nip.io")).isFalse();
    assertThat(LoopbackHost.isLoopback("127.0.0.1:80@evil")).isFalse();
    assertThat(LoopbackHost.isLoopback(null)).isFalse();
  }

  /** A rebound name reaches the port but is not answered. */
  @Test
  void shouldRefuseARequestNamingAnotherHost() throws Exception {
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(
            "127.0.0.1",
            0,
            new PrometheusRegistry(),
            () -> HttpEndpoint.Readiness.ready("up"),
            2,
            new HttpEndpoint.Route(
                "/",
                LoopbackHost.only(e -> HttpEndpoint.respond(e, 200, "text/plain", "page\n"))))) {
      assertThat(get(endpoint.port(), "evil.example:" + endpoint.port()))
          .startsWith("HTTP/1.1 421");
      assertThat(get(endpoint.port(), "127.0.0.1:" + endpoint.port())).startsWith("HTTP/1.1 200");
    }
  }

  private static String get(int port, String host) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.getOutputStream()
          .write(
              ("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.setSoTimeout(5000);
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
