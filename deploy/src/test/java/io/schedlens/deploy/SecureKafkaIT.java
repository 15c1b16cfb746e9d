package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.cli.probe.ProbeCommand;
import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's Kafka security, on a real broker: a SASL_SSL listener with SCRAM-SHA-512 (a
 * certificate made here), Kafka's StandardAuthorizer with the ACLs the chart gives each KafkaUser
 * (files/kafka-users.yaml), and the collector and the streams app configured with the KAFKA_*
 * environment the chart renders for them (the JAAS line as Strimzi writes it into the user's
 * Secret, the CA as the PEM the pods mount). A request line goes in through the collector and comes
 * out as a timeline read by the export's user; each user is refused what its ACLs do not give.
 */
class SecureKafkaIT {

  static final String PASSWORD = "keystore-secret";
  static final YAMLMapper YAML = new YAMLMapper();

  @TempDir static Path dir;
  static EmbeddedKafkaBroker broker;
  static Path caPem;
  static final Topics TOPICS = Topics.defaults();

  @BeforeAll
  static void secureBroker() throws Exception {
    TestCertificates certificates = TestCertificates.make(dir, PASSWORD);
    Path keystore = certificates.keystore();
    caPem = certificates.certPem();
    broker = EmbeddedKafkaBroker.startSecure(keystore, PASSWORD);
    broker.createTopics(TOPICS.newTopics(2, (short) 1));
    try (Admin admin = broker.admin()) {
      List<UserScramCredentialUpsertion> users = new ArrayList<>();
      for (String user : users().keySet()) {
        users.add(
            new UserScramCredentialUpsertion(
                user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password(user)));
      }
      admin.alterUserScramCredentials(new ArrayList<>(users)).all().get();
      List<AclBinding> acls = new ArrayList<>();
      users().forEach((user, bindings) -> acls.addAll(bindings));
      admin.createAcls(acls).all().get();
    }
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  static String password(String user) {
    return "pw-of-" + user;
  }

  /** The chart's ACLs (files/kafka-users.yaml), per user, as Strimzi's user operator sets them. */
  static Map<String, List<AclBinding>> users() throws Exception {
    Map<String, List<AclBinding>> out = new LinkedHashMap<>();
    JsonNode users =
        YAML.readTree(Repository.path("deploy/helm/schedlens/files/kafka-users.yaml").toFile());
    for (JsonNode u : users.path("users")) {
      String user = u.path("name").asText();
      List<AclBinding> bindings = new ArrayList<>();
      for (JsonNode acl : u.path("acls")) {
        JsonNode r = acl.path("resource");
        ResourcePattern pattern =
            new ResourcePattern(
                switch (r.path("type").asText()) {
                  case "topic" -> ResourceType.TOPIC;
                  case "group" -> ResourceType.GROUP;
                  case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
                  case "cluster" -> ResourceType.CLUSTER;
                  default -> throw new IllegalArgumentException(r.toString());
                },
                r.path("type").asText().equals("cluster")
                    ? "kafka-cluster"
                    : r.path("name").asText(),
                r.path("patternType").asText("literal").equals("prefix")
                    ? PatternType.PREFIXED
                    : PatternType.LITERAL);
        for (JsonNode op : acl.path("operations")) {
          bindings.add(
              new AclBinding(
                  pattern,
                  new AccessControlEntry(
                      "User:" + user,
                      "*",
                      AclOperation.fromString(
                          op.asText()
                              .replaceAll("([a-z])([A-Z])", "$1_$2")
                              .toUpperCase(Locale.ROOT)),
                      AclPermissionType.ALLOW)));
        }
      }
      out.put(user, bindings);
    }
    return out;
  }

  /**
   * The KAFKA_* environment of an app's container as the chart renders it by default
   * (Strimzi-managed Kafka), with what Kubernetes would put there: the JAAS line as Strimzi writes
   * it into the user's Secret, this broker's SASL_SSL address, the CA this test made.
   */
  static Map<String, String> manifestEnv(String workload, String user, String jaasUser, String pw)
      throws Exception {
    JsonNode object =
        Manifests.documents(Chart.template(Chart.Install.of())).stream()
            .filter(d -> d.path("kind").asText().matches("Deployment|StatefulSet"))
            .filter(d -> d.path("metadata").path("name").asText().equals(workload))
            .findFirst()
            .orElseThrow();
    JsonNode container =
        object.path("spec").path("template").path("spec").path("containers").get(0);
    Map<String, String> env = new HashMap<>();
    for (JsonNode e : container.path("env")) {
      String name = e.path("name").asText();
      if (!name.startsWith("KAFKA_")) {
        continue;
      }
      if (e.has("value")) {
        env.put(name, e.path("value").asText());
      } else {
        JsonNode ref = e.path("valueFrom").path("secretKeyRef");
        assertThat(ref.path("name").asText()).isEqualTo(user);
        assertThat(ref.path("key").asText()).isEqualTo("sasl.jaas.config");
        env.put(
            name,
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + jaasUser
                + "\" password=\""
                + pw
                + "\";");
      }
    }
    assertThat(env)
        .containsKeys(
            "KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_JAAS_CONFIG", "KAFKA_SSL_TRUSTSTORE_LOCATION");
    env.put("KAFKA_BOOTSTRAP_SERVERS", broker.secureBootstrapServers());
    env.put("KAFKA_SSL_TRUSTSTORE_LOCATION", caPem.toString());
    return env;
  }

  static Map<String, String> manifestEnv(String workload, String user) throws Exception {
    return manifestEnv(workload, user, user, password(user));
  }

  /** A serving pod scheduled, running and Ready one second after it was created. */
  static Pod readyPod(String name, long created) {
    String t = Instant.ofEpochMilli(created).toString();
    String ready = Instant.ofEpochMilli(created + 1_000).toString();
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ai-lab")
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .withResourceVersion("100")
        .withCreationTimestamp(t)
        .endMetadata()
        .withNewSpec()
        .withNodeName("gpu-node-1")
        .addNewContainer()
        .withName("server")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withLastTransitionTime(ready)
        .endCondition()
        .addNewContainerStatus()
        .withName("server")
        .withReady(true)
        .withNewState()
        .withNewRunning(t)
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  /** Client settings as the apps derive them from that environment (KAFKA_X_Y → x.y). */
  static Map<String, Object> clientSettings(Map<String, String> env) {
    Map<String, Object> c = new HashMap<>();
    env.forEach((k, v) -> c.put(k.substring(6).toLowerCase(Locale.ROOT).replace('_', '.'), v));
    return c;
  }

  @Test
  void shouldCarryARequestFromTheCollectorToATimelineAsEachAppsOwnUser() throws Exception {
    Map<String, String> collectorEnv = manifestEnv("schedlens-collector", "schedlens-collector");
    Map<String, String> streamsEnv = manifestEnv("schedlens-streams", "schedlens-streams");
    Map<String, String> exportEnv = new HashMap<>(collectorEnv);
    exportEnv.put(
        "KAFKA_SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"schedlens-export\" password=\""
            + password("schedlens-export")
            + "\";");
    Collector collector =
        Collector.start(
            CollectorConfig.from(
                CommandLineSettings.load(
                    CollectorConfig.DEF,
                    List.of(
                        "--kubernetes-enabled", "false",
                        "--http-port", "0",
                        "--progress-interval", "100ms",
                        "--progress-allowance", "2s",
                        "--startup-readback", "false",
                        "--intake-token", "shipper-token-0123456789abcdef0123456789"),
                    collectorEnv)),
            null,
            Clock.systemUTC());
    StreamsApp app =
        StreamsApp.start(
            StreamsAppConfig.from(
                CommandLineSettings.load(
                    StreamsAppConfig.DEF,
                    List.of(
                        "--state-dir", dir.resolve("state").toString(),
                        "--http-port", "0",
                        "--emit-interval", "200ms",
                        "--topics-create", "false",
                        "--api-token", "api-secret-0123456789abcdef0123456789abcdef"),
                    streamsEnv)));
    // The collector's Kubernetes side, as its user: a pod, and marks on the topics it writes.
    InputProducer pods = new InputProducer(clientSettings(collectorEnv), TOPICS, 2);
    pods.hold(TOPICS.requests.name()).hold(TOPICS.gpuSamples.name());
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> collector.readiness().ready());
      long start = System.currentTimeMillis();
      Pod pod = readyPod("chat-secure", start - 5_000);
      pods.produce(
          List.of(
              new PodProjection(List.of(), List.of())
                  .project(pod, ChangeType.ADDED, start - 4_000)));
      String line =
          "{\"time\":"
              + (start - 3_000)
              + ",\"namespace\":\""
              + pod.getMetadata().getNamespace()
              + "\",\"pod\":\"chat-secure\",\"service\":\"chat\",\"status\":200,\"latency_ms\":120,\"request_id\":\"r-1\"}\n";
      HttpResponse<String> unauthorised = post(collector, line, null);
      assertThat(unauthorised.statusCode()).isEqualTo(401);
      HttpResponse<String> taken =
          post(collector, line, "shipper-token-0123456789abcdef0123456789");
      assertThat(taken.statusCode()).as(taken.body()).isEqualTo(202);
      assertThat(taken.body()).contains("\"accepted\":1").doesNotContain("\"delivered\":false");
      // Marks move the pods stream past the request, as the collector does once it has synced.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                pods.mark(System.currentTimeMillis() - 2_000);
                return requestsOf(exportEnv, pod.getMetadata().getUid()) >= 1;
              });
      // The chart's helm test pod's command, as a client in the cluster: both apps ready, the
      // pending pods listed with the API token; another token is refused, and it says so.
      ByteArrayOutputStream said = new ByteArrayOutputStream();
      assertThat(
              helmTest(collector, app, "api-secret-0123456789abcdef0123456789abcdef", "10s", said))
          .as(said.toString(StandardCharsets.UTF_8))
          .isZero();
      assertThat(said.toString(StandardCharsets.UTF_8))
          .contains("probe: ok   collector " + collector.baseUrl() + "/readyz: 200 ready")
          .contains("probe: ok   GET " + app.baseUrl() + "/api/pods?state=pending: 200, ")
          .contains("schedlens answers as installed");
      ByteArrayOutputStream refused = new ByteArrayOutputStream();
      assertThat(
              helmTest(collector, app, "not-the-api-token-0123456789abcdef012345", "0s", refused))
          .isEqualTo(1);
      assertThat(refused.toString(StandardCharsets.UTF_8))
          .contains("FAIL GET " + app.baseUrl() + "/api/pods?state=pending: 401")
          .contains("the API refused the token");
    } finally {
      pods.close();
      app.close();
      collector.close();
    }
  }

  /**
   * Runs the command of the chart's helm test pod as its container would, with the Services' URLs
   * pointed at the apps here, the API token Secret's file holding {@code token}, retrying for
   * {@code wait}; its output to {@code said}.
   */
  static int helmTest(
      Collector collector, StreamsApp app, String token, String wait, ByteArrayOutputStream said)
      throws Exception {
    JsonNode pod =
        HelmTestPodTest.testPod(HelmTestPodTest.documents(Chart.Install.of(), dir)).orElseThrow();
    List<String> args = new ArrayList<>();
    pod.path("spec").path("containers").get(0).path("args").forEach(a -> args.add(a.asText()));
    assertThat(args).containsExactly("probe");
    Map<String, String> env = new HashMap<>(HelmTestPodTest.env(pod));
    assertThat(env)
        .containsEntry("SCHEDLENS_COLLECTOR_URL", "http://schedlens-collector.schedlens.svc:9470")
        .containsEntry("SCHEDLENS_STREAMS_URL", "http://schedlens-streams.schedlens.svc:9471");
    env.put("SCHEDLENS_COLLECTOR_URL", collector.baseUrl());
    env.put("SCHEDLENS_STREAMS_URL", app.baseUrl());
    Path tokenFile = Files.createTempFile(dir, "api-token", "");
    Files.writeString(tokenFile, token + "\n");
    env.put("SCHEDLENS_API_TOKEN_FILE", tokenFile.toString());
    env.put("SCHEDLENS_WAIT", wait);
    PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);
    return ProbeCommand.run(args.subList(1, args.size()), env, out, out);
  }

  /** The requests the latest timeline of a pod counts, read as the export's user. */
  static long requestsOf(Map<String, String> env, String uid) {
    long[] requests = {-1};
    try (KafkaConsumer<String, PodTimeline> c =
        TopicConsumers.fromBeginning(clientSettings(env), TOPICS.podTimelines)) {
      TopicConsumers.readToEnd(
          c,
          r -> {
            if (r.key().equals(uid) && r.value() != null) {
              requests[0] = r.value().getRequests();
            }
          });
    }
    return requests[0];
  }

  static HttpResponse<String> post(Collector c, String body, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(c.baseUrl() + "/v1/request-logs"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/x-ndjson")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldRefuseEachUserWhatItsAclsDoNotGive() throws Exception {
    Map<String, Object> collector =
        clientSettings(manifestEnv("schedlens-collector", "schedlens-collector"));
    // The collector may not read what others wrote, nor write the outputs.
    assertThatThrownBy(
            () -> {
              try (KafkaConsumer<String, PodTimeline> c =
                  TopicConsumers.fromBeginning(collector, TOPICS.podTimelines)) {
                TopicConsumers.readToEnd(c, r -> {});
              }
            })
        .satisfies(e -> assertThat(deepest(e)).isInstanceOf(TopicAuthorizationException.class));
    Map<String, Object> p = new HashMap<>(collector);
    p.put("max.block.ms", 10_000);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      assertThatThrownBy(
              () ->
                  producer
                      .send(new ProducerRecord<>(TOPICS.podTimelines.name(), new byte[] {1}))
                      .get())
          .satisfies(e -> assertThat(deepest(e)).isInstanceOf(TopicAuthorizationException.class));
    }
    // A wrong password is no way in.
    Map<String, Object> wrong =
        clientSettings(
            manifestEnv(
                "schedlens-collector",
                "schedlens-collector",
                "schedlens-collector",
                "not-the-password"));
    assertThatThrownBy(
            () -> {
              try (KafkaConsumer<String, PodObservation> c =
                  TopicConsumers.fromBeginning(wrong, TOPICS.pods)) {
                TopicConsumers.readToEnd(c, r -> {});
              }
            })
        .satisfies(e -> assertThat(deepest(e)).isInstanceOf(SaslAuthenticationException.class));
  }

  /** The exception itself, or its deepest cause. */
  static Throwable deepest(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
