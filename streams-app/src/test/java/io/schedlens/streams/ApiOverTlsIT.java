package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.http.HttpTls;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TestCertificates;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances serving /api over HTTPS from a TLS Secret's PEM files, with the bearer token: each
 * answers for the pods the other holds by calling it over HTTPS, trusting http.tls.ca.
 */
class ApiOverTlsIT {

  static EmbeddedKafkaBroker broker;
  @TempDir static Path dir;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Test
  void shouldAnswerForTheWholeAppOverHttpsWithTheToken() throws Exception {
    TestCertificates tls = TestCertificates.make(dir, "changeit");
    Topics t = Topics.withPrefix("tls.");
    broker.createTopics(t.newTopics(2, (short) 1));
    ScenarioInputs.produce(
        broker.bootstrapServers(), t, ScenarioInputs.cluster(StreamsAppIT.ROUNDS), true);
    int pods = StreamsAppIT.PODS;
    int portA = freePort();
    int portB = freePort();
    try (StreamsApp a = start(tls, portA, dir.resolve("a"));
        StreamsApp b = start(tls, portB, dir.resolve("b"))) {
      HttpClient client =
          HttpClient.newBuilder()
              .sslContext(HttpTls.clientContext(tls.certPem().toString()))
              .build();
      assertThat(a.baseUrl()).isEqualTo("https://127.0.0.1:" + portA);
      Map<String, PodTimeline> finals = StreamsAppIT.finals(broker.bootstrapServers(), t, pods);
      assertThat(finals).hasSize(pods);
      // Each instance holds part of the pods, so answering for all of them takes the other.
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                int localA = local(client, a);
                int localB = local(client, b);
                assertThat(localA + localB).isEqualTo(pods);
                assertThat(localA).isPositive();
                assertThat(localB).isPositive();
              });
      for (StreamsApp app : List.of(a, b)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  HttpResponse<String> all =
                      get(client, app.baseUrl() + "/api/pods?state=all&limit=1000");
                  assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
                  JsonNode json = new ObjectMapper().readTree(all.body());
                  assertThat(json.path("pods")).hasSize(pods);
                  for (String uid : finals.keySet()) {
                    assertThat(get(client, app.baseUrl() + "/api/pods/" + uid).statusCode())
                        .as(uid + " from " + app.baseUrl())
                        .isEqualTo(200);
                  }
                });
      }
      // Without the token: 401, over HTTPS as over HTTP.
      assertThat(
              client
                  .send(
                      HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/pods?state=all"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(401);
    }
  }

  static StreamsApp start(TestCertificates tls, int port, Path state) {
    return StreamsApp.start(
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                List.of(
                    "--topic-prefix",
                    "tls.",
                    "--application-id",
                    "tls-app",
                    "--state-dir",
                    state.toString(),
                    "--http-port",
                    Integer.toString(port),
                    "--application-server",
                    "127.0.0.1:" + port,
                    "--emit-interval",
                    "200ms",
                    "--http-tls-cert",
                    tls.certPem().toString(),
                    "--http-tls-key",
                    tls.keyPem().toString(),
                    "--http-tls-ca",
                    tls.certPem().toString(),
                    "--api-token",
                    TOKEN,
                    "--api-peer-token",
                    PEER_TOKEN),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()))));
  }

  static final String TOKEN = "tls-token-0123456789abcdef0123456789abcdef";
  static final String PEER_TOKEN = "peer-token-0123456789abcdef0123456789abcdef";

  /**
   * How many pods an instance holds itself, asked as the instances ask each other; a client may not
   * ask so.
   */
  static int local(HttpClient client, StreamsApp app) throws Exception {
    String url = app.baseUrl() + "/api/pods?state=all&limit=1000&local=true";
    assertThat(get(client, url).statusCode()).as("a client's local=true").isEqualTo(403);
    HttpResponse<String> r = get(client, url, PEER_TOKEN);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new ObjectMapper().readTree(r.body()).path("pods").size();
  }

  static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return get(client, url, TOKEN);
  }

  static HttpResponse<String> get(HttpClient client, String url, String token) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
