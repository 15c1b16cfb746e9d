package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.WatchEventBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A watch that expires (410 Gone, which the CRUD mock server never sends) makes the informer list
 * again: what changed during the gap is sent as a change, what vanished as DELETED, nothing is
 * missed and nothing unchanged is sent twice. Scripted with the mock server's expectation mode.
 */
class WatchExpiryIT {

  static EmbeddedKafkaBroker broker;
  static KubernetesMockServer server;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.start();
    server = new KubernetesMockServer(false);
    server.init(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.destroy();
    }
    if (broker != null) {
      broker.close();
    }
  }

  static Pod pod(String name, String uid, String rv, String created, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("expiry")
        .withName(name)
        .withUid(uid)
        .withResourceVersion(rv)
        .withCreationTimestamp(created)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }

  @Test
  void shouldSendWhatChangedWhileTheWatchWasGoneAndNothingElse() throws Exception {
    String old = "2026-01-01T00:00:00Z";
    String duringGap = java.time.Instant.now().plusSeconds(3600).toString();
    WatchEvent gone =
        new WatchEventBuilder()
            .withType("ERROR")
            .withObject(
                new StatusBuilder()
                    .withCode(410)
                    .withMessage("too old resource version: 12 (20)")
                    .build())
            .build();
    server
        .expect()
        // The informer lists in pages of 500 (InformerHandle.LIST_PAGE), first and after a 410.
        .withPath("/api/v1/namespaces/expiry/pods?limit=500")
        .andReturn(
            200,
            new PodListBuilder()
                .withNewMetadata()
                .withResourceVersion("12")
                .endMetadata()
                .withItems(pod("a", "uid-a", "10", old, null), pod("b", "uid-b", "11", old, null))
                .build())
        .once();
    server
        .expect()
        .withPath(
            "/api/v1/namespaces/expiry/pods?allowWatchBookmarks=true&resourceVersion=12&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .waitFor(1500)
        .andEmit(gone)
        .done()
        .once();
    server
        .expect()
        .withPath("/api/v1/namespaces/expiry/pods?limit=500")
        .andReturn(
            200,
            new PodListBuilder()
                .withNewMetadata()
                .withResourceVersion("22")
                .endMetadata()
                .withItems(
                    pod("a", "uid-a", "20", old, "gpu-node-1"),
                    pod("c", "uid-c", "21", duringGap, null))
                .build())
        .always();
    server
        .expect()
        .withPath(
            "/api/v1/namespaces/expiry/pods?allowWatchBookmarks=true&resourceVersion=22&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .done()
        .always();

    Topics topics = Topics.withPrefix("expiry.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    CollectorConfig config =
        CollectorConfig.from(
            CommandLineSettings.load(
                CollectorConfig.DEF,
                List.of(
                    "--kubernetes-master", server.url("/"),
                    "--namespaces", "expiry",
                    "--events-apis", "",
                    "--workloads-watch", "false",
                    "--topic-prefix", "expiry.",
                    "--http-port", "0",
                    "--dcgm-discovery", "false",
                    "--intake-auth", "none"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    try (Collector collector = Collector.start(config, null, Clock.systemUTC());
        TopicReader<PodObservation> reader =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.pods.name(),
                topics.pods.valueSerde().deserializer())) {
      await().atMost(Duration.ofSeconds(30)).until(() -> collector.readiness().ready());

      List<ConsumerRecord<String, PodObservation>> records =
          reader.readUntil(r -> r.size() >= 5, Duration.ofSeconds(30));
      records = reader.readFor(Duration.ofSeconds(2));

      assertThat(records)
          .extracting(r -> r.key() + ":" + r.value().getChangeType())
          .containsExactlyInAnyOrder(
              "uid-a:RELIST", "uid-b:RELIST", "uid-a:MODIFIED", "uid-b:DELETED", "uid-c:ADDED");
      assertThat(
              records.stream()
                  .filter(
                      r ->
                          r.key().equals("uid-a")
                              && r.value().getChangeType() == ChangeType.MODIFIED))
          .singleElement()
          .satisfies(r -> assertThat(r.value().getNodeName()).isEqualTo("gpu-node-1"));
    }
  }
}
