package io.schedlens.topology;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.InputSeconds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * GPU samples and requests waiting, gathered per pod name and second ({@link InputSeconds}), until
 * the second is complete and its incarnation known; a second that was settled before opens with the
 * ids it kept ({@link RequestIdWindows}), so that a line seen twice counts once.
 *
 * <p>The gatherings live in one plain structure, second to pod name to gathering, and reach the
 * store only when a commit finds them waiting: the write-back store under it asks for them just
 * before it writes ({@link WriteBackStore#beforeWriteBack}). A record costs two map lookups and no
 * key string; the store's key ({@code second|namespace/name}, the second zero-padded, so that store
 * order is time order) is made once per gathering that outlives a commit, and a gathering born and
 * settled between two commits never reaches the store. The store is the truth across restarts: its
 * gatherings are read back at start.
 */
final class WaitingSeconds {

  /** A second's inputs for one pod name, and what the store holds of it. */
  static final class Waiting {
    final PodName name;
    final InputSecond inputs;

    /** The store holds a value for it (read at start, or written at a commit). */
    private boolean stored;

    /** Changed since the last commit. */
    private boolean changed;

    /** Settled (or found empty): it waits no longer. */
    private boolean done;

    private Waiting(PodName name, InputSecond inputs, boolean stored) {
      this.name = name;
      this.inputs = inputs;
      this.stored = stored;
    }

    /** Not settled yet. */
    boolean waits() {
      return !done;
    }

    String key() {
      return WaitingSeconds.key(inputs.getSecond(), inputs.getName());
    }
  }

  private static final Comparator<Waiting> BY_NAME =
      Comparator.comparing((Waiting w) -> w.inputs.getName());

  private final KeyValueStore<String, InputSecond> store;

  /** The store writes back at commits (else every change is written at once). */
  private final boolean writeBack;

  /**
   * Request ids of settled seconds: written once per pod and second, read only for a line that
   * comes after its second settled, so not kept decoded (kept, they filled the heap: live heap
   * after a 5-minute StreamsLoad latency run 67 to 107 MiB with them, 44 to 68 MiB without).
   */
  private final RequestIdWindows seen;

  /** The waiting gatherings by second, in time order, then by pod name. */
  private final TreeMap<Long, Map<PodName, Waiting>> bySecond = new TreeMap<>();

  /** The {@code topic:partition} of each input topic, by topic ({@link #noteInput}). */
  private final Map<String, String> sources = new HashMap<>();

  /** Gatherings changed since the last commit. */
  private final List<Waiting> changed = new ArrayList<>();

  /** Keys of settled gatherings the store still holds, to delete at the next commit. */
  private final List<String> gone = new ArrayList<>();

  /**
   * @param store the store of the waiting gatherings; when it is a {@link WriteBackStore}, the
   *     gatherings are written to it at each commit, else at once
   */
  WaitingSeconds(KeyValueStore<String, InputSecond> store, RequestIdWindows seen) {
    this.store = store;
    this.seen = seen;
    // this structure's hook first: the read below writes the buffer back, and a hook left by an
    // earlier processor of the task must not run then
    WriteBackStore<InputSecond> buffer = WriteBackStore.under(store);
    this.writeBack = buffer != null;
    if (buffer != null) {
      buffer.beforeWriteBack(this::write);
    }
    try (KeyValueIterator<String, InputSecond> it = store.all()) {
      it.forEachRemaining(
          kv -> {
            PodName name = PodName.parse(kv.value.getName());
            if (name != null) {
              bySecond
                  .computeIfAbsent(kv.value.getSecond(), s -> new HashMap<>())
                  .put(name, new Waiting(name, kv.value, true));
            }
          });
    }
  }

  static String key(long second, String name) {
    return TimerIndex.pad(second) + "|" + name;
  }

  /**
   * The second's inputs gathered so far, or a new gathering (kept only once {@link #keep} says);
   * for a complete second, which may have been settled before, with the request ids it kept.
   */
  Waiting open(long second, PodName name, boolean complete) {
    Map<PodName, Waiting> names = bySecond.get(second);
    Waiting w = names == null ? null : names.get(name);
    if (w != null) {
      return w;
    }
    InputSecond b = InputSeconds.empty(second, name.key());
    List<Long> ids = complete ? seen.of(b.getName(), second) : null;
    if (ids != null) {
      b.setIds(new ArrayList<>(ids));
    }
    return new Waiting(name, b, false);
  }

  /**
   * Notes where an input of the gathering was read. Its {@code topic:partition} is made once per
   * topic: the task reads one partition of each input, the same one (they are partitioned alike).
   */
  void noteInput(Waiting w, String topic, int partition, long offset) {
    String source = sources.get(topic); // per record: no capturing lambda
    if (source == null) {
      source = topic + ":" + partition;
      sources.put(topic, source);
    }
    InputSeconds.noteInput(w.inputs, source, offset);
  }

  /** The gathering waits, changed. */
  void keep(Waiting w) {
    if (!w.stored && !w.changed) {
      bySecond.computeIfAbsent(w.inputs.getSecond(), s -> new HashMap<>()).put(w.name, w);
    }
    if (!w.changed) {
      w.changed = true;
      changed.add(w);
    }
    if (!writeBack) {
      write();
    }
  }

  /** The gathering was settled (or was empty): it waits no longer. */
  void done(Waiting w) {
    Map<PodName, Waiting> names = bySecond.get(w.inputs.getSecond());
    if (names == null || names.get(w.name) != w) {
      return; // never kept
    }
    names.remove(w.name);
    if (names.isEmpty()) {
      bySecond.remove(w.inputs.getSecond());
    }
    w.done = true;
    if (w.stored) {
      gone.add(w.key());
    }
    if (!writeBack) {
      write();
    }
  }

  /** The gatherings of the seconds up to and including {@code second}, in time and name order. */
  List<Waiting> upTo(long second) {
    List<Waiting> due = new ArrayList<>();
    for (Map<PodName, Waiting> names : bySecond.headMap(second, true).values()) {
      List<Waiting> ofSecond = new ArrayList<>(names.values());
      ofSecond.sort(BY_NAME);
      due.addAll(ofSecond);
    }
    return due;
  }

  /**
   * Keeps what is left of a settled second, its ids, for the de-duplication window: written with
   * the gatherings, at the next commit.
   */
  void rememberIds(InputSecond settled) {
    seen.remember(settled.getName(), settled.getSecond(), settled.getIds());
    if (!writeBack) {
      seen.write();
    }
  }

  /**
   * Writes what changed since the last commit: the gatherings still waiting, a tombstone for each
   * settled one the store held, and the ids of the seconds settled (into a store that is not
   * cached, so they are in this commit whatever the order the task's stores are flushed in).
   */
  private void write() {
    seen.write();
    for (String key : gone) {
      store.put(key, null);
    }
    gone.clear();
    for (Waiting w : changed) {
      w.changed = false;
      if (!w.done) {
        store.put(w.key(), w.inputs);
        w.stored = true;
      }
    }
    changed.clear();
  }
}
