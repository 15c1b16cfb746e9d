package io.schedlens.topology;

import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.OpenSeconds;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.InputSeconds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
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
 * key string. The store holds one value per pod name, all its open seconds ({@link OpenSeconds}): a
 * commit writes a name whose gatherings changed once, however many of its seconds are open, and
 * deletes it when none is left. A busy pod's seconds mostly outlive a commit (a second is complete
 * only once every input's marks passed it); kept one value per second, each was a put and a
 * tombstone in the changelog, three records in five that StreamsLoad's fleet wrote. A gathering
 * born and settled between two commits never reaches the store. The store is the truth across
 * restarts: its gatherings are read back at start, and so are those an earlier release kept one
 * value per second (the legacy store, emptied as they move).
 */
final class WaitingSeconds {

  /** A second's inputs for one pod name. */
  static final class Waiting {
    final PodName name;
    final InputSecond inputs;

    /** Settled (or found empty): it waits no longer. */
    private boolean done;

    private Waiting(PodName name, InputSecond inputs) {
      this.name = name;
      this.inputs = inputs;
    }

    /** Not settled yet. */
    boolean waits() {
      return !done;
    }
  }

  /** A pod name's open seconds, and what the store holds of them. */
  private static final class Open {
    final PodName name;
    final TreeMap<Long, Waiting> seconds = new TreeMap<>();

    /** The store holds a value for the name (read at start, or written at a commit). */
    boolean stored;

    Open(PodName name) {
      this.name = name;
    }
  }

  private static final Comparator<Waiting> BY_NAME =
      Comparator.comparing((Waiting w) -> w.inputs.getName());

  private final KeyValueStore<String, OpenSeconds> store;

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

  /** The names with open seconds, or with a value in the store. */
  private final Map<PodName, Open> byName = new HashMap<>();

  /** Names whose gatherings changed since the last commit. */
  private final Set<Open> changed = new LinkedHashSet<>();

  /**
   * @param store the store of the waiting gatherings, one value per name; when it is a {@link
   *     WriteBackStore}, the gatherings are written to it at each commit, else at once
   * @param legacy where releases before {@code store} kept them, one value per second ({@code
   *     second|name}): read at start, moved into {@code store} at the first commit and emptied
   */
  WaitingSeconds(
      KeyValueStore<String, OpenSeconds> store,
      KeyValueStore<String, InputSecond> legacy,
      RequestIdWindows seen) {
    this.store = store;
    this.seen = seen;
    // this structure's hook first: the read below writes the buffer back, and a hook left by an
    // earlier processor of the task must not run then
    WriteBackStore<OpenSeconds> buffer = WriteBackStore.under(store);
    this.writeBack = buffer != null;
    if (buffer != null) {
      buffer.beforeWriteBack(this::write);
    }
    try (KeyValueIterator<String, OpenSeconds> it = store.all()) {
      it.forEachRemaining(
          kv -> {
            PodName name = PodName.parse(kv.value.getName());
            if (name != null) {
              Open open = byName.computeIfAbsent(name, Open::new);
              open.stored = true;
              kv.value.getSeconds().forEach(s -> add(open, new Waiting(name, s)));
            }
          });
    }
    if (moveIn(legacy)) {
      if (buffer != null) {
        buffer.writeBackNow(); // now, while the task has a record context for the writes
      } else {
        write();
      }
    }
  }

  /**
   * An earlier release's gatherings, one value per second: into the structure, out of there;
   * whether there were any.
   */
  private boolean moveIn(KeyValueStore<String, InputSecond> legacy) {
    List<KeyValue<String, InputSecond>> kept = new ArrayList<>();
    try (KeyValueIterator<String, InputSecond> it = legacy.all()) {
      it.forEachRemaining(kept::add);
    }
    for (KeyValue<String, InputSecond> kv : kept) {
      InputSecond s = kv.value;
      PodName name = PodName.parse(s.getName());
      if (s.getApplied()) {
        seen.remember(s.getName(), s.getSecond(), s.getIds()); // only its ids were kept
      } else if (name != null) {
        Open open = byName.computeIfAbsent(name, Open::new);
        add(open, new Waiting(name, s));
        changed.add(open);
      }
      legacy.delete(kv.key);
    }
    return !changed.isEmpty();
  }

  private void add(Open open, Waiting w) {
    open.seconds.put(w.inputs.getSecond(), w);
    bySecond.computeIfAbsent(w.inputs.getSecond(), s -> new HashMap<>()).put(w.name, w);
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
    return new Waiting(name, b);
  }

  /** The gathering waits, changed. */
  void keep(Waiting w) {
    Open open = byName.computeIfAbsent(w.name, Open::new);
    if (open.seconds.get(w.inputs.getSecond()) != w) {
      add(open, w);
    }
    changed.add(open);
    if (!writeBack) {
      write();
    }
  }

  /** The gathering was settled (or was empty): it waits no longer. */
  void done(Waiting w) {
    w.done = true;
    Map<PodName, Waiting> names = bySecond.get(w.inputs.getSecond());
    if (names == null || names.get(w.name) != w) {
      return; // never kept
    }
    names.remove(w.name);
    if (names.isEmpty()) {
      bySecond.remove(w.inputs.getSecond());
    }
    Open open = byName.get(w.name);
    open.seconds.remove(w.inputs.getSecond());
    changed.add(open);
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

  /** Keeps what is left of a settled second, its ids, for the de-duplication window. */
  void rememberIds(InputSecond settled) {
    seen.remember(settled.getName(), settled.getSecond(), settled.getIds());
  }

  /**
   * Writes the names whose gatherings changed since the last commit: their open seconds, or a
   * tombstone for a name the store held that has none left.
   */
  private void write() {
    for (Open open : changed) {
      if (!open.seconds.isEmpty()) {
        List<InputSecond> seconds = new ArrayList<>(open.seconds.size());
        open.seconds.values().forEach(w -> seconds.add(w.inputs));
        store.put(open.name.key(), new OpenSeconds(open.name.key(), seconds));
        open.stored = true;
      } else {
        if (open.stored) {
          store.put(open.name.key(), null);
        }
        byName.remove(open.name);
      }
    }
    changed.clear();
  }
}
