package io.schedlens.topology;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A key-value store that keeps the values written since the last commit as objects and hands each
 * to the store below (which serializes it, caches the bytes and logs them) once, when Kafka Streams
 * flushes the stores for a commit. Kafka Streams' own cache holds bytes, so every put serializes
 * the value again: a second of a busy pod's requests was encoded once per request, growing, which
 * cost a tenth of the stream thread (JFR, StreamsLoad fleet). Kafka Streams has no object cache;
 * this is the smallest one that keeps its guarantees:
 *
 * <ul>
 *   <li>the flush (or commit) that precedes every commit writes the buffered values first, so the
 *       changelog in the commit's transaction holds them: exactly-once is unchanged;
 *   <li>reads see the buffer first; a range read writes the buffer through first;
 *   <li>interactive queries (other threads) read the store below, the last flushed state.
 * </ul>
 *
 * Only the stream thread that owns the task touches the buffer. It extends Kafka Streams' internal
 * {@code WrappedStateStore}, as Kafka's own store layers do: that is how the task finds the caches
 * to flush before it commits (a store that is not one would have neither its buffer nor the cache
 * below flushed in time). Kafka is pinned (4.4); {@code WriteBackStoreTest} and the determinism and
 * crash tests guard it.
 */
final class WriteBackStore<V> extends WrappedStateStore<KeyValueStore<String, V>, String, V>
    implements KeyValueStore<String, V> {

  /** A buffered delete (a map cannot tell a buffered null from an absent key). */
  private static final Object DELETED = new Object();

  private final KeyValueStore<String, V> inner;
  private final Map<String, Object> dirty = new HashMap<>();

  /**
   * Buffered keys the store below holds no value for (the caller said so, {@link #putNew}): deleted
   * before the next flush, such a key is forgotten, not written as a tombstone. A pod's waiting
   * second is mostly born and settled between two commits; its tombstone was a changelog record and
   * a RocksDB delete per pod and second (a record of every four in StreamsLoad's sparse shape).
   */
  private final Set<String> fresh = new HashSet<>();

  /**
   * What the store's owner writes into it just before each write-back ({@link #beforeWriteBack}).
   */
  private Runnable before = () -> {};

  /** How the owner's values are laid out in the store below ({@link #layout}). */
  private Layout<V> layout = null;

  /**
   * How an owner lays its values out in the store below when part of each lives elsewhere (a pod's
   * closed series points in a store of their own): the buffer and the owner's objects hold whole
   * values, the store below the part that is not elsewhere.
   */
  interface Layout<V> {

    /**
     * Writes {@code value} below through {@code write}, which serializes it at once: the layout may
     * change the value for the write (and write its other part elsewhere), and gives it back whole.
     */
    void write(V value, Consumer<V> write);

    /** A value just read from below, made whole (its other part read back). */
    V read(V value);
  }

  WriteBackStore(KeyValueStore<String, V> inner) {
    super(inner);
    this.inner = inner;
  }

  /**
   * Has {@code write} run just before each write-back (a commit, or a range read): an owner that
   * keeps its values in a structure of its own puts them into the store then, and only then.
   */
  void beforeWriteBack(Runnable write) {
    this.before = write;
  }

  /**
   * Has the owner's {@code layout} write each value below and make each value read from below
   * whole. Range reads return what is below as it is.
   */
  void layout(Layout<V> layout) {
    this.layout = layout;
  }

  @SuppressWarnings("unchecked")
  private void writeBack() {
    before.run();
    if (dirty.isEmpty()) {
      return;
    }
    for (Map.Entry<String, Object> e : dirty.entrySet()) {
      if (e.getValue() == DELETED || layout == null) {
        inner.put(e.getKey(), e.getValue() == DELETED ? null : (V) e.getValue());
      } else {
        layout.write((V) e.getValue(), v -> inner.put(e.getKey(), v));
      }
    }
    dirty.clear();
    fresh.clear();
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(String key) {
    Object v = dirty.get(key);
    if (v != null) {
      return v == DELETED ? null : (V) v;
    }
    V below = inner.get(key);
    return below == null || layout == null ? below : layout.read(below);
  }

  @Override
  public void put(String key, V value) {
    if (key == null) {
      throw new NullPointerException("key");
    }
    if (value == null && fresh.remove(key)) {
      dirty.remove(key); // never written below: nothing to delete there
      return;
    }
    dirty.put(key, value == null ? DELETED : value);
  }

  /**
   * Writes a value for a key the caller knows the store to hold no value for: deleted before the
   * next flush, it leaves no trace. A key whose deletion is buffered is not fresh (the store below
   * still holds its last value until the flush): it is written as any other.
   */
  void putNew(String key, V value) {
    if (key == null || value == null) {
      throw new NullPointerException(key == null ? "key" : "value");
    }
    if (dirty.put(key, value) == null) {
      fresh.add(key);
    }
  }

  /**
   * The write-back store under a processor's view of it ({@code ProcessorContext.getStateStore}
   * hands a decorator), or null when {@code store} is not one.
   */
  @SuppressWarnings("unchecked")
  static <V> WriteBackStore<V> under(KeyValueStore<String, V> store) {
    Object s = store;
    while (true) {
      if (s instanceof WriteBackStore<?> w) {
        return (WriteBackStore<V>) w;
      }
      if (!(s instanceof WrappedStateStore<?, ?, ?> wrapped)) {
        return null;
      }
      s = wrapped.wrapped();
    }
  }

  @Override
  public V putIfAbsent(String key, V value) {
    V old = get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  @Override
  public void putAll(List<KeyValue<String, V>> entries) {
    entries.forEach(kv -> put(kv.key, kv.value));
  }

  @Override
  public V delete(String key) {
    V old = get(key);
    put(key, null);
    return old;
  }

  @Override
  public KeyValueIterator<String, V> range(String from, String to) {
    writeBack();
    return inner.range(from, to);
  }

  @Override
  public KeyValueIterator<String, V> reverseRange(String from, String to) {
    writeBack();
    return inner.reverseRange(from, to);
  }

  @Override
  public KeyValueIterator<String, V> all() {
    writeBack();
    return inner.all();
  }

  @Override
  public KeyValueIterator<String, V> reverseAll() {
    writeBack();
    return inner.reverseAll();
  }

  @Override
  public <PS extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(
      P prefix, PS prefixKeySerializer) {
    writeBack();
    return inner.prefixScan(prefix, prefixKeySerializer);
  }

  @Override
  public long approximateNumEntries() {
    return inner.approximateNumEntries() + dirty.size();
  }

  /**
   * Before a commit's transaction: Kafka Streams flushes the caches of the stores it knows to be
   * cached (this one says so by being a {@code WrappedStateStore}, as its own layers do); the
   * buffer goes first, into the cache below, which then writes it to the changelog.
   */
  @Override
  public void flushCache() {
    writeBack();
    super.flushCache();
  }

  @Override
  public void commit(Map<TopicPartition, Long> changelogOffsets) {
    writeBack();
    super.commit(changelogOffsets);
  }

  /**
   * A task closed without a commit (a crash, a lost task) drops what was not committed, and forgets
   * its owner's hook: the owner's uncommitted values must not reach the store when the task is
   * opened again (its processor is initialised anew and registers again).
   */
  @Override
  public void clearCache() {
    dirty.clear();
    fresh.clear();
    before = () -> {};
    layout = null;
    super.clearCache();
  }

  @Override
  public void close() {
    dirty.clear();
    fresh.clear();
    before = () -> {};
    layout = null;
    super.close();
  }

  /** {@code inner}'s stores, each with a write-back buffer in front. */
  static <V> StoreBuilder<KeyValueStore<String, V>> builder(
      StoreBuilder<KeyValueStore<String, V>> inner) {
    return new StoreBuilder<>() {
      @Override
      public StoreBuilder<KeyValueStore<String, V>> withCachingEnabled() {
        inner.withCachingEnabled();
        return this;
      }

      @Override
      public StoreBuilder<KeyValueStore<String, V>> withCachingDisabled() {
        inner.withCachingDisabled();
        return this;
      }

      @Override
      public StoreBuilder<KeyValueStore<String, V>> withLoggingEnabled(Map<String, String> config) {
        inner.withLoggingEnabled(config);
        return this;
      }

      @Override
      public StoreBuilder<KeyValueStore<String, V>> withLoggingDisabled() {
        inner.withLoggingDisabled();
        return this;
      }

      @Override
      public KeyValueStore<String, V> build() {
        return new WriteBackStore<>(inner.build());
      }

      @Override
      public Map<String, String> logConfig() {
        return inner.logConfig();
      }

      @Override
      public boolean loggingEnabled() {
        return inner.loggingEnabled();
      }

      @Override
      public String name() {
        return inner.name();
      }
    };
  }
}
