package io.schedlens.serving.api;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The workload timelines a name has had, from the published store, which is keyed by identity
 * ({@code namespace/kind/name/controllerUid}) and holds, from before the key carried the identity,
 * records keyed by the name alone. All of a name's keys sort together, from the name to the name
 * and {@code "/\uffff"}; the range also holds longer names ({@code name-2}), left out.
 */
final class WorkloadsOfName {

  private WorkloadsOfName() {}

  /** Every timeline of the name, newest (latest updatedAt) first. */
  static List<WorkloadTimeline> all(
      ReadOnlyKeyValueStore<String, WorkloadTimeline> store, String name) {
    List<WorkloadTimeline> out = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadTimeline> it = store.range(name, name + "/\uffff")) {
      while (it.hasNext()) {
        var kv = it.next();
        if (kv.value != null && (kv.key.equals(name) || kv.key.startsWith(name + "/"))) {
          out.add(kv.value);
        }
      }
    }
    out.sort(
        Comparator.comparingLong(WorkloadTimeline::getUpdatedAt)
            .reversed()
            .thenComparing(w -> WorkloadKey.of(w).identity()));
    return out;
  }

  /**
   * The timeline {@code key} names: an identity ({@code .../controllerUid}) exactly, a name ({@code
   * namespace/kind/name}) its newest.
   */
  static Optional<WorkloadTimeline> find(
      ReadOnlyKeyValueStore<String, WorkloadTimeline> store, String key) {
    WorkloadKey k = WorkloadKey.parse(key);
    List<WorkloadTimeline> all = all(store, k.topicKey());
    if (k.controllerUid() == null) {
      return all.stream().findFirst();
    }
    return all.stream().filter(w -> WorkloadKey.of(w).identity().equals(k.identity())).findFirst();
  }
}
