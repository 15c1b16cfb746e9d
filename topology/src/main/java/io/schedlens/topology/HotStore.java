package io.schedlens.topology;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A key-value store with the values last written kept as objects. Kafka Streams' cache holds bytes,
 * so reading a value back decodes it again; a pod's state is read for every one of its inputs, and
 * decoding it each time would cost more than applying the input. Writes go through to the store at
 * once (its cache then writes the changelog once per commit), so the store is always the truth; the
 * objects are dropped with the processor on a rebalance or restart, and evicted for a key whose
 * update failed half-way.
 */
final class HotStore<V> {

  private final KeyValueStore<String, V> store;
  private final WriteBackStore<V> writeBack;
  private final Map<String, V> hot;

  HotStore(KeyValueStore<String, V> store, int capacity) {
    this.store = store;
    this.writeBack = WriteBackStore.under(store);
    this.hot =
        new LinkedHashMap<>(1024, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The value, or null. */
  V get(String key) {
    V v = hot.get(key);
    if (v == null) {
      v = store.get(key);
      if (v != null) {
        hot.put(key, v);
      }
    }
    return v;
  }

  void put(String key, V value) {
    store.put(key, value);
    hot.put(key, value);
  }

  /**
   * Writes the value of a key the caller knows the store to hold no value for; deleted before the
   * next commit, it costs the store nothing ({@link WriteBackStore#putNew}).
   */
  void putNew(String key, V value) {
    if (writeBack != null) {
      writeBack.putNew(key, value);
    } else {
      store.put(key, value);
    }
    hot.put(key, value);
  }

  void delete(String key) {
    remove(store, key);
    hot.remove(key);
  }

  /**
   * Deletes a key without reading its value: {@code KeyValueStore.delete} returns the old value, so
   * it reads and decodes it (4 % of the stream thread's time in StreamsLoad fleet); a put of null
   * writes the same tombstone.
   */
  static <V> void remove(KeyValueStore<String, V> store, String key) {
    store.put(key, null);
  }

  /** Forgets the object of a key whose update failed half-way (the store still holds the last). */
  void evict(String key) {
    hot.remove(key);
  }

  KeyValueStore<String, V> store() {
    return store;
  }
}
