package io.schedlens.export;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.schemas.TopicConsumers;
import io.schedlens.schemas.Topics;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads {@code schedlens.pod-timelines} and {@code schedlens.workload-timelines} (read_committed:
 * only what the streams app committed) and hands every final pod timeline and the latest timeline
 * of every workload that changed to a sink, which stores the offsets with the data. No consumer
 * group: the sink's offsets are the only position, so a restart resumes exactly after what was
 * written.
 */
public final class Exporter implements AutoCloseable {

  /**
   * What an export run did.
   *
   * @param exported final pod timelines written
   * @param workloads workload timelines written (the latest of each key per commit)
   */
  public record Result(long read, long exported, long workloads) {}

  private final ExportConfig config;
  private final WarehouseSink sink;
  private final Topics topics;
  private final PrintStream out;
  private final PrintStream progress;
  private volatile boolean stopping;

  public Exporter(ExportConfig config, WarehouseSink sink, PrintStream out) {
    this(config, sink, out, out);
  }

  /**
   * @param out the summary when done
   * @param progress where it resumes and how far it got, every 5 s (the launcher: standard error)
   */
  public Exporter(ExportConfig config, WarehouseSink sink, PrintStream out, PrintStream progress) {
    this.progress = progress;
    this.config = config;
    this.sink = sink;
    this.topics = Topics.withPrefix(config.getString(ExportConfig.TOPIC_PREFIX));
    this.out = out;
  }

  /** The sink the configuration names. */
  public static WarehouseSink sinkFor(ExportConfig config) throws Exception {
    Topics topics = Topics.withPrefix(config.getString(ExportConfig.TOPIC_PREFIX));
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
          config.getString(ExportConfig.TO), p, config.getBoolean(ExportConfig.JDBC_CREATE_TABLES));
    }
    return new FileSink(
        Path.of(config.getString(ExportConfig.TO)),
        config.format(),
        topics.podTimelines.name(),
        topics.workloadTimelines.name());
  }

  public Result run() throws Exception {
    KafkaReachability.require(config.kafkaClientSettings(), Duration.ofSeconds(10));
    Map<String, Object> c = new HashMap<>(config.kafkaClientSettings());
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.getInt(ExportConfig.MAX_POLL_RECORDS));
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    long read = 0;
    long exported = 0;
    long exportedWorkloads = 0;
    long nextReport = System.nanoTime() + 5_000_000_000L;
    try (KafkaConsumer<String, Object> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), byTopic())) {
      List<TopicPartition> parts = new ArrayList<>();
      parts.addAll(TopicConsumers.partitions(consumer, topics.podTimelines.name()));
      parts.addAll(TopicConsumers.partitions(consumer, topics.workloadTimelines.name()));
      Map<TopicPartition, Long> committed = resume(consumer, parts);
      boolean stopAtEnd = config.getBoolean(ExportConfig.STOP_AT_END);
      Map<TopicPartition, Long> end = stopAtEnd ? consumer.endOffsets(parts) : Map.of();
      long flushRecords = config.getInt(ExportConfig.FLUSH_RECORDS);
      long flushNanos = config.getDuration(ExportConfig.FLUSH_INTERVAL).toNanos();
      Pending pending = new Pending();
      while (true) {
        for (ConsumerRecord<String, Object> r : consumer.poll(Duration.ofMillis(500))) {
          read++;
          pending.add(r);
        }
        // positions, not last offsets + 1: transaction markers take offsets too
        for (TopicPartition tp : parts) {
          long position = consumer.position(tp);
          if (!Long.valueOf(position).equals(committed.get(tp))) {
            pending.next.put(tp, position);
          }
        }
        boolean atEnd =
            stopAtEnd && parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
        if (!pending.next.isEmpty()
            && (pending.due(flushRecords, flushNanos) || atEnd || stopping)) {
          sink.write(
              new WarehouseSink.Batch(
                  pending.pods, List.copyOf(pending.workloads.values()), pending.next));
          committed.putAll(pending.next);
          exported += pending.pods.size();
          exportedWorkloads += pending.workloads.size();
          pending = new Pending();
        }
        if (System.nanoTime() > nextReport) {
          progress.printf(
              "export: %,d records read, %,d final pod timelines and %,d workload timelines"
                  + " exported, %,d waiting for the next commit%n",
              read, exported, exportedWorkloads, pending.waiting());
          nextReport = System.nanoTime() + 5_000_000_000L;
        }
        if (atEnd || stopping) {
          break;
        }
      }
    }
    out.printf(
        "export: done: %,d records read, %,d final pod timelines and %,d workload timelines"
            + " exported%n",
        read, exported, exportedWorkloads);
    return new Result(read, exported, exportedWorkloads);
  }

  /**
   * What the next commit writes. Records accumulate over polls into one commit (fewer, larger
   * files; fewer transactions), up to flush.records or flush.interval; nothing counts as exported
   * before its commit.
   */
  private static final class Pending {
    final List<WarehouseSink.Exported<PodTimeline>> pods = new ArrayList<>();
    final Map<String, WarehouseSink.Exported<WorkloadTimeline>> workloads = new LinkedHashMap<>();
    final Map<TopicPartition, Long> next = new HashMap<>();
    long firstAt = 0;

    void add(ConsumerRecord<String, Object> r) {
      boolean before = waiting() > 0;
      if (r.value() instanceof PodTimeline t && t.getFinal$()) {
        pods.add(new WarehouseSink.Exported<>(r.partition(), r.offset(), r.key(), t));
      } else if (r.value() instanceof WorkloadTimeline w) {
        // the latest of each workload in this commit; a key's versions are in order
        String key = WarehouseTables.workloadKey(w);
        workloads.remove(key);
        workloads.put(key, new WarehouseSink.Exported<>(r.partition(), r.offset(), key, w));
      }
      if (!before && waiting() > 0) {
        firstAt = System.nanoTime();
      }
    }

    int waiting() {
      return pods.size() + workloads.size();
    }

    boolean due(long flushRecords, long flushNanos) {
      int waiting = waiting();
      return waiting >= flushRecords
          || (waiting > 0 && System.nanoTime() - firstAt >= flushNanos)
          || (waiting == 0 && !next.isEmpty() && flushNanos == 0);
    }
  }

  /** Assigns {@code parts} and seeks each after its committed offset; returns those offsets. */
  private Map<TopicPartition, Long> resume(
      KafkaConsumer<String, Object> consumer, List<TopicPartition> parts) throws Exception {
    consumer.assign(parts);
    Map<TopicPartition, Long> committed = new HashMap<>(sink.committedOffsets());
    for (TopicPartition tp : parts) {
      Long next = committed.get(tp);
      if (next == null) {
        consumer.seekToBeginning(List.of(tp));
      } else {
        consumer.seek(tp, next);
      }
    }
    progress.printf(
        "export: %s and %s -> %s, resuming %s%n",
        topics.podTimelines.name(),
        topics.workloadTimelines.name(),
        config.getString(ExportConfig.TO),
        committed.isEmpty()
            ? "at the beginning"
            : "after " + committed.size() + " partitions' offsets");
    return committed;
  }

  /** Values decoded by their topic: pod timelines or workload timelines. */
  private Deserializer<Object> byTopic() {
    Deserializer<PodTimeline> pods = TopicConsumers.dataOnly(topics.podTimelines);
    Deserializer<WorkloadTimeline> workloads = TopicConsumers.dataOnly(topics.workloadTimelines);
    String podTopic = topics.podTimelines.name();
    return new Deserializer<>() {
      @Override
      public Object deserialize(String topic, byte[] data) {
        return topic.equals(podTopic)
            ? pods.deserialize(topic, data)
            : workloads.deserialize(topic, data);
      }

      @Override
      public Object deserialize(String topic, Headers headers, byte[] data) {
        return topic.equals(podTopic)
            ? pods.deserialize(topic, headers, data)
            : workloads.deserialize(topic, headers, data);
      }
    };
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
