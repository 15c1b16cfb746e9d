package io.schedlens.cli.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code report --from kafka}: the latest timeline per pod from the topic, on a real broker. */
class ReportFromKafkaIT {

  @TempDir Path dir;

  @Test
  void shouldReportTheLatestTimelineOfEveryPodOnTheTopic() throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      Topics topics = Topics.defaults();
      broker.createTopics(List.of(topics.podTimelines.newTopic(3, (short) 1)));
      try (KafkaProducer<String, PodTimeline> p =
          new KafkaProducer<>(
              Map.of("bootstrap.servers", broker.bootstrapServers()),
              new StringSerializer(),
              topics.podTimelines.valueSerde().serializer())) {
        for (int r = 1; r <= 2; r++) {
          for (String arm : List.of("control", "treatment")) {
            // an early version first, then the final one: the report must use the latter
            PodTimeline early = ReportCommandTest.pod("day08", arm, r, "chat", "Deployment", 1, 0);
            early.setFinal$(false);
            early.setPendingMs(null);
            PodTimeline last =
                ReportCommandTest.pod(
                    "day08",
                    arm,
                    r,
                    "chat",
                    "Deployment",
                    arm.equals("control") ? 120_000 : 3_000,
                    0);
            for (PodTimeline t : List.of(early, last)) {
              PodTimeline wire = PodTimeline.newBuilder(t).build();
              p.send(new ProducerRecord<>(topics.podTimelines.name(), wire.getUid(), wire));
            }
          }
        }
        p.flush();
      }
      Path out = dir.resolve("out");
      ByteArrayOutputStream console = new ByteArrayOutputStream();
      int exit =
          ReportCommand.run(
              List.of("--from", "kafka", "--out", out.toString()),
              Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()),
              new PrintStream(console, true, StandardCharsets.UTF_8));
      assertThat(exit).as(console.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(Files.readString(out.resolve("report.md")))
          .contains("From 4 pod timelines of kafka.")
          .contains(
              "chat: pending p95 3 s in treatment against 2 min 00 s in control — better, larger than the spread between repeats.");
    }
  }
}
