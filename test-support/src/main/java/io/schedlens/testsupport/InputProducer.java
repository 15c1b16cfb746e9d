package io.schedlens.testsupport;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.GpuSampleKey;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import io.schedlens.schemas.WorkloadKey;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces inputs as the collector does, for the tests that run the streams app on a real broker:
 * keyed as docs/design.md section 3 says, partitioned by the pod's {@code namespace/name},
 * timestamped with event time, and with progress marks on every partition of every input topic a
 * second (of event time) behind the inputs, and a last mark that ends the input.
 */
public final class InputProducer implements AutoCloseable {

  private final Topics topics;
  private final int partitions;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Set<String> held = new HashSet<>();
  private long lastMark = Long.MIN_VALUE;

  public InputProducer(String bootstrap, Topics topics, int partitions) {
    this(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), topics, partitions);
  }

  /** With the client settings of a real deployment (bootstrap, security protocol, SASL, TLS). */
  public InputProducer(Map<String, Object> clientSettings, Topics topics, int partitions) {
    this.topics = topics;
    this.partitions = partitions;
    Map<String, Object> c = new HashMap<>(clientSettings);
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    this.producer = new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Produces the inputs (in event-time order), marking every input topic as it goes. */
  public void produce(List<?> inputs) {
    for (Object i : inputs) {
      long t = timestampOf(i);
      if (t - 1000 > lastMark + 1000) {
        mark(t - 1000);
      }
      producer.send(record(i));
    }
    producer.flush();
  }

  /**
   * Marks no more on {@code topic} until {@link #release}: a producer that stopped (a paused
   * partition, a collector that is down), or a topic another producer marks (the collector's own
   * request-log and GPU topics beside a test's pod observations).
   */
  public InputProducer hold(String topic) {
    held.add(topic);
    return this;
  }

  /** Marks {@code topic} again from the next mark on. */
  public InputProducer release(String topic) {
    held.remove(topic);
    return this;
  }

  /** A progress mark of {@code time} on every partition of every input topic not held. */
  public void mark(long time) {
    lastMark = Math.max(lastMark, time);
    for (String topic :
        List.of(
            topics.pods.name(),
            topics.events.name(),
            topics.gpuSamples.name(),
            topics.requests.name(),
            topics.workloads.name())) {
      if (held.contains(topic)) {
        continue;
      }
      for (int p = 0; p < partitions; p++) {
        producer.send(
            new ProducerRecord<>(
                topic,
                p,
                ProgressMarks.timestamp(time, System.currentTimeMillis()),
                null,
                ProgressMarks.value("test", time),
                ProgressMarks.headers()));
      }
    }
  }

  /** The end of the input: every final timeline due goes out. */
  public void end() {
    mark(ProgressMarks.END);
    producer.flush();
  }

  private ProducerRecord<byte[], byte[]> record(Object i) {
    long ts = timestampOf(i);
    if (i instanceof PodObservation o) {
      return new ProducerRecord<>(
          topics.pods.name(),
          PodName.of(o).partition(partitions),
          ts,
          utf8(o.getUid()),
          topics.pods.valueSerde().serializer().serialize("", o));
    } else if (i instanceof ClusterEvent e) {
      return new ProducerRecord<>(
          topics.events.name(),
          PodName.regardedBy(e).partition(partitions),
          ts,
          utf8(e.getRegarding().getUid()),
          topics.events.valueSerde().serializer().serialize("", e));
    } else if (i instanceof GpuSample g) {
      return new ProducerRecord<>(
          topics.gpuSamples.name(),
          null,
          ts,
          utf8(GpuSampleKey.of(g)),
          topics.gpuSamples.valueSerde().serializer().serialize("", g));
    } else if (i instanceof RequestLog r) {
      return new ProducerRecord<>(
          topics.requests.name(),
          null,
          ts,
          utf8(new PodName(r.getNamespace(), r.getPod()).key()),
          topics.requests.valueSerde().serializer().serialize("", r));
    } else if (i instanceof WorkloadObservation w) {
      return new ProducerRecord<>(
          topics.workloads.name(),
          null,
          ts,
          utf8(WorkloadKey.of(w.getNamespace(), w.getKind(), w.getName()).topicKey()),
          topics.workloads.valueSerde().serializer().serialize("", w));
    }
    throw new IllegalArgumentException("not an input: " + i);
  }

  /** The event time an input's record carries, as the collector stamps it. */
  public static long timestampOf(Object input) {
    if (input instanceof PodObservation o) {
      return o.getObservedAt();
    } else if (input instanceof ClusterEvent e) {
      return EventTimes.of(e);
    } else if (input instanceof GpuSample g) {
      return g.getTime();
    } else if (input instanceof WorkloadObservation w) {
      return w.getObservedAt();
    }
    return ((RequestLog) input).getTime();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
