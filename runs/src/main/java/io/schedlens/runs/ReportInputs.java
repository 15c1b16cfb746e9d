package io.schedlens.runs;

import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.report.Conditions;
import io.schedlens.report.InputGaps;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigException;

/**
 * What {@code ./schedlens report} reads: the pod and workload timelines, the experiments'
 * conditions and the gaps under them, from a demo's or replay's output directory or from the
 * pipeline's topics.
 *
 * @param fileConditions conditions.json beside the files (with the GPUs a demo or replay saw); null
 *     when read from Kafka
 * @param configMaps the experiment ConfigMaps the collector wrote to Kafka; none from files
 */
public record ReportInputs(
    List<PodTimeline> timelines,
    List<WorkloadTimeline> workloads,
    Conditions fileConditions,
    List<ExperimentConfig> configMaps,
    InputGaps gaps) {

  /** The conditions of {@code experiment}: the file's, or those of its ConfigMaps. */
  public Conditions conditions(String experiment) {
    return fileConditions != null
        ? fileConditions
        : Conditions.of(experiment, configMaps, List.of());
  }

  /** From the directory (or timelines file) {@code from}. */
  public static ReportInputs fromFiles(String from) throws IOException {
    Path p = Path.of(from);
    Path dir = Files.isDirectory(p) ? p : p.toAbsolutePath().getParent();
    return new ReportInputs(
        timelines(p), workloads(dir), Conditions.read(dir), List.of(), InputGaps.read(dir));
  }

  /** From the pipeline's topics, each read to its current end. */
  public static ReportInputs fromKafka(Map<String, Object> kafka, Topics topics) {
    KafkaReachability.require(kafka, Duration.ofSeconds(10));
    Map<String, PodTimeline> latest = new LinkedHashMap<>();
    try (KafkaConsumer<String, PodTimeline> consumer =
        TopicConsumers.fromBeginning(kafka, topics.podTimelines)) {
      TopicConsumers.readToEnd(
          consumer,
          r -> {
            if (r.value() == null) {
              latest.remove(r.key());
            } else {
              latest.put(r.key(), r.value());
            }
          });
    }
    DeadLetterReader d = DeadLetterReader.read(kafka, topics);
    return new ReportInputs(
        new ArrayList<>(latest.values()),
        new ArrayList<>(WorkloadTimelineReader.readAll(kafka, topics).values()),
        null,
        ConditionsReader.configMaps(kafka, topics),
        new InputGaps(Map.of(), d.reasons(), d.pods()));
  }

  private static List<PodTimeline> timelines(Path p) throws IOException {
    if (Files.isDirectory(p)
        && !Files.exists(p.resolve(TimelinesFile.NAME))
        && Files.exists(p.resolve("simulator-truth.jsonl"))) {
      throw new ConfigException(
          p
              + " is the --out of simulate: it holds the simulator's ground truth"
              + " (simulator-truth.jsonl) and the report made from it (report.md, report.json), not"
              + " pipeline timelines; report reads a demo's or replay's --out (timelines.jsonl)");
    }
    if (!Files.isReadable(Files.isDirectory(p) ? p.resolve(TimelinesFile.NAME) : p)) {
      throw new ConfigException(
          "cannot read "
              + p
              + ": give a directory with timelines.jsonl (a demo's or replay's --out) or the file");
    }
    try {
      return TimelinesFile.read(p);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The workload timelines beside the pod timelines: none when the file is not there. */
  private static List<WorkloadTimeline> workloads(Path dir) throws IOException {
    try {
      return WorkloadsFile.read(dir.resolve(WorkloadsFile.NAME));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }
}
