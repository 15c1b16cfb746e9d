package io.schedlens.runs;

import io.schedlens.avro.DeadLetter;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The dead letters on the {@code schedlens.dlq} topic, read to its current end: counts by reason, a
 * first example of each, every letter as "reason source key" (sorted) and the keys they name (the
 * pods: {@code namespace/name} of samples and requests, the UID of observations and events).
 */
public record DeadLetterReader(
    Map<String, Integer> reasons,
    Map<String, String> examples,
    List<String> keys,
    List<String> pods) {

  public static DeadLetterReader read(Map<String, Object> kafka, Topics topics) {
    Map<String, Integer> reasons = new TreeMap<>();
    Map<String, String> examples = new TreeMap<>();
    List<String> keys = new ArrayList<>();
    TreeSet<String> pods = new TreeSet<>();
    try (KafkaConsumer<String, DeadLetter> consumer =
        TopicConsumers.fromBeginning(kafka, topics.deadLetters)) {
      TopicConsumers.readToEnd(
          consumer,
          r -> {
            DeadLetter d = r.value();
            if (d == null) {
              return;
            }
            String key =
                d.getKey() == null
                    ? null
                    : StandardCharsets.UTF_8.decode(d.getKey().duplicate()).toString();
            reasons.merge(d.getReason(), 1, Integer::sum);
            keys.add(d.getReason() + " " + d.getSource() + " " + (key == null ? "-" : key));
            examples.putIfAbsent(
                d.getReason(),
                d.getSource() + " " + (key == null ? "" : key) + ": " + d.getDetail());
            if (key != null && !key.isEmpty()) {
              pods.add(key);
            }
          });
    }
    Collections.sort(keys);
    return new DeadLetterReader(reasons, examples, keys, new ArrayList<>(pods));
  }
}
