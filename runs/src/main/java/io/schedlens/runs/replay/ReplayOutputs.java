package io.schedlens.runs.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.report.Conditions;
import io.schedlens.report.ExperimentReport;
import io.schedlens.report.InputGaps;
import io.schedlens.report.PodFacts;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** What a replay leaves: the pods it ended on closed, the timelines, the report, the summary. */
final class ReplayOutputs {

  private final ReplayConfig config;

  ReplayOutputs(ReplayConfig config) {
    this.config = config;
  }

  /**
   * Closes the timelines of the pods the recording ended on (running, pending, or finished but not
   * deleted, as a Job's pods stay until their Job goes): final, marked {@link
   * Replay#END_OF_RECORDING}, their numbers as of their latest input; published to the
   * pod-timelines topic after the streams app stopped, so that {@code export} and {@code report
   * --from kafka} over the replay's topics see them as the files do. Returns how many.
   */
  static int closeAtEndOfRecording(
      Map<String, Object> kafka, Topics topics, Map<String, PodTimeline> timelines) {
    Map<String, PodTimeline> cut = new TreeMap<>();
    timelines.forEach(
        (uid, t) -> {
          if (!t.getFinal$()) {
            cut.put(uid, endOfRecording(t));
          }
        });
    if (cut.isEmpty()) {
      return 0;
    }
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<String, PodTimeline> producer =
        new KafkaProducer<>(
            p, new StringSerializer(), AvroSerde.of(PodTimeline.class).serializer())) {
      cut.forEach(
          (uid, t) ->
              producer.send(
                  new ProducerRecord<>(
                      topics.podTimelines.name(), null, t.getUpdatedAt(), uid, t)));
      producer.flush();
    }
    timelines.putAll(cut);
    return cut.size();
  }

  /** The final timeline of a pod the recording ended on. */
  static PodTimeline endOfRecording(PodTimeline t) {
    return PodTimeline.newBuilder(t).setFinal$(true).setEndedBy(Replay.END_OF_RECORDING).build();
  }

  ExperimentReport write(
      Map<String, PodTimeline> timelines,
      Map<String, WorkloadTimeline> workloads,
      Conditions conditions,
      Map<String, Integer> produced,
      Unusable unusable,
      InputGaps gaps,
      Path dir)
      throws IOException {
    List<PodTimeline> ordered = TimelinesFile.write(dir, timelines.values());
    String experiment =
        ordered.stream()
            .map(PodTimeline::getExperiment)
            .filter(e -> e != null)
            .findFirst()
            .orElse("replay");
    ExperimentReport report =
        ExperimentReport.of(
                experiment,
                ordered.stream().map(PodFacts::of).toList(),
                config.getDuration(StreamsAppConfig.STARVATION_PENDING).toMillis(),
                workloads.values())
            .withConditions(conditions);
    StringBuilder intro = new StringBuilder(gaps.markdown());
    if (!gaps.isEmpty()) {
      intro.append('\n');
    }
    intro.append("Replay of recorded data: ");
    intro.append(String.join(", ", config.getList(ReplayConfig.PODS)));
    if (!config.getList(ReplayConfig.EVENTS).isEmpty()) {
      intro.append(" and ").append(String.join(", ", config.getList(ReplayConfig.EVENTS)));
    }
    intro.append(".\n\nInputs used: ").append(produced).append(". ");
    intro.append(
        unusable.isEmpty() ? "Nothing unusable." : "Unusable input: " + unusable.counts() + ".");
    if (!gaps.deadLetters().isEmpty()) {
      intro.append(" Dead-lettered by the streams app: ").append(gaps.deadLetters()).append('.');
    }
    long cut =
        timelines.values().stream()
            .filter(t -> Replay.END_OF_RECORDING.equals(t.getEndedBy()))
            .count();
    if (cut > 0) {
      intro.append(
          String.format(
              " %d pods were still there when the recording ended: their timelines are closed"
                  + " there (`endedBy: %s`), their numbers as of their latest recorded input.",
              cut, Replay.END_OF_RECORDING));
    }
    ReportWriter.writeAll(dir, report, intro.toString(), config.getList(ReplayConfig.GUARDRAILS));
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("inputs", produced);
    summary.put("unusable", unusable.counts());
    summary.put("unusableExamples", unusable.examples());
    summary.put("deadLetters", gaps.deadLetters());
    summary.putAll(gaps.toSummary());
    summary.put("pods", timelines.size());
    summary.put(
        "finalTimelines", timelines.values().stream().filter(PodTimeline::getFinal$).count());
    summary.put("endedByEndOfRecording", cut);
    Files.writeString(
        dir.resolve(InputGaps.REPLAY_SUMMARY),
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary) + "\n");
    return report;
  }
}
