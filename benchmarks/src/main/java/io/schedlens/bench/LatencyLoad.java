package io.schedlens.bench;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.ProducerRecords;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * {@code StreamsLoad latency}: inputs produced live at a fixed rate in the fleet's mix (per pod and
 * second 10 requests and a DCGM sample, one record in a hundred a pod change), and for each pod
 * change the time until its updated timeline is readable (read_committed), per 10 s window.
 */
final class LatencyLoad {

  private final EmbeddedKafkaBroker broker;
  private final Topics topics = Topics.defaults();
  private final Records records = new Records(topics, 64 * 1024);
  private final LoadShape shape = new LoadShape(topics);
  private final int partitions;

  /** A probe's key ({@code uid@updatedAt}) to when it was sent. */
  private final Map<String, Long> probes = new ConcurrentHashMap<>();

  /** Per 10 s window of sending, the latencies seen. */
  private final ConcurrentSkipListMap<Long, List<Long>> windows = new ConcurrentSkipListMap<>();

  private LatencyLoad(EmbeddedKafkaBroker broker, int partitions) {
    this.broker = broker;
    this.partitions = partitions;
  }

  static void run(
      EmbeddedKafkaBroker broker,
      int seconds,
      int rate,
      int instances,
      int partitions,
      List<String> appArgs)
      throws Exception {
    new LatencyLoad(broker, partitions).measure(seconds, rate, instances, appArgs);
  }

  private void measure(int seconds, int rate, int instances, List<String> appArgs)
      throws Exception {
    String appId = "latency-" + UUID.randomUUID();
    try (Admin admin = broker.admin();
        AppInstances app =
            new AppInstances(broker.bootstrapServers(), appId, instances, "768m", appArgs)) {
      AtomicBoolean running = new AtomicBoolean(true);
      Thread reader = new Thread(() -> read(running));
      reader.start();
      int pods = Math.max(1, rate / 11);
      try (KafkaProducer<byte[], byte[]> producer =
          StreamsLoad.producer(broker.bootstrapServers())) {
        long t0 = System.currentTimeMillis();
        history(producer, admin, appId, pods, t0, app);
        live(producer, seconds, rate, pods, t0);
        Thread.sleep(3000);
        System.out.printf("live heap after the run: %s MiB%n", app.liveHeapMb());
      }
      Thread.sleep(3000);
      running.set(false);
      reader.join();
      report();
    }
  }

  /** Reads the timelines as they come and matches them to the probes. */
  private void read(AtomicBoolean running) {
    try (KafkaConsumer<String, PodTimeline> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "latency-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "latest"),
            new StringDeserializer(),
            topics.podTimelines.valueSerde().deserializer())) {
      consumer.subscribe(List.of(topics.podTimelines.name()));
      while (running.get()) {
        for (ConsumerRecord<String, PodTimeline> r : consumer.poll(Duration.ofMillis(20))) {
          Long sent = probes.remove(r.key() + "@" + r.value().getUpdatedAt());
          if (sent != null) {
            windows
                .computeIfAbsent(
                    (sent / 10_000) * 10_000, k -> Collections.synchronizedList(new ArrayList<>()))
                .add(System.currentTimeMillis() - sent);
          }
        }
      }
    }
  }

  /**
   * The pods exist and run before the clock starts: their history is produced, and the clock starts
   * once the app has started (JVM, group, RocksDB) and read it all, so that the windows measure the
   * app at work, not its start. The start is printed apart.
   */
  private void history(
      KafkaProducer<byte[], byte[]> producer,
      Admin admin,
      String appId,
      int pods,
      long t0,
      AppInstances app)
      throws Exception {
    List<Outgoing> lives = new ArrayList<>();
    for (int p = 0; p < pods; p++) {
      shape.life(p, t0 - 120_000, false, lives);
    }
    lives.removeIf(o -> o.eventTime() > t0 - 60_000);
    for (Outgoing o : lives) {
      producer.send(ProducerRecords.data(o, partitions));
    }
    List<Outgoing> firstMarks = new ArrayList<>();
    shape.marks(t0 - 60_000, t0, firstMarks);
    for (Outgoing m : firstMarks) {
      ProducerRecords.of(m, partitions).forEach(producer::send);
    }
    producer.flush();
    GroupProgress progress = new GroupProgress(admin, appId, partitions);
    List<String> inputs = StreamsLoad.inputs(topics);
    long history = progress.written(inputs);
    while (progress.consumed(inputs) < history) {
      Thread.sleep(200);
    }
    System.out.printf(
        "app started and read the pods' history (%,d records) in %.1f s; live heap %s MiB%n",
        history, (System.currentTimeMillis() - t0) / 1000.0, app.liveHeapMb());
  }

  /** {@code rate} records a second for {@code seconds}, with the collector's marks each second. */
  private void live(
      KafkaProducer<byte[], byte[]> producer, int seconds, int rate, int pods, long t0)
      throws InterruptedException {
    long start = System.currentTimeMillis();
    long end = start + seconds * 1000L;
    long[] version = new long[pods];
    long lastMark = 0;
    long sent = 0;
    System.out.printf("producing %,d records/s for %d s ...%n", rate, seconds);
    while (System.currentTimeMillis() < end) {
      long now = System.currentTimeMillis();
      if (now - lastMark >= 1000) {
        // the collector's marks: its clock less an allowance of 2 s
        List<Outgoing> marks = new ArrayList<>();
        shape.marks(now - 2000, now, marks);
        for (Outgoing m : marks) {
          ProducerRecords.of(m, partitions).forEach(producer::send);
        }
        lastMark = now;
      }
      long due = start + (sent * 1000L) / rate;
      if (now < due) {
        Thread.sleep(Math.max(0, Math.min(5, due - now)));
        continue;
      }
      int i = (int) sent;
      producer.send(ProducerRecords.data(input(i, pods, version, now, t0), partitions));
      sent++;
    }
    producer.flush();
    double secs = (System.currentTimeMillis() - start) / 1000.0;
    System.out.printf("produced %,d records in %.0f s: %,.0f records/s%n", sent, secs, sent / secs);
  }

  /** The {@code i}-th input: a pod change (the probe) in a hundred, else a sample or a request. */
  private Outgoing input(int i, int pods, long[] version, long now, long t0) {
    int p = i % pods;
    String uid = "u-" + p;
    String name = LoadShape.name(p);
    int kind = i % 100;
    if (kind == 0) {
      // A pod change whose latest fact is "now": its timeline's updatedAt identifies it.
      version[p]++;
      probes.put(uid + "@" + now, now);
      return records.pod(change(p, uid, name, version[p], now, t0));
    }
    if (kind < 10) {
      GpuSample g =
          GpuSample.newBuilder()
              .setTime(now)
              .setNode("gpu-node-1")
              .setGpu("0")
              .setUuid("GPU-" + uid)
              .setNamespace("ai-lab")
              .setPod(name)
              .setFields(Map.of("DCGM_FI_DEV_GPU_UTIL", 55.0, "DCGM_FI_DEV_FB_USED", 70000.0))
              .build();
      return records.gpuSample("ai-lab/" + name, g);
    }
    RequestLog r =
        RequestLog.newBuilder()
            .setTime(now)
            .setNamespace("ai-lab")
            .setPod(name)
            .setService("chat")
            .setStatus(200)
            .setLatencyMs(200.0)
            .setRequestId("q-" + i)
            .setReceivedAt(now)
            .build();
    return records.requestLog(r, null);
  }

  private static PodObservation change(
      int p, String uid, String name, long version, long now, long t0) {
    return PodObservation.newBuilder()
        .setUid(uid)
        .setNamespace("ai-lab")
        .setName(name)
        .setChangeType(ChangeType.MODIFIED)
        .setObservedAt(now)
        .setCreatedAt(t0 - 120_000)
        .setGpus(1)
        .setPriorityClassName("interactive")
        .setPriority(100000)
        .setNodeName("gpu-node-1")
        .setPhase("Running")
        .setResourceVersion(Long.toString(1_000_000 + version))
        .setOwner(
            new OwnerReference(
                "ReplicaSet", "chat-" + (p % LoadShape.DEPLOYMENTS) + "-5d8f7", "rs"))
        .setConditions(
            List.of(
                new PodCondition("PodScheduled", "True", null, null, t0 - 110_000),
                new PodCondition("Ready", version % 2 == 0 ? "True" : "False", null, null, now)))
        .setContainers(
            List.of(
                ContainerStatus.newBuilder()
                    .setName("model")
                    .setRestartCount((int) version)
                    .setRunningStartedAt(t0 - 100_000)
                    .build()))
        .build();
  }

  /** Each window's p50 and p99, then all and after the first 30 s. */
  private void report() {
    long first = windows.isEmpty() ? 0 : windows.firstKey();
    long worstP99 = 0;
    long worstP50 = 0;
    List<Long> steady = new ArrayList<>();
    List<Long> all = new ArrayList<>();
    for (var w : windows.entrySet()) {
      List<Long> l = new ArrayList<>(w.getValue());
      Collections.sort(l);
      all.addAll(l);
      boolean warm = w.getKey() >= first + 30_000;
      System.out.printf(
          "  10 s window at %3d s: %,d changes, p50 %d ms, p99 %d ms%s%n",
          (w.getKey() - first) / 1000,
          l.size(),
          StreamsLoad.pct(l, 0.5),
          StreamsLoad.pct(l, 0.99),
          warm ? "" : " (warm-up)");
      if (warm) {
        steady.addAll(l);
        worstP99 = Math.max(worstP99, StreamsLoad.pct(l, 0.99));
        worstP50 = Math.max(worstP50, StreamsLoad.pct(l, 0.5));
      }
    }
    Collections.sort(all);
    Collections.sort(steady);
    if (all.isEmpty()) {
      System.out.println("no timeline came back");
      return;
    }
    System.out.printf(
        "pod change -> updated timeline (read_committed), all %,d changes: p50 %d ms, p99 %d ms,"
            + " max %d ms%n",
        all.size(), StreamsLoad.pct(all, 0.5), StreamsLoad.pct(all, 0.99), all.get(all.size() - 1));
    if (!steady.isEmpty()) {
      System.out.printf(
          "after the first 30 s: p50 %d ms, p99 %d ms; worst 10 s window: p50 %d ms, p99 %d ms%n",
          StreamsLoad.pct(steady, 0.5), StreamsLoad.pct(steady, 0.99), worstP50, worstP99);
    }
  }
}
