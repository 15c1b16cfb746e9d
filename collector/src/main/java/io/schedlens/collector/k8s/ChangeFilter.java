package io.schedlens.collector.k8s;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Remembers the last projection sent per object UID and says whether a new one differs in anything
 * but the volatile fields (resourceVersion, read time, change type, API version). An unchanged
 * projection at a new resourceVersion, a periodic resync, or the second API view of one Event is
 * therefore not sent again.
 */
public final class ChangeFilter<T> {

  private final Map<String, T> lastSent = new ConcurrentHashMap<>();
  private final UnaryOperator<T> normalise;

  /**
   * @param normalise maps a projection to a copy with its volatile fields set to fixed values
   */
  public ChangeFilter(UnaryOperator<T> normalise) {
    this.normalise = normalise;
  }

  /** True when {@code projection} differs from the last one recorded for {@code uid}. */
  public boolean isChange(String uid, T projection) {
    T previous = lastSent.get(uid);
    return previous == null || !previous.equals(normalise.apply(projection));
  }

  /** Records {@code projection} as sent for {@code uid}. */
  public void record(String uid, T projection) {
    lastSent.put(uid, normalise.apply(projection));
  }

  /** The last projection recorded for {@code uid} (normalised), or null. */
  public T last(String uid) {
    return lastSent.get(uid);
  }

  /** Forgets {@code uid} (the object is gone). */
  public void forget(String uid) {
    lastSent.remove(uid);
  }

  /** The UIDs currently remembered. */
  public Collection<String> uids() {
    return lastSent.keySet();
  }

  /** How many objects are remembered. */
  public int size() {
    return lastSent.size();
  }
}
