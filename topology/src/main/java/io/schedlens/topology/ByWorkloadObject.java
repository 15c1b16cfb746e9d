package io.schedlens.topology;

import io.schedlens.schemas.PodName;

/**
 * The partition of a workload's facts: by {@code namespace/kind/name} alone. A Job's or
 * StatefulSet's key also carries its controller's UID ({@code namespace/kind/name/uid}), and its
 * facts must meet the workload object the collector keys by {@code namespace/kind/name} on the
 * {@code workloads} topic. The same hash as the producers' default partitioner.
 */
final class ByWorkloadObject {

  private ByWorkloadObject() {}

  /** The partition of a workload key's facts. */
  static int partition(String key, int numPartitions) {
    return PodName.partitionOf(objectKey(key), numPartitions);
  }

  /** The key without a controller UID. */
  static String objectKey(String key) {
    int first = key.indexOf('/');
    int second = first < 0 ? -1 : key.indexOf('/', first + 1);
    int third = second < 0 ? -1 : key.indexOf('/', second + 1);
    return third < 0 ? key : key.substring(0, third);
  }
}
