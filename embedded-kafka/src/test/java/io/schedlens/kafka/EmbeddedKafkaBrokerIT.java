package io.schedlens.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaBrokerIT extends BrokerContract {

  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    long before = heapAfterGc();
    broker = EmbeddedKafkaBroker.start();
    long after = heapAfterGc();
    System.out.printf(
        "embedded Kafka broker: ready in %d ms; live heap after GC grew by %d MiB (%d -> %d MiB)%n",
        broker.lastStartup().toMillis(), (after - before) >> 20, before >> 20, after >> 20);
    broker.createTopics(TOPICS.newTopics(1, (short) 1));
  }

  static long heapAfterGc() {
    var memory = java.lang.management.ManagementFactory.getMemoryMXBean();
    memory.gc();
    memory.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  @Override
  void createTopic(String name) {
    broker.createTopics(List.of(new NewTopic(name, 1, (short) 1)));
  }

  @Test
  void shouldCreateTheTimelinesTopicCompacted() throws Exception {
    try (Admin admin = broker.admin()) {
      ConfigResource resource =
          new ConfigResource(ConfigResource.Type.TOPIC, TOPICS.podTimelines.name());
      var config =
          admin.describeConfigs(List.of(resource)).all().get(10, TimeUnit.SECONDS).get(resource);
      assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
    }
  }

  /**
   * A record of a day a month past, in a topic that keeps a week as the inputs do, is still there
   * after the time Kafka's first retention check would run (30 s after the start): recordings and
   * scenarios of fixed days stay readable however far the clock has moved on.
   */
  @Test
  void shouldKeepRecordsOfADayLongPastInATopicThatKeepsAWeek() throws Exception {
    TopicPartition tp = new TopicPartition("a-month-ago", 0);
    broker.createTopics(
        List.of(
            new NewTopic(tp.topic(), 1, (short) 1)
                .configs(Map.of("retention.ms", Long.toString(Duration.ofDays(7).toMillis())))));
    long monthAgo = System.currentTimeMillis() - Duration.ofDays(30).toMillis();
    Map<String, Object> producer =
        Map.of(
            "bootstrap.servers", broker.bootstrapServers(),
            "key.serializer", StringSerializer.class.getName(),
            "value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
      p.send(new ProducerRecord<>(tp.topic(), 0, monthAgo, "k", "v")).get(30, TimeUnit.SECONDS);
    }
    // The record stays the partition's first all through the time past the first check (from the
    // start, or from another test's restart of the broker).
    try (Admin admin = broker.admin()) {
      await()
          .during(Duration.ofSeconds(35))
          .atMost(Duration.ofSeconds(45))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () ->
                  assertThat(
                          admin
                              .listOffsets(Map.of(tp, OffsetSpec.earliest()))
                              .partitionResult(tp)
                              .get(30, TimeUnit.SECONDS)
                              .offset())
                      .as("the record a month old is not deleted")
                      .isZero());
    }
  }

  @Test
  void shouldComeBackOnTheSamePortWithItsDataAfterAStop() throws Exception {
    String before = broker.bootstrapServers();
    createTopic("survives-restart");

    broker.stop();
    assertThat(broker.isRunning()).isFalse();
    broker.restart();

    assertThat(broker.bootstrapServers()).isEqualTo(before);
    try (Admin admin = broker.admin()) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("survives-restart");
    }
  }

  @Test
  void shouldLeaveExistingTopicsAlone() {
    broker.createTopics(TOPICS.newTopics(1, (short) 1));
    broker.createTopics(List.of(new NewTopic(TOPICS.pods.name(), 3, (short) 1).configs(Map.of())));
  }
}
