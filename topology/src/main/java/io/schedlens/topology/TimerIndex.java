package io.schedlens.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Timers in event time, kept in a store so that they survive a restart: {@code kind|due|id},
 * zero-padded so that the store's byte order is the order of due times. Nothing here reads a clock:
 * a caller asks what is due up to the progress it has seen.
 */
final class TimerIndex {

  /** A pod's final timeline: due at its end plus the grace period, on the answered watermark. */
  static final String FINAL = "final";

  /** A pod pending past the starvation threshold, on the pods stream's progress. */
  static final String STARVE = "starve";

  /** Inputs for a UID never observed, on the pods stream's progress. */
  static final String ORPHAN = "orphan";

  /** A retired incarnation's stub, on the pods stream's progress. */
  static final String FORGET = "forget";

  /** A victim with no named preemptor asks its node, on the task's input progress. */
  static final String ASK = "ask";

  /** A node's victims are decided, on the pod stage's progress. */
  static final String DECIDE = "decide";

  private final KeyValueStore<String, String> store;

  /**
   * Per kind, where the next scan starts: timers before it have fired and been deleted, and RocksDB
   * would walk their tombstones on every scan from the start. In memory: after a restart the first
   * scan starts at the beginning.
   */
  private final Map<String, String> floor = new HashMap<>();

  TimerIndex(KeyValueStore<String, String> store) {
    this.store = store;
  }

  void add(String kind, long due, String id) {
    String key = key(kind, due, id);
    store.put(key, "");
    String f = floor.get(kind);
    if (f != null && key.compareTo(f) < 0) {
      floor.put(kind, key);
    }
  }

  void cancel(String kind, long due, String id) {
    HotStore.remove(store, key(kind, due, id));
  }

  /** Removes and returns the ids of the timers of a kind due at or before {@code time}. */
  List<String> due(String kind, long time) {
    List<KeyValue<String, String>> due = new ArrayList<>();
    String to = kind + "|" + (time == Long.MAX_VALUE ? "~" : pad(time) + "~");
    String from = floor.getOrDefault(kind, kind + "|");
    if (from.compareTo(to) > 0) {
      return List.of();
    }
    try (KeyValueIterator<String, String> it = store.range(from, to)) {
      it.forEachRemaining(due::add);
    }
    floor.put(kind, to);
    List<String> ids = new ArrayList<>(due.size());
    for (KeyValue<String, String> kv : due) {
      HotStore.remove(store, kv.key);
      ids.add(kv.key.substring(kv.key.indexOf('|', kind.length() + 1) + 1));
    }
    return ids;
  }

  static String key(String kind, long due, String id) {
    return kind + "|" + pad(due) + "|" + id;
  }

  /** A time as 19 digits (negative times as 0), so that text order is time order. */
  static String pad(long time) {
    String digits = Long.toString(Math.max(0, time));
    return ZEROS.substring(digits.length()) + digits;
  }

  private static final String ZEROS = "0000000000000000000";
}
