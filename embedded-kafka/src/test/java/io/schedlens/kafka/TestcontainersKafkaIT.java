package io.schedlens.kafka;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The same broker contract on Testcontainers Kafka. Runs only where a Docker engine answers; on the
 * development machines and CI here there is none, and JUnit reports it skipped for that reason.
 */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersKafkaIT extends BrokerContract {

  @Container static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.0");

  @BeforeAll
  static void createTopics() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.getBootstrapServers()))) {
      admin.createTopics(TOPICS.newTopics(1, (short) 1)).all().get();
    }
  }

  @Override
  String bootstrapServers() {
    return KAFKA.getBootstrapServers();
  }

  @Override
  void createTopic(String name) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.getBootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
