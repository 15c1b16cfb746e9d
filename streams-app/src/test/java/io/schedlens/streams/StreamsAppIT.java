package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The streams app on the real broker, exactly-once, including a hard kill in the middle. */
class StreamsAppIT {

  static EmbeddedKafkaBroker broker;
  static final int ROUNDS = 4;
  static final int PODS = ROUNDS * 3;

  @TempDir Path stateDir;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  static Topics topics(String prefix) {
    Topics t = Topics.withPrefix(prefix);
    broker.createTopics(t.newTopics(2, (short) 1));
    return t;
  }

  List<String> args(String prefix, String app, Path state) {
    return List.of(
        "--topic-prefix",
        prefix,
        "--application-id",
        app,
        "--state-dir",
        state.toString(),
        "--http-port",
        "0",
        "--emit-interval",
        "200ms",
        "--slo",
        "chat=1000",
        "--api-token",
        API_TOKEN);
  }

  /** The token every instance of these tests requires on /api, and forwards to the others. */
  static final String API_TOKEN = "api-test-token-0123456789abcdef0123456789";

  static Map<String, PodTimeline> finals(Topics t, int expected) {
    return finals(broker.bootstrapServers(), t, expected);
  }

  /** The final timelines on a broker's pod-timelines topic, once there are {@code expected}. */
  static Map<String, PodTimeline> finals(String bootstrap, Topics t, int expected) {
    try (TopicReader<PodTimeline> r =
        new TopicReader<>(
            bootstrap, t.podTimelines.name(), t.podTimelines.valueSerde().deserializer())) {
      List<ConsumerRecord<String, PodTimeline>> all =
          r.readUntil(
              rs -> rs.stream().filter(x -> x.value().getFinal$()).count() >= expected,
              Duration.ofSeconds(120));
      Map<String, PodTimeline> finals = new TreeMap<>();
      all.stream().filter(x -> x.value().getFinal$()).forEach(x -> finals.put(x.key(), x.value()));
      return finals;
    }
  }

  static List<ConsumerRecord<String, Preemption>> preemptions(Topics t, int expected) {
    try (TopicReader<Preemption> r =
        new TopicReader<>(
            broker.bootstrapServers(),
            t.preemptions.name(),
            t.preemptions.valueSerde().deserializer())) {
      r.readUntil(rs -> rs.size() >= expected, Duration.ofSeconds(60));
      return r.readFor(Duration.ofSeconds(2));
    }
  }

  static StreamsAppConfig config(String prefix, String... extra) {
    List<String> args = new ArrayList<>(List.of("--topic-prefix", prefix, "--api-auth", "none"));
    args.addAll(List.of(extra));
    return StreamsAppConfig.from(
        CommandLineSettings.load(
            StreamsAppConfig.DEF,
            args,
            Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
  }

  /**
   * Kafka away at start: the app waits, alive and not ready (saying for what), its API answering
   * 503, instead of exiting into a crash loop; once Kafka is back it starts and becomes ready.
   */
  @Test
  void shouldWaitForKafkaAtStartAliveAndNotReady() throws Exception {
    topics("late-kafka.");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> args = new ArrayList<>(args("late-kafka.", "late-kafka-app", stateDir));
    args.set(args.indexOf("--http-port") + 1, Integer.toString(port));
    StreamsAppConfig config =
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                args,
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    AtomicReference<StreamsApp> app = new AtomicReference<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    broker.stop();
    Thread starter =
        new Thread(
            () -> {
              try {
                app.set(StreamsApp.start(config));
              } catch (Throwable e) {
                failed.set(e);
              }
            },
            "streams-start");
    starter.start();
    String base = "http://127.0.0.1:" + port;
    try {
      await("/healthz while Kafka is away")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> get(base + "/healthz").statusCode() == 200);
      await("/readyz saying what it waits for")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> get(base + "/readyz").body().contains("waiting for Kafka at 127.0.0.1:"));
      assertThat(get(base + "/readyz").statusCode()).isEqualTo(503);
      assertThat(get(base + "/api/pods").statusCode())
          .as("the API before the start")
          .isEqualTo(503);
      assertThat(failed.get()).as("the start, still waiting").isNull();
      assertThat(starter.isAlive()).isTrue();

      broker.restart();
      starter.join(Duration.ofSeconds(90).toMillis());
      assertThat(failed.get()).as("the start once Kafka is back").isNull();
      assertThat(app.get()).isNotNull();
      await("ready once Kafka Streams runs")
          .atMost(Duration.ofSeconds(90))
          .until(() -> get(base + "/readyz").statusCode() == 200);
    } finally {
      if (!broker.isRunning()) {
        broker.restart();
      }
      starter.join(Duration.ofSeconds(90).toMillis());
      if (app.get() != null) {
        app.get().close();
      }
    }
  }

  static HttpResponse<String> get(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldNameTheMissingTopicsWhenNotAllowedToCreateThem() {
    assertThatThrownBy(
            () ->
                StreamsApp.checkTopics(
                    config("none.", "--topics-create", "false"), Topics.withPrefix("none.")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("none.pods")
        .hasMessageContaining("none.internal.to-pod")
        .hasMessageContaining("--topics-create");
  }

  @Test
  void shouldCreateMissingTopicsCoPartitionedWithTheExistingOnes() throws Exception {
    Topics t = Topics.withPrefix("some.");
    broker.createTopics(List.of(t.pods.newTopic(3, (short) 1)));
    int partitions = StreamsApp.checkTopics(config("some.", "--topics-partitions", "5"), t);
    assertThat(partitions).isEqualTo(3);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<String, TopicDescription> found =
          admin.describeTopics(t.all().stream().map(x -> x.name()).toList()).allTopicNames().get();
      assertThat(found.values()).allSatisfy(d -> assertThat(d.partitions()).hasSize(3));
      assertThat(
              admin
                  .describeConfigs(
                      List.of(new ConfigResource(ConfigResource.Type.TOPIC, t.podTimelines.name())))
                  .all()
                  .get()
                  .values()
                  .iterator()
                  .next()
                  .get("cleanup.policy")
                  .value())
          .isEqualTo("compact");
    }
  }

  @Test
  void shouldRefuseTopicsThatAreNotCoPartitioned() {
    Topics t = Topics.withPrefix("skew.");
    List<org.apache.kafka.clients.admin.NewTopic> created = new ArrayList<>();
    for (var topic : t.all()) {
      created.add(topic.newTopic(topic == t.pods ? 4 : 2, (short) 1));
    }
    broker.createTopics(created);
    assertThatThrownBy(() -> StreamsApp.checkTopics(config("skew."), t))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("same number of partitions")
        .hasMessageContaining("skew.pods=4");
  }

  @Test
  void shouldPublishTimelinesAndAnswerTheApiAcrossTheApp() throws Exception {
    Topics t = topics("e2e.");
    ScenarioInputs.produce(broker.bootstrapServers(), t, ScenarioInputs.cluster(ROUNDS), true);
    StreamsAppConfig config =
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                args("e2e.", "e2e-app", stateDir),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    try (StreamsApp app = StreamsApp.start(config)) {
      Map<String, PodTimeline> finals = finals(t, PODS);
      assertThat(finals).hasSize(PODS);
      PodTimeline victim = finals.get("u-asr-1-a");
      assertThat(victim.getOutcome()).isEqualTo("Preempted");
      assertThat(victim.getPreemptor().getPriorityClass()).isEqualTo("interactive");
      assertThat(finals.get("u-chat-1").getVictims()).containsExactly("u-asr-1-a", "u-asr-1-b");

      HttpClient http = HttpClient.newHttpClient();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(http, app.baseUrl() + "/readyz").statusCode() == 200);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                HttpResponse<String> one = get(http, app.baseUrl() + "/api/pods/u-chat-1");
                assertThat(one.statusCode()).isEqualTo(200);
                JsonNode json = new ObjectMapper().readTree(one.body());
                assertThat(json.get("uid").asText()).isEqualTo("u-chat-1");
                assertThat(json.get("victims")).hasSize(2);
                assertThat(json.get("final").asBoolean()).isTrue();
                assertThat(json.has("timeToFirstOkMs")).isTrue();
              });
      JsonNode preempted =
          new ObjectMapper()
              .readTree(
                  get(http, app.baseUrl() + "/api/pods?state=preempted&namespace=ai-lab").body());
      assertThat(preempted.get("count").asInt()).isEqualTo(ROUNDS * 2);
      assertThat(get(http, app.baseUrl() + "/api/pods/no-such-uid").statusCode()).isEqualTo(404);
      HttpResponse<String> anonymous =
          http.send(
              HttpRequest.newBuilder(URI.create(app.baseUrl() + "/api/pods?state=all")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"schedlens\"");
      assertThat(
              http.send(
                      HttpRequest.newBuilder(URI.create(app.baseUrl() + "/healthz")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .as("probes are not behind the token")
          .isEqualTo(200);
      assertThat(get(http, app.baseUrl() + "/api/pods?state=bogus").statusCode()).isEqualTo(400);
      // The pages, served by the app from the same stores, behind the same token.
      HttpResponse<String> page = get(http, app.baseUrl() + "/pods/u-chat-1");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
      assertThat(page.body())
          .contains("id=\"victims\"")
          .contains("href=\"/pods/u-asr-1-a\"")
          .contains("data-phase=\"pending\"");
      assertThat(get(http, app.baseUrl() + "/?hours=8784").body())
          .as("the index lists the preemptions of the last year, each victim a link")
          .contains("href=\"/pods/u-asr-1-a\"");
      assertThat(
              http.send(
                      HttpRequest.newBuilder(URI.create(app.baseUrl() + "/pods/u-chat-1")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .as("the pages are behind the token")
          .isEqualTo(401);
      // A token in an address lands in access logs: it logs nobody in.
      assertThat(
              http.send(
                      HttpRequest.newBuilder(
                              URI.create(app.baseUrl() + "/pods/u-chat-1?token=" + API_TOKEN))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(401);
      HttpResponse<String> form =
          http.send(
              HttpRequest.newBuilder(URI.create(app.baseUrl() + "/pods/u-chat-1")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(form.body())
          .as("the 401 page is the login form, back to the page asked for")
          .contains("<form method=\"post\" action=\"/login\">", "value=\"/pods/u-chat-1\"");
      HttpResponse<String> wrong =
          http.send(
              HttpRequest.newBuilder(URI.create(app.baseUrl() + "/login"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString("token=nope&next=%2Fpods%2Fu-chat-1"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();
      HttpResponse<String> login =
          http.send(
              HttpRequest.newBuilder(URI.create(app.baseUrl() + "/login"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "token="
                              + java.net.URLEncoder.encode(
                                  API_TOKEN, java.nio.charset.StandardCharsets.UTF_8)
                              + "&next=%2Fpods%2Fu-chat-1"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(login.statusCode()).as("the posted token sets a cookie").isEqualTo(303);
      assertThat(login.headers().firstValue("Location")).hasValue("/pods/u-chat-1");
      String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
      assertThat(setCookie).contains("; Secure", "; HttpOnly", "; SameSite=Strict");
      String cookie = setCookie.split(";")[0];
      assertThat(
              http.send(
                      HttpRequest.newBuilder(URI.create(app.baseUrl() + "/pods/u-chat-1"))
                          .header("Cookie", cookie)
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
      JsonNode batchPreempted =
          new ObjectMapper()
              .readTree(
                  get(
                          http,
                          app.baseUrl() + "/api/pods?state=preempted&priorityClass=batch-low&arm=")
                      .body());
      assertThat(batchPreempted.get("count").asInt()).isEqualTo(ROUNDS * 2);
      JsonNode nonePreempted =
          new ObjectMapper()
              .readTree(
                  get(http, app.baseUrl() + "/api/pods?state=preempted&priorityClass=interactive")
                      .body());
      assertThat(nonePreempted.get("count").asInt()).isZero();
      // The workloads: a Job preempted twice a round, the chat Deployment.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonNode jobs =
                    new ObjectMapper()
                        .readTree(
                            get(http, app.baseUrl() + "/api/workloads?namespace=ai-lab&kind=Job")
                                .body());
                assertThat(jobs.get("count").asInt()).isPositive();
                String name = jobs.get("workloads").get(0).get("name").asText();
                HttpResponse<String> one =
                    get(http, app.baseUrl() + "/api/workloads/ai-lab/Job/" + name);
                assertThat(one.statusCode()).isEqualTo(200);
                JsonNode job = new ObjectMapper().readTree(one.body());
                assertThat(job.get("kind").asText()).isEqualTo("Job");
                assertThat(job.get("preemptions").asInt()).isPositive();
                assertThat(job.get("desiredSource").asText()).isEqualTo("inferred");
              });
      assertThat(get(http, app.baseUrl() + "/api/workloads/ai-lab/Job").statusCode())
          .isEqualTo(400);
      assertThat(get(http, app.baseUrl() + "/api/workloads/ai-lab/Job/nope").statusCode())
          .isEqualTo(404);
      String metrics = get(http, app.baseUrl() + "/metrics").body();
      assertThat(metrics)
          .contains(
              "schedlens_preemptions_total{arm=\"treatment\",namespace=\"ai-lab\",preemptor_priority_class=\"interactive\",repeat=\"\",victim_priority_class=\"batch-low\"} 8.0")
          .contains("schedlens_pending_duration_seconds_bucket")
          .contains("schedlens_wasted_gpu_seconds_total")
          .contains("schedlens_workloads_interrupted{")
          .containsPattern("schedlens_consumer_lag_records\\{topic=\"[^\"]*pods\"\\} \\d");
    }
  }

  static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + API_TOKEN)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The finals and preemptions of an uninterrupted run of the cluster scenario (run once). */
  record Clean(
      Map<String, PodTimeline> finals, List<ConsumerRecord<String, Preemption>> preemptions) {}

  static Clean clean;

  static synchronized Clean clean(Path stateDir) {
    if (clean == null) {
      Topics t = topics("clean.");
      ScenarioInputs.produce(broker.bootstrapServers(), t, ScenarioInputs.cluster(ROUNDS), true);
      StreamsAppConfig config =
          StreamsAppConfig.from(
              CommandLineSettings.load(
                  StreamsAppConfig.DEF,
                  new StreamsAppIT().args("clean.", "clean-app", stateDir),
                  Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
      try (StreamsApp app = StreamsApp.start(config)) {
        clean = new Clean(finals(t, PODS), preemptions(t, ROUNDS * 2));
      }
    }
    return clean;
  }

  /**
   * The pods stream minutes behind the GPU samples and requests (its topic paused, as behind a
   * collector restart, a slow partition or a backlog): every sample and request waits for the pod
   * that announces it, none is declared an unknown pod, and the timelines equal an uninterrupted
   * run's.
   */
  @Test
  void shouldAttributeEverySampleAndRequestWhenThePodsStreamLagsByMinutes(@TempDir Path lagState)
      throws Exception {
    Clean expected = clean(stateDir);
    List<Object> inputs = ScenarioInputs.cluster(ROUNDS);
    List<Object> pods =
        inputs.stream().filter(i -> i instanceof io.schedlens.avro.PodObservation).toList();
    List<Object> rest =
        inputs.stream().filter(i -> !(i instanceof io.schedlens.avro.PodObservation)).toList();
    Topics t = topics("lag.");
    StreamsAppConfig config =
        StreamsAppConfig.from(
            CommandLineSettings.load(
                StreamsAppConfig.DEF,
                args("lag.", "lag-app", lagState),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    try (io.schedlens.testsupport.InputProducer producer =
            new io.schedlens.testsupport.InputProducer(broker.bootstrapServers(), t, 2);
        StreamsApp app = StreamsApp.start(config)) {
      producer.hold(t.pods.name());
      producer.produce(rest);
      long span =
          ScenarioInputs.timestampOf(rest.get(rest.size() - 1))
              - ScenarioInputs.timestampOf(rest.get(0));
      assertThat(span).as("the other inputs run minutes ahead").isGreaterThan(180_000);
      HttpClient http = HttpClient.newHttpClient();
      // The app has read everything but the pods (the requests and GPU topics have no lag).
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(get(http, app.baseUrl() + "/metrics").body())
                      .containsPattern(
                          "schedlens_consumer_lag_records\\{topic=\"lag.requests\"\\} 0.0")
                      .containsPattern(
                          "schedlens_consumer_lag_records\\{topic=\"lag.gpu-samples\"\\} 0.0"));
      producer.release(t.pods.name());
      producer.produce(pods);
      producer.end();

      Map<String, PodTimeline> finals = finals(t, PODS);
      try (TopicReader<io.schedlens.avro.DeadLetter> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              t.deadLetters.name(),
              t.deadLetters.valueSerde().deserializer())) {
        assertThat(r.readFor(Duration.ofSeconds(2)))
            .extracting(d -> d.value().getReason() + ": " + d.value().getDetail())
            .as("dead letters")
            .isEmpty();
      }
      assertThat(finals).isEqualTo(expected.finals());
      assertThat(finals.get("u-chat-1").getRequests()).isEqualTo(20);
      assertThat(finals.values()).allSatisfy(f -> assertThat(f.getBusyGpuSeconds()).isPositive());
    }
  }

  @Test
  void shouldEqualAnUninterruptedRunAfterAHardKill(@TempDir Path crashState) throws Exception {
    List<Object> inputs = ScenarioInputs.cluster(ROUNDS);
    Map<String, PodTimeline> expected = clean(stateDir).finals();
    List<ConsumerRecord<String, Preemption>> expectedPreemptions = clean(stateDir).preemptions();

    Topics crash = topics("crash.");
    int half = inputs.size() / 2;
    ScenarioInputs.produce(broker.bootstrapServers(), crash, inputs.subList(0, half), false);
    Process first = child("crash.", crashState);
    try (TopicReader<PodTimeline> r =
        new TopicReader<>(
            broker.bootstrapServers(),
            crash.podTimelines.name(),
            crash.podTimelines.valueSerde().deserializer())) {
      r.readUntil(rs -> rs.size() >= 5, Duration.ofSeconds(90));
    }
    first.destroyForcibly().waitFor();
    ScenarioInputs.produce(
        broker.bootstrapServers(), crash, inputs.subList(half, inputs.size()), true);
    Process second = child("crash.", crashState);
    try {
      Map<String, PodTimeline> after = finals(crash, PODS);
      List<ConsumerRecord<String, Preemption>> afterPreemptions = preemptions(crash, ROUNDS * 2);

      assertThat(after).isEqualTo(expected);
      assertThat(afterPreemptions)
          .extracting(ConsumerRecord::key)
          .as("exactly one preemption record per victim")
          .doesNotHaveDuplicates()
          .hasSize(ROUNDS * 2);
      Map<String, Preemption> byVictim = new TreeMap<>();
      afterPreemptions.forEach(p -> byVictim.put(p.key(), p.value()));
      Map<String, Preemption> expectedByVictim = new TreeMap<>();
      expectedPreemptions.forEach(p -> expectedByVictim.put(p.key(), p.value()));
      assertThat(byVictim).isEqualTo(expectedByVictim);
    } catch (AssertionError e) {
      try (TopicReader<io.schedlens.avro.DeadLetter> r =
          new TopicReader<>(
              broker.bootstrapServers(),
              crash.deadLetters.name(),
              crash.deadLetters.valueSerde().deserializer())) {
        r.readFor(Duration.ofSeconds(3))
            .forEach(
                d ->
                    System.out.println(
                        "dead letter: " + d.value().getReason() + " " + d.value().getDetail()));
      }
      // what the killed and the restarted app said, to see why
      java.util.List<String> log =
          java.nio.file.Files.readAllLines(crashState.resolve("child.log"));
      System.out.println(String.join("\n", log.subList(Math.max(0, log.size() - 300), log.size())));
      throw e;
    } finally {
      second.destroy();
      second.waitFor();
    }
  }

  /** The streams app in its own JVM, so that it can be killed without a chance to close. */
  Process child(String prefix, Path state) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                StreamsMain.class.getName()));
    cmd.addAll(args(prefix, "crash-app", state));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    // A killed member leaves the group only when its session times out; keep that short here.
    pb.environment().put("KAFKA_SESSION_TIMEOUT_MS", "6000");
    pb.environment().put("SL_DEBUG", "1");
    pb.environment().put("KAFKA_HEARTBEAT_INTERVAL_MS", "1500");
    File log = state.resolve("child.log").toFile();
    state.toFile().mkdirs();
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    return pb.start();
  }
}
