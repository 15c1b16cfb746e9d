package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.schedlens.common.http.HttpEndpoint;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who gets to the pages, over real HTTP: a login sets a signed session (never the token), which
 * expires and which /logout clears; logins from another site are refused; a client that keeps
 * guessing waits; a malformed escape is a 400 that says nothing of the server.
 */
class TimelinePagesAccessTest {

  static final String TOKEN = SessionsTest.TOKEN;

  @TempDir Path dir;

  final SessionsTest.Ticking clock = new SessionsTest.Ticking();
  final HttpClient http = HttpClient.newHttpClient();
  HttpEndpoint endpoint;

  @BeforeEach
  void start() throws Exception {
    Files.writeString(dir.resolve("timelines.jsonl"), "");
    TimelinePages pages =
        new TimelinePages(
            new FilePageSource(dir),
            new PagesAccess(TOKEN, Sessions.keyFromToken(TOKEN), Duration.ofHours(1), null, clock));
    endpoint =
        HttpEndpoint.start(
            "127.0.0.1",
            0,
            new PrometheusRegistry(),
            () -> HttpEndpoint.Readiness.ready("up"),
            2,
            new HttpEndpoint.Route("/", pages::handle));
  }

  @AfterEach
  void stop() {
    endpoint.close();
  }

  HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + path))
        .timeout(Duration.ofSeconds(5));
  }

  HttpResponse<String> login(String token, String... headers) throws Exception {
    HttpRequest.Builder b =
        at("/login")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8) + "&next=%2F"));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b);
  }

  @Test
  void shouldKeepASignedExpiringSessionNotTheTokenAndEndItAtLogout() throws Exception {
    assertThat(send(at("/")).statusCode()).isEqualTo(401);
    HttpResponse<String> in = login(TOKEN);
    assertThat(in.statusCode()).isEqualTo(303);
    String setCookie = in.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).startsWith("schedlens_session=").doesNotContain(TOKEN);
    String cookie = setCookie.split(";")[0];
    assertThat(send(at("/").header("Cookie", cookie)).statusCode()).isEqualTo(200);
    assertThat(send(at("/").header("Cookie", "schedlens_session=" + TOKEN)).statusCode())
        .as("the token is no session")
        .isEqualTo(401);

    HttpResponse<String> out =
        send(at("/logout").header("Cookie", cookie).POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(out.statusCode()).isEqualTo(303);
    assertThat(out.headers().firstValue("Set-Cookie").orElseThrow())
        .startsWith("schedlens_session=;")
        .contains("Max-Age=0");
    assertThat(send(at("/logout")).body()).contains("action=\"/logout\"");

    clock.now = clock.now.plus(Duration.ofHours(1)).plusSeconds(1);
    assertThat(send(at("/").header("Cookie", cookie)).statusCode()).as("expired").isEqualTo(401);
  }

  @Test
  void shouldRefuseALoginOrLogoutPostedFromAnotherSite() throws Exception {
    assertThat(login(TOKEN, "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
    assertThat(login(TOKEN, "Origin", "https://evil.example").statusCode()).isEqualTo(403);
    assertThat(
            send(at("/logout")
                    .header("Sec-Fetch-Site", "same-site")
                    .POST(HttpRequest.BodyPublishers.noBody()))
                .statusCode())
        .isEqualTo(403);
    assertThat(login(TOKEN, "Sec-Fetch-Site", "same-origin").statusCode()).isEqualTo(303);
    assertThat(login(TOKEN, "Origin", endpoint.baseUrl()).statusCode()).isEqualTo(303);
  }

  @Test
  void shouldMakeAClientThatKeepsGuessingWait() throws Exception {
    for (int i = 0; i < LoginBackoff.FREE; i++) {
      assertThat(login("wrong-" + i).statusCode()).isEqualTo(401);
    }
    assertThat(login("wrong-again").statusCode()).isEqualTo(401);
    HttpResponse<String> waiting = login(TOKEN);
    assertThat(waiting.statusCode()).as("even the right token waits").isEqualTo(429);
    assertThat(waiting.headers().firstValue("Retry-After")).hasValue("2");
    clock.now = clock.now.plusSeconds(2);
    assertThat(login(TOKEN).statusCode()).isEqualTo(303);
  }

  @Test
  void shouldAnswerMalformedEscapesWith400AndNoTextOfTheServer() throws Exception {
    String cookie = login(TOKEN).headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    String badPath = raw("GET /pods/%zz HTTP/1.1", "Cookie: " + cookie);
    String badQuery = raw("GET /?namespace=%zz HTTP/1.1", "Cookie: " + cookie);
    String badForm =
        raw(
            "POST /login HTTP/1.1",
            "Content-Type: application/x-www-form-urlencoded",
            "Content-Length: 9",
            "",
            "token=%zz");
    for (String r : java.util.List.of(badPath, badQuery, badForm)) {
      assertThat(r).startsWith("HTTP/1.1 400").doesNotContain("Exception", "URLDecoder", "java.");
    }
    assertThat(raw("GET /?namespace=%zz HTTP/1.1"))
        .as("unauthenticated: the same 400, before anything else is read")
        .startsWith("HTTP/1.1 400");
    assertThat(raw("GET /login?next=%2Fpods HTTP/1.1")).startsWith("HTTP/1.1 200");
  }

  /** A request sent as written (an HTTP client would refuse to send a malformed escape). */
  private String raw(String requestLine, String... more) throws Exception {
    URI base = URI.create(endpoint.baseUrl());
    try (java.net.Socket s = new java.net.Socket(base.getHost(), base.getPort())) {
      StringBuilder req =
          new StringBuilder(requestLine)
              .append("\r\nHost: ")
              .append(base.getAuthority())
              .append("\r\nConnection: close\r\n");
      boolean body = false;
      for (String m : more) {
        if (m.isEmpty()) {
          body = true;
          req.append("\r\n");
        } else {
          req.append(m).append(body ? "" : "\r\n");
        }
      }
      if (!body) {
        req.append("\r\n");
      }
      s.getOutputStream().write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
      s.setSoTimeout(5000);
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
