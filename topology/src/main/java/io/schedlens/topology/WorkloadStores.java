package io.schedlens.topology;

import io.schedlens.avro.internal.SecondCount;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.timeline.WorkloadContinuity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The workload stage's stores: each workload's own state, its pods' facts (keyed by workload and
 * pod) and its request errors and breaches per second (keyed by workload, kind and second), each
 * kept to its bound.
 */
final class WorkloadStores {

  static final int MAX_REQUEST_SECONDS = 2000;

  private static final char SEP = '\u0000';

  final HotStore<WorkloadState> workloads;
  private final KeyValueStore<String, WorkloadMember> pods;
  private final KeyValueStore<String, SecondCount> seconds;

  WorkloadStores(
      HotStore<WorkloadState> workloads,
      KeyValueStore<String, WorkloadMember> pods,
      KeyValueStore<String, SecondCount> seconds) {
    this.workloads = workloads;
    this.pods = pods;
    this.seconds = seconds;
  }

  /** The pod's facts, kept; whether it joined the workload with them (it was not a member). */
  boolean join(String key, String uid, WorkloadMember pod) {
    boolean joined = pods.get(podKey(key, uid)) == null;
    pods.put(podKey(key, uid), pod);
    return joined;
  }

  /** Frees everything of the workload. */
  void forget(String key) {
    List<String> entries = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadMember> it =
        pods.prefixScan(key + SEP, new StringSerializer())) {
      it.forEachRemaining(kv -> entries.add(kv.key));
    }
    entries.forEach(k -> HotStore.remove(pods, k));
    entries.clear();
    try (KeyValueIterator<String, SecondCount> it =
        seconds.prefixScan(key + SEP, new StringSerializer())) {
      it.forEachRemaining(kv -> entries.add(kv.key));
    }
    entries.forEach(k -> HotStore.remove(seconds, k));
    workloads.delete(key);
  }

  void count(String key, long at, String kind, int n) {
    if (n <= 0) {
      return;
    }
    long second = Math.floorDiv(at, 1000L) * 1000L;
    String k = key + SEP + kind + SEP + TimerIndex.pad(second);
    SecondCount c = seconds.get(k);
    seconds.put(k, new SecondCount(second, (c == null ? 0 : c.getN()) + n));
  }

  /**
   * The workload's pods, the latest {@link WorkloadContinuity#MAX_PODS} by creation; older ones are
   * forgotten here.
   */
  List<WorkloadMember> members(String key) {
    List<KeyValue<String, WorkloadMember>> all = new ArrayList<>();
    try (KeyValueIterator<String, WorkloadMember> it =
        pods.prefixScan(key + SEP, new StringSerializer())) {
      it.forEachRemaining(all::add);
    }
    if (all.size() > WorkloadContinuity.MAX_PODS) {
      all.sort(
          Comparator.comparing(
              (KeyValue<String, WorkloadMember> kv) ->
                  kv.value.getCreatedAt() == null ? Long.MAX_VALUE : kv.value.getCreatedAt()));
      for (KeyValue<String, WorkloadMember> kv :
          all.subList(0, all.size() - WorkloadContinuity.MAX_PODS)) {
        HotStore.remove(pods, kv.key);
      }
      all = new ArrayList<>(all.subList(all.size() - WorkloadContinuity.MAX_PODS, all.size()));
    }
    List<WorkloadMember> out = new ArrayList<>(all.size());
    all.forEach(kv -> out.add(kv.value));
    return out;
  }

  /** Request errors ("e") or breaches ("b") per second, the latest ones. */
  List<SecondCount> counts(String key, String kind) {
    List<KeyValue<String, SecondCount>> all = new ArrayList<>();
    try (KeyValueIterator<String, SecondCount> it =
        seconds.prefixScan(key + SEP + kind + SEP, new StringSerializer())) {
      it.forEachRemaining(all::add);
    }
    if (all.size() > MAX_REQUEST_SECONDS) {
      for (KeyValue<String, SecondCount> kv : all.subList(0, all.size() - MAX_REQUEST_SECONDS)) {
        HotStore.remove(seconds, kv.key);
      }
      all = all.subList(all.size() - MAX_REQUEST_SECONDS, all.size());
    }
    List<SecondCount> out = new ArrayList<>(all.size());
    all.forEach(kv -> out.add(kv.value));
    return out;
  }

  /**
   * The workload's own state; an earlier version kept its pods and request times inside it, which
   * move to their own stores the first time it is read.
   */
  WorkloadState state(String key) {
    WorkloadState w = workloads.get(key);
    if (w == null) {
      return WorkloadState.newBuilder().build();
    }
    if (!w.getPods().isEmpty() || !w.getErrorTimes().isEmpty() || !w.getBreachTimes().isEmpty()) {
      for (WorkloadMember p : w.getPods()) {
        pods.put(podKey(key, p.getUid()), p);
      }
      w.getErrorTimes().forEach(t -> count(key, t, "e", 1));
      w.getBreachTimes().forEach(t -> count(key, t, "b", 1));
      w.setPods(new ArrayList<>());
      w.setErrorTimes(new ArrayList<>());
      w.setBreachTimes(new ArrayList<>());
    }
    return w;
  }

  private static String podKey(String key, String uid) {
    return key + SEP + uid;
  }
}
