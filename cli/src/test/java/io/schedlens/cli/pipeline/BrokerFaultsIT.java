package io.schedlens.cli.pipeline;

import static io.schedlens.cli.pipeline.ShipperRetriesIT.gone;
import static io.schedlens.cli.pipeline.ShipperRetriesIT.line;
import static io.schedlens.cli.pipeline.ShipperRetriesIT.sendUntilTaken;
import static io.schedlens.cli.pipeline.ShipperRetriesIT.servingPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.prometheus.metrics.core.metrics.Counter;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodTimeline;
import io.schedlens.collector.Collector;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaCluster;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.StreamsApp;
import io.schedlens.streams.StreamsAppConfig;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.TopicReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline on a Kafka cluster of three brokers, each in its own JVM, every topic with
 * replication factor 3 and min ISR 2: while a shipper sends request logs through the collector to
 * the streams app, the leader of the busiest request-log partition is killed ({@code kill -9}) and
 * later started again; later still every broker is killed and the cluster started again after
 * {@link #OUTAGE}, longer than the streams app's grace period. The shipper behaves as one that
 * tails a log: lines are written every {@link #LINE_PACE} whether or not the intake takes them, and
 * it sends its oldest unsent batch until the intake takes it, so that after the outage it sends
 * everything written meanwhile, with its own times. Nothing that was written is lost, late or
 * counted twice (each distinct line once in its pod's final timeline, one final per pod, no request
 * counted late), the collector and the streams app come through without a restart, and the
 * collector's send buffer stays within its byte bound while Kafka is away: the intake answers 503
 * with {@code Retry-After} instead, and counts them.
 *
 * <p>The outage's length is {@code -Dfaults.outage.s} (30 s in CI; docs/developers/testing.md gives
 * the command for 10 minutes).
 */
class BrokerFaultsIT {

  static final Duration OUTAGE = Duration.ofSeconds(Integer.getInteger("faults.outage.s", 30));
  static final int PODS = 3;
  static final int BATCHES_BETWEEN_FAULTS = 30;
  static final long BUFFER_BYTES = 1024 * 1024;
  static final double SLO_MS = 100;
  static final Duration GRACE = Duration.ofSeconds(20);

  /** How often the shipper's log gets a batch of lines (one per pod and 4 per batch). */
  static final Duration LINE_PACE = Duration.ofMillis(200);

  static EmbeddedKafkaCluster cluster;

  @TempDir Path stateDir;

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedKafkaCluster.start(3);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void shouldLoseAndDuplicateNothingWhenALeaderDiesAndWhenEveryBrokerStops() throws Exception {
    String prefix = "faults-" + UUID.randomUUID().toString().substring(0, 6) + ".";
    Topics topics = Topics.withPrefix(prefix);
    int partitions = 3;
    cluster.createTopics(topics.newTopics(partitions, (short) 3));
    Map<String, String> kafka = Map.of("KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers());
    Collector collector =
        Collector.start(
            CollectorConfig.from(
                CommandLineSettings.load(
                    CollectorConfig.DEF,
                    List.of(
                        "--kubernetes-enabled", "false",
                        "--topic-prefix", prefix,
                        "--http-port", "0",
                        "--progress-interval", "100ms",
                        "--progress-allowance", "2s",
                        "--buffer-bytes", Long.toString(BUFFER_BYTES),
                        "--intake-resend-window", "30s",
                        "--intake-auth", "none"),
                    kafka)),
            null,
            Clock.systemUTC());
    StreamsApp app =
        StreamsApp.start(
            StreamsAppConfig.from(
                CommandLineSettings.load(
                    StreamsAppConfig.DEF,
                    List.of(
                        "--topic-prefix",
                        prefix,
                        "--application-id",
                        "faults-app",
                        "--state-dir",
                        stateDir.toString(),
                        "--http-port",
                        "0",
                        "--emit-interval",
                        "200ms",
                        "--grace-period",
                        GRACE.toSeconds() + "s",
                        "--slo",
                        "chat=" + (long) SLO_MS,
                        "--api-auth",
                        "none"),
                    kafka)));
    InputProducer pods =
        new InputProducer(
            Map.of("bootstrap.servers", cluster.bootstrapServers()), topics, partitions);
    pods.hold(topics.requests.name()).hold(topics.gpuSamples.name());
    AtomicInteger taken = new AtomicInteger();
    AtomicInteger unavailable = new AtomicInteger();
    AtomicBoolean faultsDone = new AtomicBoolean();
    AtomicLong largestBuffer = new AtomicLong();
    AtomicLong leaderKilled = new AtomicLong(-1);
    AtomicLong outageMs = new AtomicLong();
    AtomicLong recoveredMs = new AtomicLong();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> collector.readiness().ready());
      long start = System.currentTimeMillis();
      Map<String, Pod> live = new LinkedHashMap<>();
      PodProjection projection = new PodProjection(List.of(), List.of());
      for (int i = 0; i < PODS; i++) {
        Pod p = servingPod("chat-" + i, start - 5_000);
        live.put(p.getMetadata().getName(), p);
        pods.produce(List.of(projection.project(p, ChangeType.ADDED, start - 4_000)));
      }

      Thread sampler =
          new Thread(
              () -> {
                while (!faultsDone.get()) {
                  largestBuffer.accumulateAndGet(collector.bufferedBytes(), Math::max);
                  try {
                    Thread.sleep(20); // the sampling pace
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "buffer-sampler");
      sampler.setDaemon(true);
      sampler.start();
      Thread faults =
          new Thread(
              () -> {
                try {
                  await()
                      .atMost(Duration.ofSeconds(120))
                      .until(() -> taken.get() >= BATCHES_BETWEEN_FAULTS);
                  int leader = busiestLeader(topics.requests.name(), partitions);
                  leaderKilled.set(leader);
                  cluster.kill(leader);
                  int at = taken.get();
                  await()
                      .atMost(Duration.ofSeconds(180))
                      .until(() -> taken.get() >= at + BATCHES_BETWEEN_FAULTS);
                  cluster.startNode(leader);
                  cluster.awaitBrokers(3, Duration.ofSeconds(90));
                  int again = taken.get();
                  await()
                      .atMost(Duration.ofSeconds(180))
                      .until(() -> taken.get() >= again + BATCHES_BETWEEN_FAULTS);
                  long down = System.nanoTime();
                  cluster.killAll();
                  Thread.sleep(OUTAGE.toMillis()); // the outage lasts this long, by design
                  cluster.startAll();
                  outageMs.set((System.nanoTime() - down) / 1_000_000);
                  int before = taken.get();
                  await().atMost(Duration.ofSeconds(180)).until(() -> taken.get() > before);
                  recoveredMs.set((System.nanoTime() - down) / 1_000_000 - outageMs.get());
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                } finally {
                  faultsDone.set(true);
                }
              },
              "broker-faults");
      faults.start();
      // The pod topics' marks, written on their own clock as the collector writes them, whatever
      // the shipper does (a producer on a dead cluster may block its caller for a minute).
      ScheduledExecutorService podMarks =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "pod-marks");
                t.setDaemon(true); // a failed test does not keep the JVM
                return t;
              });
      podMarks.scheduleWithFixedDelay(
          () -> pods.mark(System.currentTimeMillis() - 1_000), 0, 100, TimeUnit.MILLISECONDS);

      Map<String, int[]> expected = new TreeMap<>();
      long seq = 0;
      int takenAfter = 0;
      long written = System.currentTimeMillis();
      Deque<String> unsent = new ArrayDeque<>();
      Duration patience = OUTAGE.plus(Duration.ofMinutes(3));
      while (takenAfter < BATCHES_BETWEEN_FAULTS || !unsent.isEmpty()) {
        long now = System.currentTimeMillis();
        assertThat(now - start)
            .as("shipping time, faults included")
            .isLessThan(patience.plus(Duration.ofMinutes(7)).toMillis());
        // What the log got since the last look, with the times it was written at.
        while (written + LINE_PACE.toMillis() <= now
            && (takenAfter < BATCHES_BETWEEN_FAULTS || !faultsDone.get())) {
          written += LINE_PACE.toMillis();
          List<String> batch = new ArrayList<>();
          for (String name : live.keySet()) {
            for (int k = 0; k < 4; k++) {
              seq++;
              int status = seq % 7 == 0 ? 500 : 200;
              double latency = seq % 5 == 0 ? 250 : 40;
              batch.add(line(written - k * 10, name, status, latency, "req-" + seq));
              int[] e = expected.computeIfAbsent(name, n -> new int[3]);
              e[0]++;
              e[1] += status >= 500 ? 1 : 0;
              e[2] += latency > SLO_MS ? 1 : 0;
            }
          }
          unsent.add(String.join("\n", batch) + "\n");
        }
        if (unsent.isEmpty()) {
          Thread.sleep(LINE_PACE.toMillis()); // the pace the log is written at
          continue;
        }
        sendUntilTaken(collector, unsent.peek(), unavailable, patience);
        unsent.poll();
        taken.incrementAndGet();
        if (faultsDone.get()) {
          takenAfter++;
        }
      }
      podMarks.shutdown();
      assertThat(podMarks.awaitTermination(90, TimeUnit.SECONDS)).as("pod marks stopped").isTrue();
      faults.join();

      long end = System.currentTimeMillis();
      for (Pod p : live.values()) {
        pods.produce(List.of(projection.project(gone(p, end), ChangeType.DELETED, end)));
      }
      pods.end();

      Map<String, Integer> finalsPerPod = new TreeMap<>();
      Map<String, PodTimeline> finals = new TreeMap<>();
      try (TopicReader<PodTimeline> r =
          new TopicReader<>(
              cluster.bootstrapServers(),
              topics.podTimelines.name(),
              topics.podTimelines.valueSerde().deserializer())) {
        r.readUntil(
            rs -> rs.stream().filter(x -> x.value().getFinal$()).count() >= PODS,
            Duration.ofSeconds(180));
        for (ConsumerRecord<String, PodTimeline> x : r.readFor(Duration.ofSeconds(3))) {
          if (x.value().getFinal$()) {
            finalsPerPod.merge(x.key(), 1, Integer::sum);
            finals.put(x.value().getName(), x.value());
          }
        }
      }
      double answered503 = collector.metrics().intakeRequests.labelValues("503").get();
      Map<String, Double> late = lateByKind(app);
      // What tells the ways a line can go missing apart: not counted by the app (by kind), dead
      // letters, refused by Kafka for good or queued again by the collector, taken unacknowledged.
      String counts =
          String.format(
              "inputs not counted, by kind: %s; dead letters: %s; collector records failed: %s,"
                  + " retried: %s; intake lines: %s",
              late,
              byLabels(app.metrics().deadLetters),
              byLabels(collector.metrics().recordsFailed),
              byLabels(collector.metrics().recordsRetried),
              byLabels(collector.metrics().intakeLines));
      String summary =
          String.format(
              "%d batches of %d distinct lines; leader %d killed and back; all brokers away %d ms,"
                  + " the intake taking again %d ms after they started; %d answers not 2xx or no"
                  + " answer (%.0f of them 503); send buffer at most %,d of %,d bytes; %s",
              taken.get(),
              seq,
              leaderKilled.get(),
              outageMs.get(),
              recoveredMs.get(),
              unavailable.get(),
              answered503,
              largestBuffer.get(),
              BUFFER_BYTES,
              counts);
      System.out.println("BrokerFaultsIT: " + summary);
      assertThat(outageMs.get())
          .as("the outage, past the grace period")
          .isGreaterThan(GRACE.toMillis());
      assertThat(finals).as("final timelines").hasSize(PODS);
      assertThat(finalsPerPod.values()).as("one final per pod").containsOnly(1);
      for (Map.Entry<String, int[]> e : expected.entrySet()) {
        PodTimeline t = finals.get(e.getKey());
        assertThat(t.getRequests())
            .as("requests of %s (%s)", e.getKey(), summary)
            .isEqualTo(e.getValue()[0]);
        assertThat(t.getErrors()).as("errors of %s", e.getKey()).isEqualTo(e.getValue()[1]);
        assertThat(t.getSloBreaches())
            .as("SLO breaches of %s", e.getKey())
            .isEqualTo(e.getValue()[2]);
      }
      assertThat(late.getOrDefault("request", 0.0))
          .as("request lines late (their stream's mark past them by the grace period)")
          .isZero();
      assertThat(answered503).as("503s while Kafka was away, counted").isPositive();
      assertThat(largestBuffer.get())
          .as("the send buffer's bytes")
          .isLessThanOrEqualTo(BUFFER_BYTES);
      assertThat(app.streams().state())
          .as("the streams app, never restarted")
          .isEqualTo(KafkaStreams.State.RUNNING);
      assertThat(collector.readiness().ready()).as("the collector, never restarted").isTrue();
    } catch (AssertionError | RuntimeException e) {
      System.out.println(cluster.logTails(40));
      throw e;
    } finally {
      faultsDone.set(true);
      pods.close();
      app.close();
      collector.close();
    }
  }

  /** The streams app's {@code schedlens_late_records_total}, by kind. */
  static Map<String, Double> lateByKind(StreamsApp app) {
    return byLabels(app.metrics().lateRecords);
  }

  /**
   * A counter's values by their label values, joined by {@code /} in the labels' name order (a
   * counter with one label: by its value).
   */
  static Map<String, Double> byLabels(Counter counter) {
    Map<String, Double> values = new TreeMap<>();
    for (var p : counter.collect().getDataPoints()) {
      List<String> labelValues = new ArrayList<>();
      p.getLabels().forEach(l -> labelValues.add(l.getValue()));
      values.put(String.join("/", labelValues), p.getValue());
    }
    return values;
  }

  /** The leader of the request-log partition that holds the most records. */
  static int busiestLeader(String topic, int partitions) throws Exception {
    try (Admin admin = cluster.admin()) {
      Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      var ends = admin.listOffsets(latest).all().get();
      TopicPartition busiest =
          ends.entrySet().stream()
              .max(Map.Entry.comparingByValue((a, b) -> Long.compare(a.offset(), b.offset())))
              .orElseThrow()
              .getKey();
      return cluster.leaderOf(topic, busiest.partition());
    }
  }
}
