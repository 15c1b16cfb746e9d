package io.schedlens.runs;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Reads {@code schedlens.workload-timelines} whole (read_committed), keeping the latest timeline of
 * each workload.
 */
public final class WorkloadTimelineReader {

  private WorkloadTimelineReader() {}

  /** The latest timeline of each workload on the topic, read to its current end. */
  public static Map<String, WorkloadTimeline> readAll(Map<String, Object> kafka, Topics topics) {
    Map<String, WorkloadTimeline> latest = new LinkedHashMap<>();
    try (KafkaConsumer<String, WorkloadTimeline> consumer =
        TopicConsumers.fromBeginning(kafka, topics.workloadTimelines)) {
      TopicConsumers.readToEnd(consumer, r -> WorkloadsFile.keepLatest(latest, r.value()));
    }
    return latest;
  }

  /**
   * The latest timeline of each workload, once nothing new came for {@code quiet}: right after the
   * pods' finals are in, the workload stage hears of each final one hop later, and emits errors and
   * breaches at its next flush.
   */
  public static Map<String, WorkloadTimeline> readUntilQuiet(
      Map<String, Object> kafka, Topics topics, Duration quiet, Duration timeout) {
    Map<String, WorkloadTimeline> latest = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastNews = System.nanoTime();
    try (KafkaConsumer<String, WorkloadTimeline> consumer =
        TopicConsumers.fromBeginning(kafka, topics.workloadTimelines)) {
      while (System.nanoTime() < deadline && System.nanoTime() - lastNews < quiet.toNanos()) {
        for (ConsumerRecord<String, WorkloadTimeline> r : consumer.poll(Duration.ofMillis(200))) {
          WorkloadsFile.keepLatest(latest, r.value());
          lastNews = System.nanoTime();
        }
      }
    }
    return latest;
  }
}
