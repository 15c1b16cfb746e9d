package io.schedlens.collector.kafka;

import io.schedlens.collector.CollectorMetrics;
import io.schedlens.common.threads.WorkerThreads;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.ProducerRecords;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the collector sends goes through here: a bounded buffer in front of one idempotent,
 * {@code acks=all}, compressed Kafka producer that retries until Kafka takes the record.
 *
 * <p>Sources never block: Kubernetes handlers and the scraper {@link #offer} and learn at once
 * whether there was room. When Kafka is away the buffer fills instead of dropping: a Kubernetes
 * source that found it full is told to relist once Kafka is back and the buffer has drained (its
 * state then converges), the scraper skips scrapes, and the request-log intake answers 503 so that
 * the shipper retries. Nothing is dropped without a counter and a log line.
 */
public final class KafkaSink implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KafkaSink.class);

  private final KafkaProducer<byte[], byte[]> producer;
  private final Admin admin;
  private final BlockingQueue<Outgoing> queue = new LinkedBlockingQueue<>();
  // Records Kafka answered with a retriable error; sent again before new ones, outside the bound
  // (they were already counted in it once).
  private final Queue<Outgoing> retries = new ConcurrentLinkedQueue<>();
  private final Semaphore room;
  private final int capacity;

  /** The bound of the buffer in bytes (keys, values and a record's overhead), beside the count. */
  private final long capacityBytes;

  private final AtomicLong bufferedBytes = new AtomicLong();
  private final CollectorMetrics metrics;
  private final Thread pump;
  private final ScheduledExecutorService prober;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicBoolean kafkaUp = new AtomicBoolean(false);
  private final Set<String> sourcesWithGap = ConcurrentHashMap.newKeySet();
  private final Set<String> relisting = ConcurrentHashMap.newKeySet();
  private final Map<String, Runnable> relisters = new ConcurrentHashMap<>();
  private volatile long lastOverflowLog;

  /**
   * @param clientSettings Kafka client settings (bootstrap servers, security) shared by all clients
   * @param capacity how many records may wait in the buffer
   */
  public KafkaSink(Map<String, Object> clientSettings, int capacity, CollectorMetrics metrics) {
    this(clientSettings, capacity, Long.MAX_VALUE, metrics);
  }

  /**
   * @param capacityBytes how many bytes (keys, values, {@link #OVERHEAD} per record) may wait in
   *     the buffer: a bound on memory whatever the size of the records
   */
  public KafkaSink(
      Map<String, Object> clientSettings,
      int capacity,
      long capacityBytes,
      CollectorMetrics metrics) {
    this.capacity = capacity;
    this.capacityBytes = capacityBytes;
    this.room = new Semaphore(capacity);
    this.metrics = metrics;
    this.producer =
        new KafkaProducer<>(
            producerSettings(clientSettings), new ByteArraySerializer(), new ByteArraySerializer());
    Map<String, Object> adminSettings = new HashMap<>(clientSettings);
    adminSettings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    adminSettings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    adminSettings.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2_000);
    this.admin = Admin.create(adminSettings);
    metrics.bufferGauges(queue::size, capacity);
    metrics.bufferByteGauges(bufferedBytes::get, capacityBytes);
    // An Error on the pump or the probe ends the process (WorkerThreads): a collector whose pump
    // died would take lines it never sends.
    this.pump = WorkerThreads.daemon("kafka-sink-pump", this::pumpLoop);
    pump.start();
    this.prober =
        Executors.newSingleThreadScheduledExecutor(WorkerThreads.factory("kafka-sink-probe"));
    prober.scheduleWithFixedDelay(
        WorkerThreads.periodic("the Kafka probe", this::probe), 0, 2, TimeUnit.SECONDS);
  }

  /** The producer settings: client settings plus the delivery guarantees of the collector. */
  static Map<String, Object> producerSettings(Map<String, Object> clientSettings) {
    Map<String, Object> s = new HashMap<>();
    s.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    s.put(ProducerConfig.LINGER_MS_CONFIG, 10);
    s.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    s.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 32L * 1024 * 1024);
    s.putAll(clientSettings);
    // Not overridable: these are the collector's promise of no loss and no reordering.
    s.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    s.put(ProducerConfig.ACKS_CONFIG, "all");
    s.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    s.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
    s.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
    s.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
    return s;
  }

  /**
   * Registers what a source does to converge after its records found the buffer full: re-send its
   * current state (a relist).
   */
  public void onGap(String source, Runnable relist) {
    relisters.put(source, relist);
  }

  /**
   * Whether records of {@code source} were not queued and are still to be re-sent (its relist has
   * not been queued yet): its topic's progress marks must wait, or they would pass them.
   */
  public boolean awaitingResend(String source) {
    return sourcesWithGap.contains(source) || relisting.contains(source);
  }

  /** What a record is taken to cost in the buffer beyond its key and value (objects, headers). */
  static final int OVERHEAD = 128;

  /** What a record costs in the buffer: its key, value and {@link #OVERHEAD}. */
  public static long bytesOf(Outgoing r) {
    return OVERHEAD
        + (r.key() == null ? 0 : r.key().length)
        + (r.value() == null ? 0 : r.value().length);
  }

  /** Takes room for {@code bytes} in the byte bound, or nothing when they do not fit. */
  private boolean takeBytes(long bytes) {
    while (true) {
      long now = bufferedBytes.get();
      if (now + bytes > capacityBytes) {
        return false;
      }
      if (bufferedBytes.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Queues one record; false (and counted) when the buffer is full, in records or in bytes. */
  public boolean offer(Outgoing record) {
    long bytes = bytesOf(record);
    if (!running.get() || !room.tryAcquire()) {
      overflow(record.source(), 1);
      return false;
    }
    if (!takeBytes(bytes)) {
      room.release();
      overflow(record.source(), 1);
      return false;
    }
    queue.add(record);
    return true;
  }

  /** Queues all records or none; false (and counted) when they do not all fit. */
  public boolean offerAll(String source, List<Outgoing> records) {
    return offerBatch(source, records) == Offer.TAKEN;
  }

  /** What became of a batch offered whole. */
  public enum Offer {
    /** In the buffer, all of it. */
    TAKEN,
    /** None of it: the buffer has no room now; offer it again later. */
    FULL,
    /**
     * None of it, ever: it is larger than the whole buffer in records or bytes, so offering it
     * again cannot help (the intake's 413, where a 503 would have the shipper retry forever).
     */
    NEVER
  }

  /** Takes all the records or none, and says which and why. */
  public Offer offerBatch(String source, List<Outgoing> records) {
    if (records.isEmpty()) {
      return Offer.TAKEN;
    }
    long bytes = records.stream().mapToLong(KafkaSink::bytesOf).sum();
    if (records.size() > capacity || bytes > capacityBytes) {
      return Offer.NEVER;
    }
    if (!running.get() || !room.tryAcquire(records.size())) {
      overflow(source, records.size());
      return Offer.FULL;
    }
    if (!takeBytes(bytes)) {
      room.release(records.size());
      overflow(source, records.size());
      return Offer.FULL;
    }
    queue.addAll(records);
    return Offer.TAKEN;
  }

  /** The buffer's whole capacity, as its settings name it. */
  public String capacity() {
    return capacity + " records (buffer.records) and " + capacityBytes + " bytes (buffer.bytes)";
  }

  /**
   * Whether the buffer is more than 90 % full, in records or in bytes: time to push back on
   * optional work (the intake answers 503 before it takes a line).
   */
  public boolean saturated() {
    return queue.size() > capacity * 0.9 || bufferedBytes.get() > capacityBytes * 0.9;
  }

  /** Bytes waiting in the buffer, as the byte bound counts them. */
  public long bufferedBytes() {
    return bufferedBytes.get();
  }

  /** Whether the send pump is running (while the sink is open). */
  public boolean pumping() {
    return pump.isAlive();
  }

  /** Whether the last probe reached Kafka. */
  public boolean kafkaReachable() {
    return kafkaUp.get();
  }

  /** Records waiting in the buffer. */
  public int buffered() {
    return queue.size();
  }

  /** Waits until the buffer is empty and the producer has sent everything, or the timeout. */
  public boolean drain(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while ((room.availablePermits() < capacity || !retries.isEmpty())
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    producer.flush();
    return room.availablePermits() == capacity;
  }

  private void overflow(String source, int n) {
    metrics.bufferOverflows.labelValues(source).inc(n);
    sourcesWithGap.add(source);
    long now = System.currentTimeMillis();
    if (now - lastOverflowLog > 10_000) {
      lastOverflowLog = now;
      log.warn(
          "send buffer full ({} records; Kafka {}): {} record(s) from {} not queued; {}",
          queue.size(),
          kafkaUp.get() ? "reachable but slow" : "unreachable",
          n,
          source,
          relisters.containsKey(source)
              ? "it will re-send its current state once Kafka is back"
              : "the sender is told to retry");
    }
  }

  private void release(Outgoing r) {
    room.release();
    bufferedBytes.addAndGet(-bytesOf(r));
  }

  private void pumpLoop() {
    Outgoing pending = null;
    boolean retry = false;
    while (running.get() || pending != null || !queue.isEmpty()) {
      try {
        if (pending == null) {
          pending = retries.poll();
          retry = pending != null;
          if (pending == null) {
            pending = queue.poll(100, TimeUnit.MILLISECONDS);
          }
          if (pending == null) {
            continue;
          }
        }
        send(pending);
        if (!retry) {
          release(pending);
        }
        pending = null;
      } catch (InterruptedException e) {
        if (!running.get()) {
          return;
        }
      } catch (TimeoutException e) {
        // Kafka is away, or the topic is missing or hidden from this user (no metadata), or the
        // producer's own buffer is full: keep the record and try again; the buffer behind us
        // absorbs the sources meanwhile. Counted by topic: with Kafka reachable, a topic that
        // keeps the pump waiting is missing (alert SchedlensCollectorTopicNotWritable).
        if (!running.get()) {
          return;
        }
        metrics.sendWaits.labelValues(pending.topic()).inc();
      } catch (KafkaException e) {
        log.error("Kafka refused a record for {} for good: {}", pending.topic(), e.toString());
        metrics.recordsFailed.labelValues(pending.topic(), e.getClass().getSimpleName()).inc();
        if (pending.ack() != null) {
          pending.ack().failed(e);
        }
        if (!retry) {
          release(pending);
        }
        pending = null;
      }
    }
  }

  private void send(Outgoing r) {
    // KafkaProducer.send reports missing metadata through the callback, not by throwing; asking
    // for the partitions first blocks (up to max.block.ms) and throws instead, so that the pump
    // keeps the record and tries again rather than losing it.
    int partitions = producer.partitionsFor(r.topic()).size();
    if (r.mark()) {
      // A mark goes to every partition, behind everything queued before it. One that fails is
      // not retried: the next one, a moment later, says more.
      for (ProducerRecord<byte[], byte[]> m : ProducerRecords.of(r, partitions)) {
        producer.send(
            m,
            (metadata, error) -> {
              if (error != null) {
                metrics.recordsFailed.labelValues(r.topic(), "mark").inc();
              }
            });
      }
      return;
    }
    producer.send(
        ProducerRecords.data(r, partitions),
        (metadata, error) -> {
          if (error == null) {
            metrics.recordsProduced.labelValues(r.topic()).inc();
            if (r.ack() != null) {
              r.ack().acknowledged();
            }
          } else if (error instanceof RetriableException && running.get()) {
            // Not lost: queued again (possibly behind later records of the same key, which the
            // consumers' event-time handling tolerates).
            log.warn(
                "Kafka did not take a record for {} yet ({}); retrying",
                r.topic(),
                error.toString());
            metrics.recordsRetried.labelValues(r.topic()).inc();
            retries.add(r);
          } else {
            String reason = error.getClass().getSimpleName();
            log.error("Kafka refused a record for {}: {}", r.topic(), error.toString());
            metrics.recordsFailed.labelValues(r.topic(), reason).inc();
            if (r.ack() != null) {
              r.ack().failed(error);
            }
            sourcesWithGap.add(r.source());
          }
        });
  }

  private void probe() {
    boolean up;
    try {
      up =
          !admin
              .describeCluster(new DescribeClusterOptions().timeoutMs(4_000))
              .nodes()
              .get(5, TimeUnit.SECONDS)
              .isEmpty();
    } catch (Exception e) {
      up = false;
    }
    boolean was = kafkaUp.getAndSet(up);
    metrics.kafkaUp.set(up ? 1 : 0);
    if (was != up) {
      if (up) {
        log.info("Kafka is reachable");
      } else {
        log.warn("Kafka is unreachable; records wait in the send buffer ({} now)", queue.size());
      }
    }
    if (up && queue.size() < capacity / 2 && !sourcesWithGap.isEmpty()) {
      for (String source : Set.copyOf(sourcesWithGap)) {
        Runnable relist = relisters.get(source);
        if (relist != null) {
          relisting.add(source);
          sourcesWithGap.remove(source);
          log.info(
              "{}: records were not queued while the buffer was full; re-sending current state",
              source);
          try {
            relist.run();
          } catch (RuntimeException e) {
            sourcesWithGap.add(source);
            log.warn("{}: relist failed, will retry: {}", source, e.toString());
          } finally {
            relisting.remove(source);
          }
        }
      }
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  /** Sends what is buffered (up to the timeout), then stops. */
  public void close(Duration timeout) {
    if (!running.get()) {
      return;
    }
    drain(timeout);
    running.set(false);
    pump.interrupt();
    try {
      pump.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    prober.shutdownNow();
    producer.close(timeout);
    admin.close(Duration.ofSeconds(2));
    if (!queue.isEmpty()) {
      log.warn("{} record(s) were still buffered when the collector stopped", queue.size());
    }
  }
}
