package io.schedlens.runs.demo;

import io.schedlens.avro.PodTimeline;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Reads {@code schedlens.pod-timelines} from the beginning (read_committed: only what the streams
 * app committed) and keeps each pod's final timeline, as a warehouse loader would.
 */
public final class TimelineCollector implements AutoCloseable {

  private final KafkaConsumer<String, PodTimeline> consumer;
  private final Map<String, PodTimeline> finals = new HashMap<>();
  private long records;

  public TimelineCollector(Map<String, Object> kafka, Topics topics) {
    consumer = TopicConsumers.fromBeginning(kafka, topics.podTimelines);
  }

  /** Reads what is there now. */
  void poll(Duration wait) {
    for (ConsumerRecord<String, PodTimeline> r : consumer.poll(wait)) {
      records++;
      if (r.value() != null && r.value().getFinal$()) {
        finals.put(r.key(), r.value());
      }
    }
  }

  /**
   * Reads until every pod of {@code expected} has its final timeline or {@code timeout} passes;
   * reports progress about every five seconds.
   */
  public Map<String, PodTimeline> awaitFinals(
      Set<String> expected, Duration timeout, Consumer<String> progress) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextReport = System.nanoTime() + 5_000_000_000L;
    while (System.nanoTime() < deadline) {
      poll(Duration.ofMillis(200));
      long have = expected.stream().filter(finals::containsKey).count();
      if (have == expected.size()) {
        break;
      }
      if (System.nanoTime() > nextReport) {
        progress.accept(
            "waiting for final timelines: "
                + have
                + "/"
                + expected.size()
                + " (each waits out the grace period after its pod is gone)");
        nextReport = System.nanoTime() + 5_000_000_000L;
      }
    }
    return Map.copyOf(finals);
  }

  long records() {
    return records;
  }

  int finals() {
    return finals.size();
  }

  @Override
  public void close() {
    consumer.close();
  }
}
