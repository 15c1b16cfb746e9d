package io.schedlens.topology;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * How far each input stream of a pod-stage task has come, by its producer's progress marks: they
 * decide what is late, what is complete, and when a timer fires. Kept in a store, so that a record
 * after a mark read before a restart is judged against that mark, not against none.
 */
final class SourceMarks {

  static final String PODS = "pods";
  static final String EVENTS = "events";
  static final String GPU = "gpu-samples";
  static final String REQUESTS = "requests";
  static final List<String> SOURCES = List.of(PODS, EVENTS, GPU, REQUESTS);

  private final KeyValueStore<String, Long> store;
  private final Map<String, Long> marks = new HashMap<>();

  /** Reads the marks the store kept. */
  SourceMarks(KeyValueStore<String, Long> store) {
    this.store = store;
    for (String source : SOURCES) {
      Long m = store.get(source);
      if (m != null) {
        marks.put(source, m);
      }
    }
  }

  /** Records a mark; false when it says nothing new (marks only move forward). */
  boolean advance(String source, long time) {
    Long old = marks.get(source);
    if (old != null && time <= old) {
      return false;
    }
    marks.put(source, time);
    store.put(source, time);
    return true;
  }

  /** The source's mark, or Long.MIN_VALUE before its first. */
  long of(String source) {
    Long m = marks.get(source);
    return m == null ? Long.MIN_VALUE : m;
  }

  /** The least of all the sources' marks: how far the task's inputs are complete. */
  long external() {
    return Watermarks.external(marks, SOURCES);
  }

  /**
   * The latest second whose GPU samples and requests are all in (their streams passed its end) and
   * which the pods stream passed, or Long.MIN_VALUE while a stream has no mark yet.
   */
  long completeUpTo() {
    long inputs = Math.min(of(GPU), of(REQUESTS));
    if (inputs == Long.MIN_VALUE || of(PODS) == Long.MIN_VALUE) {
      return Long.MIN_VALUE;
    }
    return Math.min(of(PODS), inputs - 999);
  }

  /** Whether a second is complete (see {@link #completeUpTo}). */
  boolean complete(long second) {
    return second <= completeUpTo();
  }
}
