package io.schedlens.bench;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.base.DisruptionCause;
import io.schedlens.base.Outcome;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.export.ExportConfig;
import io.schedlens.export.Exporter;
import io.schedlens.export.FileFormat;
import io.schedlens.export.FileSink;
import io.schedlens.export.WarehouseSink;
import io.schedlens.export.WarehouseTables;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;

/**
 * The export's write rate and file sizes: {@code N} realistic final pod timelines (a week of a
 * cluster: batch and serving pods, a tenth preempted, pending reasons, latencies) written by the
 * file sink in commits of 50,000 (the default flush.records) as Parquet and as Avro, and with
 * {@code kafka}, the whole export from an embedded broker (6 partitions) to Parquet.
 *
 * <p>With {@code columns}, where the Parquet table's bytes go, column by column.
 *
 * <pre>java -Xmx3g -cp "$CP" io.schedlens.bench.ExportLoad 1000000 [kafka] [columns]</pre>
 */
public final class ExportLoad {

  static final long T0 = 1_764_000_000_000L;
  static final int PARTITIONS = 6;

  private ExportLoad() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    List<String> options = List.of(args).subList(Math.min(1, args.length), args.length);
    boolean kafka = options.contains("kafka");
    boolean columns = options.contains("columns");
    System.out.printf("export load: %,d final pod timelines%n", n);
    List<PodTimeline> rows = timelines(n);
    Topics topics = Topics.defaults();
    long[] sizes = new long[2];
    for (FileFormat format : List.of(FileFormat.PARQUET, FileFormat.AVRO)) {
      Path dir = Files.createTempDirectory("schedlens-export-load-");
      try {
        FileSink sink =
            new FileSink(dir, format, topics.podTimelines.name(), topics.workloadTimelines.name());
        long t0 = System.nanoTime();
        long[] offsets = new long[PARTITIONS];
        for (int from = 0; from < n; from += 50_000) {
          List<WarehouseSink.Exported<PodTimeline>> batch = new ArrayList<>();
          for (int i = from; i < Math.min(n, from + 50_000); i++) {
            int p = i % PARTITIONS;
            batch.add(
                new WarehouseSink.Exported<>(p, offsets[p]++, rows.get(i).getUid(), rows.get(i)));
          }
          Map<TopicPartition, Long> next = new HashMap<>();
          for (int p = 0; p < PARTITIONS; p++) {
            next.put(new TopicPartition(topics.podTimelines.name(), p), offsets[p]);
          }
          sink.write(WarehouseSink.Batch.ofPods(batch, next));
          if ((from / 50_000) % 4 == 3) {
            System.err.printf(
                "  %s: %,d rows, %.0f s%n", format.extension(), from + 50_000, secs(t0));
          }
        }
        double s = secs(t0);
        long bytes = bytes(dir, format.extension());
        sizes[format == FileFormat.PARQUET ? 0 : 1] = bytes;
        System.out.printf(
            "%-7s %,d rows in %.1f s: %,.0f rows/s; %,d files, %,.1f MiB (%.0f bytes per pod)%n",
            format.extension(),
            n,
            s,
            n / s,
            files(dir, format.extension()),
            bytes / 1048576.0,
            (double) bytes / n);
        if (columns && format == FileFormat.PARQUET) {
          printColumns(dir.resolve(WarehouseTables.POD_TIMELINES), n);
        }
      } finally {
        delete(dir);
      }
    }
    System.out.printf(
        "parquet / avro size: %.2f (pod_timelines and preemptions)%n",
        (double) sizes[0] / sizes[1]);
    if (kafka) {
      throughKafka(rows, topics);
    }
  }

  /**
   * Where a Parquet table's bytes go: each column's compressed bytes per row (from the files'
   * footers, summed over the row groups), largest first, with its encodings.
   */
  static void printColumns(Path table, int rows) throws IOException {
    Map<String, Long> bytes = new HashMap<>();
    Map<String, String> encodings = new HashMap<>();
    try (Stream<Path> files = Files.walk(table)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
          for (BlockMetaData block : r.getFooter().getBlocks()) {
            for (ColumnChunkMetaData c : block.getColumns()) {
              bytes.merge(c.getPath().toDotString(), c.getTotalSize(), Long::sum);
              encodings.put(c.getPath().toDotString(), c.getEncodings().toString());
            }
          }
        }
      }
    }
    System.out.printf("  pod_timelines columns, compressed bytes per row:%n");
    bytes.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(24)
        .forEach(
            e ->
                System.out.printf(
                    "    %-32s %6.2f %s%n",
                    e.getKey(), (double) e.getValue() / rows, encodings.get(e.getKey())));
  }

  /** The whole export: read_committed consumer, decode, Parquet, manifest commits. */
  static void throughKafka(List<PodTimeline> rows, Topics topics) throws Exception {
    Path dir = Files.createTempDirectory("schedlens-export-load-");
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      broker.createTopics(
          List.of(
              topics.podTimelines.newTopic(PARTITIONS, (short) 1),
              topics.workloadTimelines.newTopic(PARTITIONS, (short) 1)));
      long t0 = System.nanoTime();
      try (KafkaProducer<String, PodTimeline> p =
          new KafkaProducer<>(
              Map.of(
                  "bootstrap.servers",
                  broker.bootstrapServers(),
                  "linger.ms",
                  20,
                  "batch.size",
                  262_144,
                  "compression.type",
                  "lz4"),
              new StringSerializer(),
              topics.podTimelines.valueSerde().serializer())) {
        for (PodTimeline t : rows) {
          p.send(new ProducerRecord<>(topics.podTimelines.name(), t.getUid(), t));
        }
      }
      System.out.printf("kafka: produced %,d in %.1f s%n", rows.size(), secs(t0));
      ExportConfig config =
          ExportConfig.from(
              CommandLineSettings.load(
                  ExportConfig.DEF,
                  List.of(
                      "--to",
                      dir.toString(),
                      "--stop-at-end",
                      "true",
                      "--max-poll-records",
                      "10000"),
                  Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
      long t1 = System.nanoTime();
      Exporter.Result r;
      try (Exporter e =
          new Exporter(config, Exporter.sinkFor(config), System.out, new PrintStream(System.err))) {
        r = e.run();
      }
      double s = secs(t1);
      System.out.printf(
          "kafka -> parquet: %,d final timelines in %.1f s: %,.0f rows/s%n",
          r.exported(), s, r.exported() / s);
    } finally {
      delete(dir);
    }
  }

  /** Final timelines as a week of a GPU cluster gives them, seeded. */
  static List<PodTimeline> timelines(int n) {
    Random rnd = new Random(42);
    String[] apps = {"chat", "embedding-batch", "asr-batch", "rerank", "summarise"};
    String[] classes = {"interactive", "batch-high", "batch-low"};
    List<PodTimeline> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String app = apps[i % apps.length];
      boolean serving = app.equals("chat") || app.equals("rerank");
      long created = T0 + (long) (rnd.nextDouble() * 7 * 86_400_000L);
      long pending = (long) (rnd.nextExponential() * 20_000);
      long scheduled = created + pending;
      long running = scheduled + 3_000 + rnd.nextInt(20_000);
      long ready = running + 10_000 + rnd.nextInt(60_000);
      long end = ready + 60_000 + rnd.nextInt(3_600_000);
      boolean preempted = !serving && rnd.nextInt(10) == 0;
      int gpus = 1 + rnd.nextInt(2);
      PodTimeline t =
          PodTimeline.newBuilder()
              .setUid(new UUID(rnd.nextLong(), rnd.nextLong()).toString())
              .setUpdatedAt(end)
              .build();
      t.setNamespace("ai-lab");
      t.setName(app + "-" + Integer.toHexString(i));
      t.setNode("gpu-node-" + (i % 40));
      t.setPriorityClass(classes[i % classes.length]);
      t.setPriority(1000 * (3 - i % classes.length));
      t.setWorkload(new WorkloadRef(serving ? "Deployment" : "Job", app));
      t.setApplication(app);
      t.setExperiment("priority-week");
      t.setArm(i % 2 == 0 ? "control" : "treatment");
      t.setRepeat(Integer.toString(1 + i % 3));
      t.setCreatedAt(created);
      t.setScheduledAt(scheduled);
      t.setRunningAt(running);
      t.setReadyAt(ready);
      t.setTerminatedAt(end);
      t.setPendingMs(pending);
      t.setStartupMs(running - scheduled);
      t.setModelLoadMs(ready - running);
      t.setTimeToReadyMs(ready - created);
      if (pending > 5_000) {
        t.setFailedSchedulingCount(1 + (int) (pending / 10_000));
        t.setPendingReasons(Map.of("Insufficient nvidia.com/gpu", 40, "untolerated taint", 2));
      }
      t.setGpus(
          gpus); // as the streams app computes them: allocation from event times in ms, busy time
      // as the
      // sum of DCGM utilisation percentages times the 15 s scrape interval
      double allocated = gpus * (end - running) / 1000.0;
      double busy = gpus * ((end - running) / 15_000) * (30 + rnd.nextInt(60)) * 0.15;
      t.setAllocatedGpuSeconds(allocated);
      t.setBusyGpuSeconds(busy);
      t.setIdleAllocatedGpuSeconds(allocated - busy);
      t.setUnsampledGpuSeconds(0.0);
      if (serving) {
        served(t, rnd, created, ready);
      }
      if (preempted) {
        preempted(t, rnd, i, gpus, running, end);
      } else {
        t.setOutcome((serving ? Outcome.DELETED : Outcome.SUCCEEDED).wire());
      }
      t.setRestarts(rnd.nextInt(20) == 0 ? 1 : 0);
      t.setFinal$(true);
      out.add(t);
    }
    // a topic holds final timelines roughly in the order pods end
    out.sort(Comparator.comparingLong(PodTimeline::getUpdatedAt));
    return out;
  }

  /** A serving pod's requests, errors and latency. */
  private static void served(PodTimeline t, Random rnd, long created, long ready) {
    long requests = 1_000 + rnd.nextInt(100_000);
    t.setFirstOkRequestAt(ready + 200 + rnd.nextInt(2_000));
    t.setTimeToFirstOkMs(t.getFirstOkRequestAt() - created);
    t.setRequests(requests);
    t.setErrors(rnd.nextInt(50));
    t.setSloBreaches(
        rnd.nextInt(
            200)); // quantiles of a mergeable sketch are its bucket values (relative accuracy 1
    // %)
    double p50 = Math.pow(1.02, 220 + rnd.nextInt(60));
    t.setLatencyP50Ms(p50);
    t.setLatencyP95Ms(p50 * Math.pow(1.02, 40 + rnd.nextInt(10)));
    t.setLatencyP99Ms(p50 * Math.pow(1.02, 70 + rnd.nextInt(10)));
  }

  /** A preempted pod: its preemptor, its disruption, the work it lost. */
  private static void preempted(
      PodTimeline t, Random rnd, int i, int gpus, long running, long end) {
    t.setPreemptionAttempted(false);
    t.setPreemptedAt(end);
    t.setPreemptor(
        new PodRef(
            "preemptor-" + i,
            "ai-lab",
            "chat-" + Integer.toHexString(i),
            "interactive",
            3000,
            false));
    t.setDisruption(
        new Disruption(
            DisruptionCause.PREEMPTION.wire(), end, "ai-lab/chat-" + Integer.toHexString(i)));
    long checkpoint = running + (long) ((end - running) * rnd.nextDouble());
    t.setWastedGpuSeconds(gpus * (end - checkpoint) / 1000.0);
    t.setWastedBusyGpuSeconds(gpus * ((end - checkpoint) / 15_000) * 0.15 * 70);
    t.setOutcome(Outcome.PREEMPTED.wire());
  }

  static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static long bytes(Path dir, String ext) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith("." + ext))
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sum();
    }
  }

  static long files(Path dir, String ext) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith("." + ext)).count();
    }
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
