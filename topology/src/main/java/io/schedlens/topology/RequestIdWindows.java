package io.schedlens.topology;

import io.schedlens.avro.internal.InputSecond;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The ids of the request lines and GPU samples of settled seconds (64-bit hashes, {@link
 * io.schedlens.timeline.InputSeconds}), kept per pod name in one-second windows so that a line sent
 * again after its second settled counts once. Kafka Streams' window store keeps them: written once
 * per pod and second, never deleted one by one; whole segments go when the store's stream time (the
 * latest second written) has passed them by the retention, with no tombstone per second.
 *
 * <p>The retention is the de-duplication window and a second more. A line read is either late
 * (refused before it gets here: its own partition passed its second by more than the grace period,
 * which is at most the de-duplication window) or within the grace period of a second no later than
 * the latest settled one; so every second a line that counts can ask about is still kept, whatever
 * the order the task read its partitions in.
 */
final class RequestIdWindows {

  /** One window a second: the key is the pod's name, the window's start the second's. */
  static final Duration WINDOW = Duration.ofSeconds(1);

  private final WindowStore<String, List<Long>> windows;
  private final long retentionMs;

  /**
   * The latest second written: a second older than it by the retention or more is not written (the
   * store would drop it with a warning; no line can ask about it).
   */
  private long latest = Long.MIN_VALUE;

  /**
   * @param dedup the de-duplication window the store was built for ({@link #retention})
   * @param legacy where releases before this store kept the ids ({@code second|name} to a settled
   *     {@link InputSecond}): moved into the windows at start and emptied, so that an upgrade keeps
   *     the de-duplication window it had
   */
  RequestIdWindows(
      WindowStore<String, List<Long>> windows,
      Duration dedup,
      KeyValueStore<String, InputSecond> legacy) {
    this.windows = windows;
    this.retentionMs = retention(dedup).toMillis();
    try (KeyValueIterator<Windowed<String>, List<Long>> it = windows.all()) {
      it.forEachRemaining(kv -> latest = Math.max(latest, kv.key.window().start()));
    }
    // in time order: the legacy keys begin with the zero-padded second
    List<KeyValue<String, InputSecond>> kept = new ArrayList<>();
    try (KeyValueIterator<String, InputSecond> it = legacy.all()) {
      it.forEachRemaining(kept::add);
    }
    for (KeyValue<String, InputSecond> kv : kept) {
      InputSecond s = kv.value;
      remember(s.getName(), s.getSecond(), new ArrayList<>(s.getIds()));
      legacy.delete(kv.key);
    }
  }

  /** A second's ids as stored: Kafka's list serde, eight bytes an id. */
  static Serde<List<Long>> serde() {
    return Serdes.ListSerde(ArrayList.class, Serdes.Long());
  }

  /** The retention of the windows for a de-duplication window of {@code dedup}. */
  static Duration retention(Duration dedup) {
    return dedup.plus(WINDOW);
  }

  /** The ids kept for {@code name}'s {@code second} (epoch ms of its start), or null. */
  List<Long> of(String name, long second) {
    return windows.fetch(name, second);
  }

  /** Keeps a settled second's ids, if it had any. */
  void remember(String name, long second, List<Long> ids) {
    if (ids.isEmpty() || (latest != Long.MIN_VALUE && second <= latest - retentionMs)) {
      return;
    }
    windows.put(name, ids, second);
    latest = Math.max(latest, second);
  }
}
