package io.schedlens.schemas;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * A pod's {@code namespace/name}: the key of GPU samples and request logs, and the partitioning key
 * of every input about a pod. Names are reused (a StatefulSet's pod, a recreated bare pod), so a
 * name is not an identity; the UID is. But all four inputs about a pod (its observations and
 * events, keyed by UID, and its samples and requests, keyed by name) are partitioned by the name,
 * so that one stream task sees every incarnation of a name together with everything that names it,
 * and can tell which incarnation a sample belongs to without asking another task.
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 */
public record PodName(String namespace, String name) {

  public PodName {
    if (namespace == null || name == null) {
      throw new IllegalArgumentException("a pod name needs a namespace and a name");
    }
  }

  /** The observed pod's name. */
  public static PodName of(PodObservation p) {
    return new PodName(p.getNamespace(), p.getName());
  }

  /** The name of the pod an event regards, or null when the event does not say it. */
  public static PodName regardedBy(ClusterEvent e) {
    var r = e.getRegarding();
    return r == null || r.getNamespace() == null || r.getName() == null
        ? null
        : new PodName(r.getNamespace(), r.getName());
  }

  /** Parses {@code namespace/name}; null when it is not of that form. */
  public static PodName parse(String key) {
    if (key == null) {
      return null;
    }
    int slash = key.indexOf('/');
    if (slash <= 0 || slash == key.length() - 1 || key.indexOf('/', slash + 1) >= 0) {
      return null;
    }
    return new PodName(key.substring(0, slash), key.substring(slash + 1));
  }

  /** {@code namespace/name}. */
  public String key() {
    return namespace + "/" + name;
  }

  /** The partition of this pod's inputs: what Kafka's default partitioner gives the key. */
  public int partition(int partitions) {
    return partitionOf(key(), partitions);
  }

  /** What Kafka's default partitioner gives a record keyed {@code key}. */
  public static int partitionOf(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  @Override
  public String toString() {
    return key();
  }
}
