package io.schedlens.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
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
   * The keys the store holds, in its order: what is due is read here, never by a range over the
   * store. A task asks what is due at every progress mark, four kinds at a time; as RocksDB range
   * reads, those asks grew as a backlog went on, to a third of the stream thread by the end of
   * StreamsLoad's sparse backlog (20,000 pod lives over 17 hours), where a sorted set answers them
   * in logarithmic time. Read from the store when the task starts, which is the truth across
   * restarts; the store gets the same puts and deletes as before (but a timer set twice is put
   * once).
   */
  private final TreeSet<String> keys = new TreeSet<>();

  TimerIndex(KeyValueStore<String, String> store) {
    this.store = store;
    try (KeyValueIterator<String, String> it = store.all()) {
      it.forEachRemaining(kv -> keys.add(kv.key));
    }
  }

  void add(String kind, long due, String id) {
    String key = key(kind, due, id);
    if (keys.add(key)) {
      store.put(key, "");
    }
  }

  void cancel(String kind, long due, String id) {
    String key = key(kind, due, id);
    if (keys.remove(key)) {
      HotStore.remove(store, key);
    }
  }

  /**
   * Removes and returns the ids of the timers of a kind due at or before {@code time}, in due time
   * and then id order.
   */
  List<String> due(String kind, long time) {
    String to = kind + "|" + (time == Long.MAX_VALUE ? "~" : pad(time) + "~");
    NavigableSet<String> due = keys.subSet(kind + "|", true, to, true);
    if (due.isEmpty()) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(due.size());
    for (String key : due) {
      HotStore.remove(store, key);
      ids.add(key.substring(key.indexOf('|', kind.length() + 1) + 1));
    }
    due.clear();
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
