package io.schedlens.runs;

import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.GpuSample;
import io.schedlens.report.Conditions;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The report header's conditions from Kafka: the experiment ConfigMaps the collector read and,
 * where asked, the GPU models of the DCGM samples (the demo's and replay's own broker: a production
 * topic holds a week of samples, too many to read for a header).
 */
public final class ConditionsReader {

  private ConditionsReader() {}

  /** Every experiment ConfigMap on the topic, read to its end. */
  public static List<ExperimentConfig> configMaps(Map<String, Object> kafka, Topics topics) {
    List<ExperimentConfig> out = new ArrayList<>();
    try (KafkaConsumer<String, ExperimentConfig> consumer =
        TopicConsumers.fromBeginning(kafka, topics.experiments)) {
      TopicConsumers.readToEnd(
          consumer,
          r -> {
            if (r.value() != null) {
              out.add(r.value());
            }
          });
    }
    return out;
  }

  /** The conditions of {@code experiment}, with the GPU models of every sample on the topic. */
  public static Conditions withGpus(Map<String, Object> kafka, Topics topics, String experiment) {
    List<GpuSample> models = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    try (KafkaConsumer<String, GpuSample> consumer =
        TopicConsumers.fromBeginning(kafka, topics.gpuSamples)) {
      TopicConsumers.readToEnd(
          consumer,
          r -> {
            GpuSample s = r.value();
            if (s != null && seen.add(s.getNode() + "|" + s.getModelName())) {
              models.add(s);
            }
          });
    }
    return Conditions.of(experiment, configMaps(kafka, topics), models);
  }
}
