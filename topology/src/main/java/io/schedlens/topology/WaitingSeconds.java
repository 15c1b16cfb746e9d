package io.schedlens.topology;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.timeline.InputSeconds;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * GPU samples and requests waiting, gathered per pod name and second ({@link InputSeconds}), until
 * the second is complete and its incarnation known; a second that was settled before opens with the
 * ids it kept ({@link RequestIdWindows}), so that a line seen twice counts once. Keys are {@code
 * second|namespace/name}, the second zero-padded, so that store order is time order.
 */
final class WaitingSeconds {

  private final HotStore<InputSecond> pending;

  /**
   * Request ids of settled seconds: written once per pod and second, read only for a line that
   * comes after its second settled, so not kept decoded (kept, they filled the heap: live heap
   * after a 5-minute StreamsLoad latency run 67 to 107 MiB with them, 44 to 68 MiB without).
   */
  private final RequestIdWindows seen;

  /**
   * The keys of {@code pending}, in time order: seconds come due as the pods stream passes them,
   * and most keys are new, so looking them up in RocksDB (or scanning it over the tombstones of
   * settled seconds) would cost more than keeping the few waiting keys here. Read from the store at
   * start.
   */
  private final TreeSet<String> keys = new TreeSet<>();

  WaitingSeconds(HotStore<InputSecond> pending, RequestIdWindows seen) {
    this.pending = pending;
    this.seen = seen;
    try (KeyValueIterator<String, InputSecond> it = pending.store().all()) {
      it.forEachRemaining(kv -> keys.add(kv.key));
    }
  }

  static String key(long second, String name) {
    return TimerIndex.pad(second) + "|" + name;
  }

  /**
   * The second's inputs gathered so far, or a new gathering; for a complete second, which may have
   * been settled before, with the request ids it kept.
   */
  InputSecond open(String key, long second, String name, boolean complete) {
    InputSecond b = keys.contains(key) ? pending.get(key) : null;
    if (b == null) {
      b = InputSeconds.empty(second, name);
      List<Long> ids = complete ? seen.of(name, second) : null;
      if (ids != null) {
        b.setIds(new ArrayList<>(ids));
      }
    }
    return b;
  }

  InputSecond get(String key) {
    return pending.get(key);
  }

  /** The second waits. */
  void keep(String key, InputSecond b) {
    if (keys.add(key)) {
      pending.putNew(key, b); // the keys mirror the store: it holds none for this one
    } else {
      pending.put(key, b);
    }
  }

  /** The second was settled (or was empty): it waits no longer. */
  void done(String key) {
    if (keys.remove(key)) {
      pending.delete(key);
    }
  }

  /** The keys of the waiting seconds up to and including {@code second}, in time order. */
  List<String> upTo(long second) {
    return new ArrayList<>(keys.headSet(TimerIndex.pad(second) + "|\uffff", true));
  }

  /** Keeps what is left of a settled second, its ids, for the de-duplication window. */
  void rememberIds(InputSecond settled) {
    seen.remember(settled.getName(), settled.getSecond(), settled.getIds());
  }
}
