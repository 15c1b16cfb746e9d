package io.schedlens.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
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
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Export of final timelines, exactly once across restarts and crashes, to files and PostgreSQL. */
class ExportIT {

  static final long DAY = 86_400_000L;
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
    broker.createTopics(List.of(t.podTimelines.newTopic(3, (short) 1)));
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
      t.setWastedGpuSeconds(300.0 + i);
    }
    t.setFinal$(fin);
    t.setUpdatedAt(updatedAt);
    return t;
  }

  static void produce(Topics topics, List<PodTimeline> timelines) {
    Map<String, Object> p = new HashMap<>(Map.of("bootstrap.servers", broker.bootstrapServers()));
    try (KafkaProducer<String, PodTimeline> producer =
        new KafkaProducer<>(
            p, new StringSerializer(), topics.podTimelines.valueSerde().serializer())) {
      for (PodTimeline t : timelines) {
        producer.send(new ProducerRecord<>(topics.podTimelines.name(), t.getUid(), t));
      }
      producer.flush();
    }
  }

  static ExportConfig config(Topics topics, String to) {
    return ExportConfig.from(
        CommandLineSettings.load(
            ExportConfig.DEF,
            List.of(
                "--to",
                to,
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

  static Exporter.Result export(ExportConfig config, TimelineSink sink) throws Exception {
    try (Exporter e = new Exporter(config, sink, new PrintStream(new ByteArrayOutputStream()))) {
      return e.run();
    }
  }

  /** Every timeline in the committed files, by reading the Avro files themselves. */
  static List<PodTimeline> filesContent(Path root) throws Exception {
    List<PodTimeline> all = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root.resolve(AvroFileSink.DATASET))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".avro")).toList()) {
        try (DataFileReader<PodTimeline> r =
            new DataFileReader<>(f.toFile(), new SpecificDatumReader<>(PodTimeline.class))) {
          r.forEach(
              t -> {
                assertThat(f.getParent().getFileName().toString())
                    .isEqualTo("dt=" + AvroFileSink.day(t));
                all.add(t);
              });
        }
      }
    }
    return all;
  }

  @Test
  void shouldWriteEveryFinalTimelineExactlyOnceAcrossACrashAndARestart() throws Exception {
    Topics topics = topics();
    List<PodTimeline> first = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      first.add(timeline(i, false, T0 + i, false)); // the running versions first
      first.add(timeline(i, i % 4 != 3, T0 + i + 1, i % 5 == 0)); // then finals (3 in 4)
    }
    produce(topics, first);
    Path out = dir.resolve("warehouse");
    ExportConfig config = config(topics, out.toString());

    // A crash after data files were written, before the manifest committed them.
    assertThatThrownBy(
            () -> export(config, new AvroFileSink(out, topics.podTimelines.name(), true)))
        .hasMessageContaining("crash");
    try (Stream<Path> leftovers = Files.walk(out.resolve(AvroFileSink.DATASET))) {
      assertThat(leftovers.filter(p -> p.toString().endsWith(".avro"))).isNotEmpty();
    }

    Exporter.Result r1 = export(config, new AvroFileSink(out, topics.podTimelines.name()));
    assertThat(r1.exported()).isEqualTo(30);
    List<PodTimeline> after1 = filesContent(out);
    assertThat(after1).extracting(PodTimeline::getUid).doesNotHaveDuplicates().hasSize(30);
    assertThat(after1).allMatch(PodTimeline::getFinal$);

    // A restart with nothing new exports nothing; then more timelines arrive.
    assertThat(export(config, new AvroFileSink(out, topics.podTimelines.name())).exported())
        .isZero();
    List<PodTimeline> more = new ArrayList<>();
    for (int i = 40; i < 60; i++) {
      more.add(timeline(i, true, T0 + i + 1, false));
    }
    produce(topics, more);
    assertThat(export(config, new AvroFileSink(out, topics.podTimelines.name())).exported())
        .isEqualTo(20);
    List<PodTimeline> after2 = filesContent(out);
    assertThat(after2).extracting(PodTimeline::getUid).doesNotHaveDuplicates().hasSize(50);
    // Days: 60 hours from 2026-11-27T22:00 span four UTC days.
    try (Stream<Path> days = Files.list(out.resolve(AvroFileSink.DATASET))) {
      assertThat(days.map(p -> p.getFileName().toString()))
          .contains("dt=2026-11-27", "dt=2026-11-28", "dt=2026-11-29", "dt=2026-11-30");
    }
    String manifest = Files.readString(out.resolve(AvroFileSink.MANIFEST));
    assertThat(manifest).contains("\"records\" : 50").contains("\"offsets\"");
    assertThat(out.resolve(AvroFileSink.DATASET + ".avsc")).exists();
  }

  @Test
  void shouldUpsertTimelinesAndPreemptionsIntoPostgresExactlyOnce() throws Exception {
    Topics topics = topics();
    List<PodTimeline> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(timeline(i, true, T0 + i, i % 4 == 0));
    }
    produce(topics, batch);
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      ExportConfig config = config(topics, url);
      Properties none = new Properties();
      String topic = topics.podTimelines.name();
      assertThat(export(config, new JdbcSink(url, none, topic, true)).exported()).isEqualTo(20);
      // a restart: nothing again
      assertThat(export(config, new JdbcSink(url, none, topic, true)).exported()).isZero();
      // a newer final of pod 3 replaces its row; an older one of pod 4 does not
      PodTimeline newer = timeline(3, true, T0 + 1_000_000, false);
      newer.setPendingMs(99_000L);
      PodTimeline older = timeline(4, true, T0 - 1_000_000, false);
      older.setPendingMs(77_000L);
      produce(topics, List.of(newer, older));
      assertThat(export(config, new JdbcSink(url, none, topic, true)).exported()).isEqualTo(2);

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
        assertThat(count(s, "SELECT sum(next_offset) FROM schedlens_export_offsets")).isEqualTo(22);
        try (ResultSet rs =
            s.executeQuery(
                "SELECT preemptor_priority_class, wasted_gpu_seconds, preempted_at FROM preemptions WHERE victim_uid = 'uid-8'")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEqualTo("interactive");
          assertThat(rs.getDouble(2)).isEqualTo(308.0);
          assertThat(rs.getTimestamp(3).toInstant())
              .isEqualTo(Instant.ofEpochMilli(T0 + 8 * 3_600_000L + 500_000));
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
