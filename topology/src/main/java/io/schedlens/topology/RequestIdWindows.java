package io.schedlens.topology;

import io.schedlens.avro.internal.InputSecond;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The ids of the request lines and GPU samples of settled seconds (64-bit hashes, {@link
 * io.schedlens.timeline.InputSeconds}), kept per pod name so that a line sent again after its
 * second settled counts once. Kafka Streams' window store keeps them, never deleted one by one:
 * whole segments go when the store's stream time (the latest window written) has passed them by the
 * retention, with no tombstone per second.
 *
 * <p>The seconds a pod name settles between two commits are written at the commit as one batch
 * ({@link #write}): a window whose start is the batch's last second, holding each second's ids
 * ({@link #encode}). A backlog settles a busy pod's seconds several to a commit; written one window
 * a second, they were a changelog record per pod and second (StreamsLoad fleet: 174,000 of the
 * 613,000 records written). A batch spans less than {@link #SPAN}, so the seconds a lookup may find
 * are in the windows that start from that second to a span after it. A second settled again (a line
 * that came after its second settled opens it with the ids kept) is written again, in a batch of
 * its own commit, joined with the window already at that batch's start if there is one; a lookup
 * joins what every window holds of a second. Windows an earlier release wrote, one a second holding
 * just its ids, are read as such until they expire.
 *
 * <p>The retention is the de-duplication window and a second more, counted from a batch's last
 * second, so each of its seconds is kept at least that long. A line read is either late (refused
 * before it gets here: its own partition passed its second by more than the grace period, which is
 * at most the de-duplication window) or within the grace period of a second no later than the
 * latest settled one; so every second a line that counts can ask about is still kept, whatever the
 * order the task read its partitions in.
 */
final class RequestIdWindows {

  /** The windows' size: a second, as when each window held one second (the store's layout). */
  static final Duration WINDOW = Duration.ofSeconds(1);

  /** A batch holds seconds less than this far apart. */
  static final long SPAN = 60_000;

  /**
   * A batch's first element: no id is this (the ids are hashes, of which {@code
   * InputSeconds.idHash} moves this one value), so it tells a batch from a window an earlier
   * release wrote, which holds one second's ids.
   */
  static final long BATCH = Long.MIN_VALUE;

  private final WindowStore<String, List<Long>> windows;
  private final long retentionMs;

  /** The seconds settled since the last commit, by pod name: each second's ids. */
  private final Map<String, TreeMap<Long, List<Long>>> pending = new HashMap<>();

  /**
   * Seconds whose kept ids a lookup found in the store, by pod name, until they are written again
   * (or past the retention): only a batch that ends with one of them can start where a window
   * already is (a second is settled again only when a line opens it after it settled, with the ids
   * kept), so only such a batch reads the window there before it writes; every other write is a put
   * alone, which the commit waits for.
   */
  private final Map<String, Set<Long>> found = new HashMap<>();

  /**
   * The latest window written: a batch older than it by the retention or more is not written (the
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
    write();
  }

  /** The stored values: Kafka's list serde, eight bytes a long. */
  static Serde<List<Long>> serde() {
    return Serdes.ListSerde(ArrayList.class, Serdes.Long());
  }

  /** The retention of the windows for a de-duplication window of {@code dedup}. */
  static Duration retention(Duration dedup) {
    return dedup.plus(WINDOW);
  }

  /** The ids kept for {@code name}'s {@code second} (epoch ms of its start), or null. */
  List<Long> of(String name, long second) {
    TreeMap<Long, List<Long>> settled = pending.get(name);
    if (settled != null && settled.containsKey(second)) {
      return settled.get(second); // settled again since the last commit: it has the ids before
    }
    TreeSet<Long> ids = null;
    try (WindowStoreIterator<List<Long>> it = windows.fetch(name, second, second + SPAN)) {
      while (it.hasNext()) {
        KeyValue<Long, List<Long>> w = it.next();
        List<Long> kept = decode(w.key, w.value).get(second);
        if (kept != null) {
          ids = ids == null ? new TreeSet<>() : ids;
          ids.addAll(kept);
        }
      }
    }
    if (ids == null) {
      return null;
    }
    found.computeIfAbsent(name, n -> new HashSet<>()).add(second);
    return new ArrayList<>(ids);
  }

  /** Keeps a settled second's ids, if it had any, for the next commit ({@link #write}). */
  void remember(String name, long second, List<Long> ids) {
    if (ids.isEmpty() || (latest != Long.MIN_VALUE && second <= latest - retentionMs)) {
      return;
    }
    pending.computeIfAbsent(name, n -> new TreeMap<>()).put(second, ids);
  }

  /**
   * Writes the seconds settled since the last commit: per pod name, one window for each run of them
   * that spans less than {@link #SPAN}, joined with what a window of that start already holds (a
   * second settled again, or a window an earlier release wrote).
   */
  void write() {
    for (Map.Entry<String, TreeMap<Long, List<Long>>> e : pending.entrySet()) {
      TreeMap<Long, List<Long>> run = new TreeMap<>();
      for (Map.Entry<Long, List<Long>> s : e.getValue().entrySet()) {
        if (!run.isEmpty() && s.getKey() - run.firstKey() >= SPAN) {
          put(e.getKey(), run);
          run = new TreeMap<>();
        }
        run.put(s.getKey(), s.getValue());
      }
      put(e.getKey(), run);
      Set<Long> again = found.get(e.getKey());
      if (again != null) {
        again.removeAll(e.getValue().keySet());
      }
    }
    pending.clear();
    found.values().forEach(seconds -> seconds.removeIf(s -> s <= latest - retentionMs));
    found.values().removeIf(Set::isEmpty);
  }

  private void put(String name, TreeMap<Long, List<Long>> run) {
    long start = run.lastKey();
    if (latest != Long.MIN_VALUE && start <= latest - retentionMs) {
      return;
    }
    Set<Long> settledBefore = found.get(name);
    List<Long> there =
        settledBefore != null && settledBefore.contains(start) ? windows.fetch(name, start) : null;
    if (there != null) {
      decode(start, there).forEach(run::putIfAbsent);
    }
    windows.put(name, encode(run), start);
    latest = Math.max(latest, start);
  }

  /** A batch as stored: {@link #BATCH}, then per second its start, its number of ids, its ids. */
  static List<Long> encode(TreeMap<Long, List<Long>> seconds) {
    List<Long> out = new ArrayList<>();
    out.add(BATCH);
    seconds.forEach(
        (second, ids) -> {
          out.add(second);
          out.add((long) ids.size());
          out.addAll(ids);
        });
    return out;
  }

  /** What a window starting at {@code start} holds: each second's ids. */
  static TreeMap<Long, List<Long>> decode(long start, List<Long> value) {
    TreeMap<Long, List<Long>> seconds = new TreeMap<>();
    if (value.isEmpty() || value.get(0) != BATCH) {
      seconds.put(start, value); // an earlier release's window: one second's ids
      return seconds;
    }
    int i = 1;
    while (i + 1 < value.size()) {
      long second = value.get(i);
      int n = (int) (long) value.get(i + 1);
      seconds.put(second, value.subList(i + 2, i + 2 + n));
      i += 2 + n;
    }
    return seconds;
  }
}
