package io.schedlens.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.util.FutureCallback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Kafka Connect worker, in-process in standalone mode, against the embedded broker: the
 * converter loaded from the plugin directory the build assembles, a sink connector, and Connect's
 * own Filter transform with the HasHeaderKey predicate keeping final timelines only.
 */
class ConnectWorkerIT {

  @TempDir Path dir;

  @Test
  void shouldWriteOnlyFinalTimelinesThroughTheConverterAndAHeaderPredicate() throws Exception {
    Path plugin = Path.of("target/plugin/schedlens-connect-converter");
    assertThat(plugin).as("the plugin directory of mvn package").isDirectory();
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      Topics topics = Topics.defaults();
      broker.createTopics(List.of(topics.podTimelines.newTopic(3, (short) 1)));
      OutputHeaders headers = OutputHeaders.of(PodTimeline.getClassSchema());
      List<String> finals = new ArrayList<>();
      try (KafkaProducer<String, PodTimeline> p =
          new KafkaProducer<>(
              Map.of("bootstrap.servers", broker.bootstrapServers()),
              new StringSerializer(),
              topics.podTimelines.valueSerde().serializer())) {
        for (int i = 0; i < 30; i++) {
          boolean fin = i % 3 == 0;
          PodTimeline t = SchedlensConverterTest.timeline();
          t.setUid("u-" + i);
          t.setFinal$(fin);
          if (fin) {
            finals.add(t.getUid());
          }
          // the headers as the streams app writes them
          p.send(
              new ProducerRecord<>(
                  topics.podTimelines.name(), null, t.getUid(), t, headers.headers(fin)));
        }
        p.flush();
      }

      Path out = dir.resolve("final-timelines.jsonl");
      Map<String, String> worker = new HashMap<>();
      worker.put("bootstrap.servers", broker.bootstrapServers());
      worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
      worker.put("value.converter", SchedlensConverter.class.getName());
      worker.put("offset.storage.file.filename", dir.resolve("offsets").toString());
      worker.put("offset.flush.interval.ms", "500");
      worker.put("plugin.path", plugin.getParent().toAbsolutePath().toString());
      worker.put("listeners", "http://127.0.0.1:0");
      Connect<StandaloneHerder> connect = new ConnectStandalone().startConnect(worker);
      try {
        // the worker found the converter in the plugin directory (it is on the classpath too)
        assertThat(connect.herder().plugins().converters())
            .filteredOn(d -> d.className().equals(SchedlensConverter.class.getName()))
            .extracting(d -> d.location())
            .anySatisfy(l -> assertThat(l).contains("schedlens-connect-converter"));
        Map<String, String> sink = new HashMap<>();
        sink.put("name", "final-timelines");
        sink.put("connector.class", JsonLinesSinkConnector.class.getName());
        sink.put("tasks.max", "1");
        sink.put("topics", topics.podTimelines.name());
        sink.put("file", out.toString());
        sink.put("transforms", "finalOnly");
        sink.put("transforms.finalOnly.type", "org.apache.kafka.connect.transforms.Filter");
        sink.put("transforms.finalOnly.predicate", "isFinal");
        sink.put("transforms.finalOnly.negate", "true");
        sink.put("predicates", "isFinal");
        sink.put(
            "predicates.isFinal.type",
            "org.apache.kafka.connect.transforms.predicates.HasHeaderKey");
        sink.put("predicates.isFinal.name", OutputHeaders.FINAL);
        FutureCallback<
                org.apache.kafka.connect.runtime.Herder.Created<
                    org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo>>
            created = new FutureCallback<>();
        connect.herder().putConnectorConfig("final-timelines", sink, true, created);
        created.get(30, TimeUnit.SECONDS);

        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> Files.exists(out) && Files.readAllLines(out).size() >= finals.size());
      } finally {
        connect.stop();
        connect.awaitStop();
      }

      ObjectMapper json = new ObjectMapper();
      List<JsonNode> rows = new ArrayList<>();
      for (String line : Files.readAllLines(out)) {
        rows.add(json.readTree(line));
      }
      assertThat(rows)
          .extracting(r -> r.get("uid").asText())
          .containsExactlyInAnyOrderElementsOf(finals);
      assertThat(rows).allMatch(r -> r.get("final").asBoolean());
      // a Timestamp reaches the sink as epoch milliseconds, a duration as itself
      assertThat(rows.get(0).get("createdAt").asLong()).isEqualTo(SchedlensConverterTest.T);
      assertThat(rows.get(0).get("pendingMs").asLong()).isEqualTo(1_500L);
      assertThat(rows.get(0).get("workload").get("name").asText()).isEqualTo("asr-batch");
    }
  }
}
