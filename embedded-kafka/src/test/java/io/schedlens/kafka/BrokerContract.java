package io.schedlens.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What schedlens needs from any Kafka broker, checked against the embedded broker and, where Docker
 * exists, against Testcontainers Kafka.
 */
abstract class BrokerContract {

  static final Topics TOPICS = Topics.defaults();

  abstract String bootstrapServers();

  @TempDir java.nio.file.Path stateDir;

  @Test
  void shouldReturnAnAvroRecordFromAnIdempotentProducerToAReadCommittedConsumer() throws Exception {
    PodObservation pod =
        PodObservation.newBuilder()
            .setUid(UUID.randomUUID().toString())
            .setNamespace("ai-lab")
            .setName("interactive-inference-0")
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(1_700_000_001_000L)
            .setCreatedAt(1_700_000_000_000L)
            .setGpus(1)
            .setPriorityClassName("interactive")
            .setPriority(100000)
            .build();

    RecordMetadata sent;
    try (KafkaProducer<String, PodObservation> producer =
        new KafkaProducer<>(
            producerSettings(),
            Serdes.String().serializer(),
            TOPICS.pods.valueSerde().serializer())) {
      sent = producer.send(new ProducerRecord<>(TOPICS.pods.name(), pod.getUid(), pod)).get();
    }

    List<ConsumerRecord<String, PodObservation>> received =
        consume(TOPICS.pods.name(), TOPICS.pods.valueSerde().deserializer(), 1);
    assertThat(received)
        .anySatisfy(
            r -> {
              assertThat(r.key()).isEqualTo(pod.getUid());
              assertThat(r.value()).isEqualTo(pod);
              assertThat(r.offset()).isEqualTo(sent.offset());
            });
  }

  @Test
  void shouldRoundTripThroughAnExactlyOnceStreamsApp() throws Exception {
    String output = "roundtrip-out-" + UUID.randomUUID();
    createTopic(output);
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(
            TOPICS.requests.name(),
            Consumed.with(Serdes.String(), TOPICS.requests.valueSerde()).withName("requests-in"))
        .filter((k, v) -> v.getStatus() != null && v.getStatus() >= 500, Named.as("only-errors"))
        .mapValues(v -> v.getRequestId(), Named.as("request-id"))
        .to(output, Produced.with(Serdes.String(), Serdes.String()).withName("errors-out"));

    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "roundtrip-" + UUID.randomUUID());
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

    try (KafkaStreams streams = new KafkaStreams(builder.build(), props);
        KafkaProducer<String, RequestLog> producer =
            new KafkaProducer<>(
                producerSettings(),
                Serdes.String().serializer(),
                TOPICS.requests.valueSerde().serializer())) {
      streams.start();
      for (int i = 0; i < 10; i++) {
        RequestLog log =
            RequestLog.newBuilder()
                .setTime(1_700_000_000_000L + i)
                .setNamespace("ai-lab")
                .setPod("interactive-inference-0")
                .setStatus(i % 3 == 0 ? 503 : 200)
                .setLatencyMs(40.0 + i)
                .setRequestId("req-" + i)
                .setReceivedAt(1_700_000_000_500L)
                .build();
        producer.send(
            new ProducerRecord<>(TOPICS.requests.name(), "ai-lab/interactive-inference-0", log));
      }
      producer.flush();

      List<ConsumerRecord<String, String>> errors =
          consume(output, Serdes.String().deserializer(), 4);
      assertThat(errors)
          .extracting(ConsumerRecord::value)
          .containsExactly("req-0", "req-3", "req-6", "req-9");
      streams.close(Duration.ofSeconds(10));
    }
  }

  abstract void createTopic(String name);

  Map<String, Object> producerSettings() {
    return Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers(),
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        true,
        ProducerConfig.ACKS_CONFIG,
        "all");
  }

  <V> List<ConsumerRecord<String, V>> consume(
      String topic, org.apache.kafka.common.serialization.Deserializer<V> values, int atLeast) {
    Map<String, Object> settings =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "contract-" + UUID.randomUUID(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed");
    List<ConsumerRecord<String, V>> out = new ArrayList<>();
    try (KafkaConsumer<String, V> consumer =
        new KafkaConsumer<>(settings, Serdes.String().deserializer(), values)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (out.size() < atLeast && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }
}
