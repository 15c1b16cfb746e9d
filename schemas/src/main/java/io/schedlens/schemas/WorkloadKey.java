package io.schedlens.schemas;

import io.schedlens.avro.WorkloadTimeline;

/**
 * A workload's key, the one spelling every module uses: {@code namespace/kind/name}, the object's
 * name (the key of {@code schedlens.workloads}, what a page or the API is asked for), plus {@code
 * /controllerUid} when the workload is its pods' own controller (a Job, a StatefulSet), so that a
 * Job created again under the same name, each repeat's Job, is another workload: its identity, the
 * key of {@code schedlens.workload-timelines} (a compacted topic must never fold one repeat into
 * the next), the streams app's state key, the report's and the export's row.
 */
public record WorkloadKey(String namespace, String kind, String name, String controllerUid) {

  /** The key without a controller UID. */
  public static WorkloadKey of(String namespace, String kind, String name) {
    return new WorkloadKey(namespace, kind, name, null);
  }

  /** The key of a workload timeline, with its controller UID when it has one. */
  public static WorkloadKey of(WorkloadTimeline t) {
    return new WorkloadKey(t.getNamespace(), t.getKind(), t.getName(), t.getControllerUid());
  }

  /** Reads {@code namespace/kind/name[/controllerUid]}. */
  public static WorkloadKey parse(String key) {
    String[] parts = key.split("/", 4);
    if (parts.length < 3) {
      throw new IllegalArgumentException("a workload key is namespace/kind/name[/uid], not " + key);
    }
    return new WorkloadKey(parts[0], parts[1], parts[2], parts.length == 4 ? parts[3] : null);
  }

  /** The object's name, {@code namespace/kind/name}: the key of {@code schedlens.workloads}. */
  public String topicKey() {
    return namespace + "/" + kind + "/" + name;
  }

  /**
   * {@code namespace/kind/name[/controllerUid]}: the key of {@code schedlens.workload-timelines}.
   */
  public String identity() {
    return controllerUid == null ? topicKey() : topicKey() + "/" + controllerUid;
  }

  @Override
  public String toString() {
    return identity();
  }
}
