package io.schedlens.streams.topology;

import java.util.ArrayList;
import java.util.List;
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

  TimerIndex(KeyValueStore<String, String> store) {
    this.store = store;
  }

  void add(String kind, long due, String id) {
    store.put(key(kind, due, id), "");
  }

  void cancel(String kind, long due, String id) {
    store.delete(key(kind, due, id));
  }

  /** Removes and returns the ids of the timers of a kind due at or before {@code time}. */
  List<String> due(String kind, long time) {
    List<KeyValue<String, String>> due = new ArrayList<>();
    String to = kind + "|" + (time == Long.MAX_VALUE ? "~" : pad(time) + "~");
    try (KeyValueIterator<String, String> it = store.range(kind + "|", to)) {
      it.forEachRemaining(due::add);
    }
    List<String> ids = new ArrayList<>(due.size());
    for (KeyValue<String, String> kv : due) {
      store.delete(kv.key);
      ids.add(kv.key.substring(kv.key.indexOf('|', kind.length() + 1) + 1));
    }
    return ids;
  }

  static String key(String kind, long due, String id) {
    return kind + "|" + pad(due) + "|" + id;
  }

  /** A time as 19 digits (negative times as 0), so that text order is time order. */
  static String pad(long time) {
    return String.format("%019d", Math.max(0, time));
  }
}
