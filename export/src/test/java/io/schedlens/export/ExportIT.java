package io.schedlens.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.ServiceInterval;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Export of final pod timelines and workload timelines, exactly once across restarts and crashes,
 * to Parquet (read back with DuckDB), Avro files and PostgreSQL.
 */
class ExportIT {

  static final long T0 = Instant.parse("2026-11-27T22:00:00Z").toEpochMilli();

  static EmbeddedKafkaBroker broker;
  static int prefixes;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  /** A fresh set of topics for each test. */
  static Topics topics() {
    Topics t = Topics.withPrefix("t" + (++prefixes) + ".");
    broker.createTopics(
        List.of(t.podTimelines.newTopic(3, (short) 1), t.workloadTimelines.newTopic(3, (short) 1)));
    return t;
  }

  static PodTimeline timeline(int i, boolean fin, long updatedAt, boolean preempted) {
    PodTimeline t = PodTimeline.newBuilder().setUid("uid-" + i).setUpdatedAt(updatedAt).build();
    t.setNamespace("ai-lab");
    t.setName("pod-" + i);
    t.setWorkload(new WorkloadRef("Job", "asr-batch"));
    t.setExperiment("day08-experiment");
    t.setArm(i % 2 == 0 ? "control" : "treatment");
    t.setRepeat("1");
    t.setCreatedAt(T0 + i * 3_600_000L);
    t.setPendingMs(1000L * i);
    t.setTerminatedAt(fin ? T0 + i * 3_600_000L + 600_000 : null);
    t.setOutcome(preempted ? "Preempted" : fin ? "Succeeded" : "Running");
    if (preempted) {
      t.setPreemptedAt(T0 + i * 3_600_000L + 500_000);
      t.setPreemptor(new PodRef("uid-chat", "ai-lab", "chat-1", "interactive", 100000, false));
      t.setPriorityClass("batch-low");
      t.setWastedGpuSeconds(300.0 + i);
    }
    t.setFinal$(fin);
    t.setUpdatedAt(updatedAt);
    return t;
  }

  /** A Deployment's timeline with {@code n} closed interruptions of 10 s and one degraded. */
  static WorkloadTimeline workload(String name, int n, long updatedAt) {
    WorkloadTimeline w =
        WorkloadTimeline.newBuilder()
            .setNamespace("ai-lab")
            .setKind("Deployment")
            .setName(name)
            .setDesiredSource("observed")
            .setDesired(2)
            .setReady(2)
            .setArm("treatment")
            .setRepeat("1")
            .setUpdatedAt(updatedAt)
            .build();
    List<ServiceInterval> interruptions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long start = T0 + i * 60_000L;
      interruptions.add(
          ServiceInterval.newBuilder()
              .setStart(start)
              .setEnd(start + 10_000)
              .setDurationMs(10_000L)
              .setCause("preemption")
              .setArm("treatment")
              .setRepeat("1")
              .build());
    }
    w.setInterruptions(interruptions);
    w.setInterruptionMs(10_000L * n);
    w.setDegraded(
        List.of(
            ServiceInterval.newBuilder()
                .setStart(T0)
                .setEnd(T0 + 5_000)
                .setDurationMs(5_000L)
                .setCause("not-ready")
                .build()));
    return w;
  }

  static void produce(Topics topics, List<PodTimeline> timelines) {
    produce(topics, timelines, List.of());
  }

  static void produce(Topics topics, List<PodTimeline> timelines, List<WorkloadTimeline> ws) {
    Map<String, Object> p = new HashMap<>(Map.of("bootstrap.servers", broker.bootstrapServers()));
    try (KafkaProducer<String, PodTimeline> producer =
            new KafkaProducer<>(
                p, new StringSerializer(), topics.podTimelines.valueSerde().serializer());
        KafkaProducer<String, WorkloadTimeline> wp =
            new KafkaProducer<>(
                p, new StringSerializer(), topics.workloadTimelines.valueSerde().serializer())) {
      for (PodTimeline t : timelines) {
        producer.send(new ProducerRecord<>(topics.podTimelines.name(), t.getUid(), t));
      }
      for (WorkloadTimeline w : ws) {
        String key = w.getNamespace() + "/" + w.getKind() + "/" + w.getName();
        wp.send(new ProducerRecord<>(topics.workloadTimelines.name(), key, w));
      }
      producer.flush();
      wp.flush();
    }
  }

  static ExportConfig config(Topics topics, String to, String format) {
    return ExportConfig.from(
        CommandLineSettings.load(
            ExportConfig.DEF,
            List.of(
                "--to",
                to,
                "--format",
                format,
                "--stop-at-end",
                "true",
                "--topic-prefix",
                topics.podTimelines.name().replace("pod-timelines", ""),
                "--flush-records",
                "9",
                "--max-poll-records",
                "7"),
            Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
  }

  static Exporter.Result export(ExportConfig config, WarehouseSink sink) throws Exception {
    try (Exporter e = new Exporter(config, sink, new PrintStream(new ByteArrayOutputStream()))) {
      return e.run();
    }
  }

  static FileSink files(Path out, Topics topics, FileFormat format) throws Exception {
    return new FileSink(
        out, format, topics.podTimelines.name(), topics.workloadTimelines.name(), false);
  }

  /** The rows of one table's Avro files, read with Avro itself. */
  static List<GenericRecord> avroRows(Path root, String table) throws Exception {
    List<GenericRecord> all = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root.resolve(table))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".avro")).toList()) {
        try (DataFileReader<GenericRecord> r =
            new DataFileReader<>(f.toFile(), new GenericDatumReader<>())) {
          r.forEach(all::add);
        }
      }
    }
    return all;
  }

  /** One number from DuckDB over the Parquet files under {@code root}. */
  static long duck(Path root, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (String t : WarehouseTables.DATASETS) {
        s.execute(
            "CREATE VIEW "
                + t
                + " AS SELECT * FROM read_parquet('"
                + root.resolve(t)
                + "/*/*.parquet', hive_partitioning = true)");
      }
      try (ResultSet rs = s.executeQuery(sql)) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void shouldWriteEveryFinalTimelineExactlyOnceToParquetAcrossACrashAndARestart() throws Exception {
    Topics topics = topics();
    List<PodTimeline> first = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      first.add(timeline(i, false, T0 + i, false)); // the running versions first
      first.add(timeline(i, i % 4 != 3, T0 + i + 1, i % 5 == 0)); // then finals (3 in 4)
    }
    // two versions of chat (the second supersedes), one of embed
    produce(
        topics,
        first,
        List.of(
            workload("chat", 1, T0 + 100),
            workload("chat", 3, T0 + 200),
            workload("embed", 2, T0)));
    Path out = dir.resolve("warehouse");
    ExportConfig config = config(topics, out.toString(), "parquet");

    // A crash after data files were written, before the manifest committed them.
    assertThatThrownBy(
            () ->
                export(
                    config,
                    new FileSink(
                        out,
                        FileFormat.PARQUET,
                        topics.podTimelines.name(),
                        topics.workloadTimelines.name(),
                        true)))
        .hasMessageContaining("crash");
    try (Stream<Path> leftovers = Files.walk(out)) {
      assertThat(leftovers.filter(p -> p.toString().endsWith(".parquet"))).isNotEmpty();
    }

    Exporter.Result r1 = export(config, files(out, topics, FileFormat.PARQUET));
    assertThat(r1.exported()).isEqualTo(30);
    assertThat(duck(out, "SELECT count(*) FROM pod_timelines")).isEqualTo(30);
    assertThat(duck(out, "SELECT count(DISTINCT uid) FROM pod_timelines")).isEqualTo(30);
    assertThat(duck(out, "SELECT count(*) FROM pod_timelines WHERE NOT final")).isZero();
    // the day partition is the pod's end, in UTC; times are timestamps, not integers
    assertThat(
            duck(
                out,
                "SELECT count(*) FROM pod_timelines WHERE CAST(terminatedAt AS DATE) <>"
                    + " CAST(dt AS DATE) OR typeof(createdAt) <> 'TIMESTAMP WITH TIME ZONE'"))
        .isZero();
    assertThat(duck(out, "SELECT count(*) FROM preemptions")).isEqualTo(6);
    assertThat(
            duck(
                out,
                "SELECT count(*) FROM preemptions WHERE preemptorPriorityClass = 'interactive'"
                    + " AND victimPriorityClass = 'batch-low' AND wastedGpuSeconds >= 300"))
        .isEqualTo(6);
    // workloads: the latest of each per commit; intervals as a nested list and a child table
    assertThat(
            duck(
                out,
                "SELECT len(interruptions) FROM workload_timelines WHERE name = 'chat'"
                    + " ORDER BY sourceOffset DESC LIMIT 1"))
        .isEqualTo(3);
    assertThat(
            duck(
                out,
                "SELECT sum(durationMs) FROM workload_intervals w WHERE type = 'interruption'"
                    + " AND sourceOffset = (SELECT max(sourceOffset) FROM workload_intervals x"
                    + " WHERE x.workloadKey = w.workloadKey)"))
        .isEqualTo(50_000);

    // A restart with nothing new exports nothing; then more timelines arrive.
    assertThat(export(config, files(out, topics, FileFormat.PARQUET)).exported()).isZero();
    List<PodTimeline> more = new ArrayList<>();
    for (int i = 40; i < 60; i++) {
      more.add(timeline(i, true, T0 + i + 1, false));
    }
    // a late correction of pod 0's final timeline: same pod, same updatedAt, more requests
    PodTimeline corrected = timeline(0, true, T0 + 1, true);
    corrected.setRequests(42);
    more.add(corrected);
    produce(topics, more);
    assertThat(export(config, files(out, topics, FileFormat.PARQUET)).exported()).isEqualTo(21);
    assertThat(duck(out, "SELECT count(DISTINCT uid) FROM pod_timelines")).isEqualTo(50);
    // the supersede rule: the latest sourceOffset per uid
    assertThat(
            duck(
                out,
                "SELECT requests FROM pod_timelines WHERE uid = 'uid-0'"
                    + " QUALIFY row_number() OVER (PARTITION BY uid ORDER BY sourceOffset DESC) = 1"))
        .isEqualTo(42);
    try (Stream<Path> days = Files.list(out.resolve(WarehouseTables.POD_TIMELINES))) {
      assertThat(days.map(p -> p.getFileName().toString()))
          .contains("dt=2026-11-27", "dt=2026-11-28", "dt=2026-11-29", "dt=2026-11-30");
    }
    String manifest = Files.readString(out.resolve(FileSink.MANIFEST));
    assertThat(manifest)
        .contains("\"pod_timelines\" : 51")
        .contains("\"format\" : \"parquet\"")
        .contains("\"" + topics.workloadTimelines.name() + "\"");
    for (String t : WarehouseTables.DATASETS) {
      assertThat(out.resolve(t + ".avsc")).exists();
    }
    // a directory keeps its format
    assertThatThrownBy(() -> files(out, topics, FileFormat.AVRO))
        .hasMessageContaining("holds a parquet export: give --format parquet");
  }

  @Test
  void shouldWriteAvroFilesWithTimestampsAndResumeAnExportOfTheFirstManifestFormat()
      throws Exception {
    Topics topics = topics();
    List<PodTimeline> batch = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      batch.add(timeline(i, true, T0 + i, i == 5));
    }
    produce(topics, batch, List.of(workload("chat", 2, T0)));
    Path out = dir.resolve("avro");
    ExportConfig config = config(topics, out.toString(), "avro");
    assertThat(export(config, files(out, topics, FileFormat.AVRO)).exported()).isEqualTo(12);

    List<GenericRecord> pods = avroRows(out, WarehouseTables.POD_TIMELINES);
    assertThat(pods).hasSize(12);
    assertThat(pods.get(0).getSchema().getField("createdAt").schema().getTypes().get(1))
        .satisfies(s -> assertThat(s.getLogicalType().getName()).isEqualTo("timestamp-millis"));
    assertThat(avroRows(out, WarehouseTables.PREEMPTIONS)).hasSize(1);
    assertThat(avroRows(out, WarehouseTables.WORKLOAD_INTERVALS)).hasSize(3);

    // The first manifests held one topic and its offsets by partition: an export goes on from it.
    Path old = dir.resolve("old");
    Files.createDirectories(old);
    Files.writeString(
        old.resolve(FileSink.MANIFEST),
        "{\"topic\":\""
            + topics.podTimelines.name()
            + "\",\"format\":\"avro\",\"offsets\":{\"0\":3,\"2\":5},\"files\":[]}");
    assertThat(files(old, topics, FileFormat.AVRO).committedOffsets())
        .containsEntry(
            new org.apache.kafka.common.TopicPartition(topics.podTimelines.name(), 2), 5L)
        .hasSize(2);
  }

  @Test
  void shouldUpsertEveryTableIntoPostgresExactlyOnce() throws Exception {
    Topics topics = topics();
    List<PodTimeline> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(timeline(i, true, T0 + i, i % 4 == 0));
    }
    // two repeats' Jobs of one name: two workloads (their controller UIDs), one topic key
    WorkloadTimeline job1 = workload("asr", 1, T0);
    job1.setKind("Job");
    job1.setControllerUid("job-uid-1");
    WorkloadTimeline job2 = WorkloadTimeline.newBuilder(job1).setControllerUid("job-uid-2").build();
    produce(topics, batch, List.of(workload("chat", 2, T0), workload("embed", 1, T0), job1, job2));
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      ExportConfig config = config(topics, url, "parquet");
      Properties none = new Properties();
      Exporter.Result first = export(config, new JdbcSink(url, none, true));
      assertThat(first.exported()).isEqualTo(20);
      assertThat(first.workloads()).isEqualTo(4);
      // a restart: nothing again
      assertThat(export(config, new JdbcSink(url, none, true)).exported()).isZero();
      // a newer final of pod 3 replaces its row; an older one of pod 4 does not; chat's newer
      // timeline replaces its row and its intervals
      PodTimeline newer = timeline(3, true, T0 + 1_000_000, false);
      newer.setPendingMs(99_000L);
      PodTimeline older = timeline(4, true, T0 - 1_000_000, false);
      older.setPendingMs(77_000L);
      produce(topics, List.of(newer, older), List.of(workload("chat", 4, T0 + 5_000)));
      assertThat(export(config, new JdbcSink(url, none, true)).exported()).isEqualTo(2);

      try (Connection c = pg.getPostgresDatabase().getConnection();
          Statement s = c.createStatement()) {
        assertThat(count(s, "SELECT count(*) FROM pod_timelines")).isEqualTo(20);
        assertThat(count(s, "SELECT count(*) FROM preemptions")).isEqualTo(5);
        assertThat(count(s, "SELECT pending_ms FROM pod_timelines WHERE uid = 'uid-3'"))
            .isEqualTo(99_000);
        assertThat(count(s, "SELECT pending_ms FROM pod_timelines WHERE uid = 'uid-4'"))
            .isEqualTo(4_000);
        assertThat(count(s, "SELECT count(*) FROM pod_timelines WHERE timeline->>'uid' = uid"))
            .isEqualTo(20);
        assertThat(count(s, "SELECT sum(next_offset) FROM schedlens_export_offsets"))
            .isEqualTo(22 + 5);
        assertThat(count(s, "SELECT count(*) FROM workload_timelines")).isEqualTo(4);
        assertThat(
                count(
                    s,
                    "SELECT count(*) FROM workload_timelines WHERE workload_key IN"
                        + " ('ai-lab/Job/asr/job-uid-1', 'ai-lab/Job/asr/job-uid-2')"))
            .isEqualTo(2);
        assertThat(
                count(
                    s,
                    "SELECT interruption_ms FROM workload_timelines"
                        + " WHERE workload_key = 'ai-lab/Deployment/chat'"))
            .isEqualTo(40_000);
        assertThat(
                count(
                    s,
                    "SELECT count(*) FROM workload_intervals WHERE workload_key ="
                        + " 'ai-lab/Deployment/chat' AND type = 'interruption'"))
            .isEqualTo(4);
        assertThat(count(s, "SELECT count(*) FROM workload_intervals"))
            .isEqualTo(4 + 1 + 1 + 1 + 2 * 2);
        try (ResultSet rs =
            s.executeQuery(
                "SELECT preemptor_priority_class, wasted_gpu_seconds, preempted_at,"
                    + " victim_workload_name FROM preemptions WHERE victim_uid = 'uid-8'")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEqualTo("interactive");
          assertThat(rs.getDouble(2)).isEqualTo(308.0);
          assertThat(rs.getTimestamp(3).toInstant())
              .isEqualTo(Instant.ofEpochMilli(T0 + 8 * 3_600_000L + 500_000));
          assertThat(rs.getString(4)).isEqualTo("asr-batch");
        }
      }
    }
  }

  static long count(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
