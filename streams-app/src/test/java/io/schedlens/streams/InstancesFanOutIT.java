package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances, each holding a third of the pods, with two threads each for clients: sixteen
 * clients asking every instance for the whole list at once. Every instance answers by calling the
 * two others; those calls have threads of their own, so the instances never wait on each other's
 * client threads: every answer is whole, or a 503 within 2 s.
 */
class InstancesFanOutIT {

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

  @Test
  void shouldAnswerSixteenClientsOfThreeInstancesWholeOrWith503WithinTwoSeconds() throws Exception {
    Topics t = Topics.withPrefix("fan.");
    broker.createTopics(t.newTopics(3, (short) 1));
    ScenarioInputs.produce(
        broker.bootstrapServers(), t, 3, ScenarioInputs.cluster(StreamsAppIT.ROUNDS), true);
    int pods = StreamsAppIT.PODS;
    List<Integer> ports =
        List.of(ApiOverTlsIT.freePort(), ApiOverTlsIT.freePort(), ApiOverTlsIT.freePort());
    try (StreamsApp a = start(ports.get(0), dir.resolve("a"));
        StreamsApp b = start(ports.get(1), dir.resolve("b"));
        StreamsApp c = start(ports.get(2), dir.resolve("c"))) {
      List<StreamsApp> apps = List.of(a, b, c);
      HttpClient client = HttpClient.newHttpClient();
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> {
                int sum = 0;
                for (StreamsApp app : apps) {
                  int local = count(get(client, app.baseUrl() + "/api/pods?state=all&local=true"));
                  assertThat(local).as(app.baseUrl()).isPositive();
                  sum += local;
                }
                assertThat(sum).isEqualTo(pods);
                for (StreamsApp app : apps) {
                  assertThat(count(get(client, app.baseUrl() + "/api/pods?state=all")))
                      .isEqualTo(pods);
                }
              });

      Map<Integer, AtomicLong> byStatus = new ConcurrentHashMap<>();
      AtomicLong partial = new AtomicLong();
      AtomicLong slowest = new AtomicLong();
      long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      List<Thread> clients = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        StreamsApp app = apps.get(i % 3);
        HttpClient own = HttpClient.newHttpClient();
        Thread thread =
            new Thread(
                () -> {
                  while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    int status;
                    try {
                      HttpResponse<String> r =
                          own.send(
                              HttpRequest.newBuilder(
                                      URI.create(app.baseUrl() + "/api/pods?state=all"))
                                  .timeout(Duration.ofSeconds(30))
                                  .build(),
                              HttpResponse.BodyHandlers.ofString());
                      status = r.statusCode();
                      if (status == 200 && count(r) != pods) {
                        partial.incrementAndGet();
                      }
                    } catch (Exception e) {
                      status = -1;
                    }
                    slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                    byStatus.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
                  }
                });
        thread.start();
        clients.add(thread);
      }
      for (Thread thread : clients) {
        thread.join();
      }
      System.out.printf(
          "InstancesFanOutIT: 16 clients of 3 instances for 15 s: answers by status %s, slowest"
              + " %d ms%n",
          byStatus, slowest.get() / 1_000_000);
      assertThat(byStatus.keySet()).isSubsetOf(200, 503);
      assertThat(partial.get()).as("lists missing pods").isZero();
      assertThat(byStatus.get(200).get()).as("whole answers").isGreaterThan(100);
      assertThat(Duration.ofNanos(slowest.get())).isLessThan(Duration.ofSeconds(2));
    }
  }

  private static int count(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    try {
      JsonNode json = new ObjectMapper().readTree(r.body());
      return json.path("pods").size();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static StreamsApp start(int port, Path state) {
    return StreamsApp.start(
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                List.of(
                    "--topic-prefix",
                    "fan.",
                    "--application-id",
                    "fan-app",
                    "--state-dir",
                    state.toString(),
                    "--http-port",
                    Integer.toString(port),
                    "--application-server",
                    "127.0.0.1:" + port,
                    "--http-threads",
                    "2",
                    "--emit-interval",
                    "200ms",
                    "--api-auth",
                    "none"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()))));
  }
}
