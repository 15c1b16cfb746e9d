package io.schedlens.export;

import io.schedlens.avro.PodTimeline;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads {@code schedlens.pod-timelines} (read_committed: only what the streams app committed) and
 * hands every final timeline to a sink, which stores the offsets with the data. No consumer group:
 * the sink's offsets are the only position, so a restart resumes exactly after what was written.
 */
public final class Exporter implements AutoCloseable {

  /** What an export run did. */
  public record Result(long read, long exported) {}

  private final ExportConfig config;
  private final TimelineSink sink;
  private final Topics topics;
  private final PrintStream out;
  private final PrintStream progress;
  private volatile boolean stopping;

  public Exporter(ExportConfig config, TimelineSink sink, PrintStream out) {
    this(config, sink, out, out);
  }

  /**
   * @param out the summary when done
   * @param progress where it resumes and how far it got, every 5 s (the launcher: standard error)
   */
  public Exporter(ExportConfig config, TimelineSink sink, PrintStream out, PrintStream progress) {
    this.progress = progress;
    this.config = config;
    this.sink = sink;
    this.topics = Topics.withPrefix(config.getString(ExportConfig.TOPIC_PREFIX));
    this.out = out;
  }

  /** The sink the configuration names. */
  public static TimelineSink sinkFor(ExportConfig config) throws Exception {
    String topic =
        Topics.withPrefix(config.getString(ExportConfig.TOPIC_PREFIX)).podTimelines.name();
    if (config.toJdbc()) {
      Properties p = new Properties();
      if (!config.getString(ExportConfig.JDBC_USER).isEmpty()) {
        p.setProperty("user", config.getString(ExportConfig.JDBC_USER));
      }
      String password = config.getPassword(ExportConfig.JDBC_PASSWORD).value();
      if (!password.isEmpty()) {
        p.setProperty("password", password);
      }
      return new JdbcSink(
          config.getString(ExportConfig.TO),
          p,
          topic,
          config.getBoolean(ExportConfig.JDBC_CREATE_TABLES));
    }
    return new AvroFileSink(Path.of(config.getString(ExportConfig.TO)), topic);
  }

  public Result run() throws Exception {
    KafkaReachability.require(config.kafkaClientSettings(), Duration.ofSeconds(10));
    Map<String, Object> c = new HashMap<>(config.kafkaClientSettings());
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.getInt(ExportConfig.MAX_POLL_RECORDS));
    long read = 0;
    long exported = 0;
    long nextReport = System.nanoTime() + 5_000_000_000L;
    try (KafkaConsumer<String, PodTimeline> consumer =
        TopicConsumers.assigned(c, topics.podTimelines)) {
      List<TopicPartition> parts = List.copyOf(consumer.assignment());
      Map<Integer, Long> committed = sink.committedOffsets();
      for (TopicPartition tp : parts) {
        Long next = committed.get(tp.partition());
        if (next == null) {
          consumer.seekToBeginning(List.of(tp));
        } else {
          consumer.seek(tp, next);
        }
      }
      progress.printf(
          "export: %s -> %s, resuming at %s%n",
          topics.podTimelines.name(),
          config.getString(ExportConfig.TO),
          committed.isEmpty() ? "the beginning" : committed);
      boolean stopAtEnd = config.getBoolean(ExportConfig.STOP_AT_END);
      Map<TopicPartition, Long> end = stopAtEnd ? consumer.endOffsets(parts) : Map.of();
      // Finals accumulate over polls into one commit (fewer, larger files; fewer transactions),
      // up to flush.records or flush.interval; nothing counts as exported before its commit.
      List<TimelineSink.Exported> pending = new ArrayList<>();
      Map<Integer, Long> next = new HashMap<>();
      long flushRecords = config.getInt(ExportConfig.FLUSH_RECORDS);
      long flushNanos = config.getDuration(ExportConfig.FLUSH_INTERVAL).toNanos();
      long firstPendingAt = 0;
      while (true) {
        ConsumerRecords<String, PodTimeline> batch = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, PodTimeline> r : batch) {
          read++;
          if (r.value() != null && r.value().getFinal$()) {
            if (pending.isEmpty()) {
              firstPendingAt = System.nanoTime();
            }
            pending.add(new TimelineSink.Exported(r.partition(), r.offset(), r.value()));
          }
        }
        // positions, not last offsets + 1: transaction markers take offsets too
        for (TopicPartition tp : parts) {
          long position = consumer.position(tp);
          if (!Long.valueOf(position).equals(committed.get(tp.partition()))) {
            next.put(tp.partition(), position);
          }
        }
        boolean atEnd =
            stopAtEnd && parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
        boolean due =
            pending.size() >= flushRecords
                || (!pending.isEmpty() && System.nanoTime() - firstPendingAt >= flushNanos)
                || (pending.isEmpty() && !next.isEmpty() && flushNanos == 0);
        if (!next.isEmpty() && (due || atEnd || stopping)) {
          sink.write(pending, next);
          committed = new HashMap<>(committed);
          committed.putAll(next);
          exported += pending.size();
          pending = new ArrayList<>();
          next = new HashMap<>();
        }
        if (System.nanoTime() > nextReport) {
          progress.printf(
              "export: %,d records read, %,d final timelines exported, %,d waiting for the next commit%n",
              read, exported, pending.size());
          nextReport = System.nanoTime() + 5_000_000_000L;
        }
        if (atEnd || stopping) {
          break;
        }
      }
    }
    out.printf("export: done: %,d records read, %,d final timelines exported%n", read, exported);
    return new Result(read, exported);
  }

  /** Asks a running export to stop after its current batch. */
  public void stop() {
    stopping = true;
  }

  @Override
  public void close() throws Exception {
    sink.close();
  }
}
