package io.schedlens.timeline;

import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.RetiredPod;
import io.schedlens.avro.internal.TimelineState;
import java.util.ArrayList;
import java.util.List;

/**
 * Which incarnation of a pod name an input at a given time belongs to, and whether that can be
 * known yet. GPU samples and request logs name a pod by {@code namespace/name}; names are reused (a
 * StatefulSet's pod, a recreated bare pod), so the answer is the incarnation that held the name at
 * the input's time: the one created last at or before it; an input a little before any creation
 * (creation timestamps are whole seconds, and clocks differ) belongs to the incarnation created
 * within the tolerance after it.
 *
 * <p>The answer is final only once the pods stream has passed the input's time: until then an
 * incarnation created earlier may still be on its way. Pure: the same incarnations, time and
 * progress give the same answer, so the answer does not depend on the order inputs arrived in.
 *
 * <p>And the bookkeeping of a name's incarnations in its {@link PodsOfName}: the live ones, the
 * retired ones (final timeline out, kept as a stub so that a late input is recognised as late),
 * finding, retiring and forgetting them.
 */
public final class Incarnations {

  /** What can be said of an input's incarnation now. */
  public sealed interface Answer {}

  /** A live incarnation held the name. */
  public record Live(TimelineState pod) implements Answer {}

  /** An incarnation whose final timeline is already out held the name: the input is late. */
  public record Retired(RetiredPod pod) implements Answer {}

  /** The pods stream has not passed the input's time yet: ask again later. */
  public record Wait() implements Answer {}

  /** No incarnation held the name, and the pods stream is past the grace period: none will. */
  public record Unknown() implements Answer {}

  private static final Wait WAIT = new Wait();
  private static final Unknown UNKNOWN = new Unknown();

  private Incarnations() {}

  /**
   * The incarnation of {@code pods} an input at {@code time} belongs to.
   *
   * @param podsProgress event time the pods stream has passed (its progress mark)
   * @param toleranceMs how long before its creation an input may still belong to a pod
   * @param graceMs how long after an input's time its pod may still be announced
   */
  public static Answer at(
      PodsOfName pods, long time, long podsProgress, long toleranceMs, long graceMs) {
    if (podsProgress < time) {
      return WAIT;
    }
    Object held = createdLastBy(pods, time);
    if (held == null) {
      if (podsProgress < time + toleranceMs) {
        return WAIT;
      }
      held = createdLastBy(pods, time + toleranceMs);
    }
    if (held instanceof TimelineState s) {
      return new Live(s);
    }
    if (held instanceof RetiredPod r) {
      return new Retired(r);
    }
    return podsProgress < time + graceMs ? WAIT : UNKNOWN;
  }

  /**
   * The live incarnation that held the name at {@code t} (or was created within the tolerance just
   * after), whatever the pods stream's progress: for a message, which comes after the facts it
   * refers to.
   */
  public static TimelineState holderAt(PodsOfName pods, long t, long toleranceMs) {
    Answer a = at(pods, t, Long.MAX_VALUE, toleranceMs, Long.MAX_VALUE);
    return a instanceof Live live ? live.pod() : null;
  }

  /** A name no incarnation has held yet. */
  public static PodsOfName none() {
    return PodsOfName.newBuilder()
        .setPods(new ArrayList<>())
        .setRetired(new ArrayList<>())
        .setWaitingLinks(new ArrayList<>())
        .build();
  }

  /** The live incarnation of that UID, or null. */
  public static TimelineState live(PodsOfName pods, String uid) {
    for (TimelineState s : pods.getPods()) {
      if (s.getUid().equals(uid)) {
        return s;
      }
    }
    return null;
  }

  /** The retired incarnation of that UID, or null. */
  public static RetiredPod retired(PodsOfName pods, String uid) {
    for (RetiredPod r : pods.getRetired()) {
      if (r.getUid().equals(uid)) {
        return r;
      }
    }
    return null;
  }

  /**
   * Removes a live incarnation. Not {@code List.remove(Object)}: a list Avro decoded cannot remove
   * through its iterator.
   */
  public static void drop(PodsOfName pods, TimelineState s) {
    List<TimelineState> rest = new ArrayList<>(pods.getPods().size());
    for (TimelineState p : pods.getPods()) {
      if (p != s) {
        rest.add(p);
      }
    }
    pods.setPods(rest);
  }

  /** Its final timeline is out: the incarnation is kept as a stub of its UID and times. */
  public static void retire(PodsOfName pods, TimelineState s, long finalAt) {
    drop(pods, s);
    List<RetiredPod> retired = new ArrayList<>(pods.getRetired());
    retired.add(new RetiredPod(s.getUid(), s.getLifecycle().getCreatedAt(), finalAt));
    pods.setRetired(retired);
  }

  /** Forgets a retired incarnation's stub; true when nothing is left of the name. */
  public static boolean forget(PodsOfName pods, String uid) {
    List<RetiredPod> retired = new ArrayList<>(pods.getRetired());
    retired.removeIf(r -> r.getUid().equals(uid));
    pods.setRetired(retired);
    return pods.getPods().isEmpty() && retired.isEmpty() && pods.getWaitingLinks().isEmpty();
  }

  /** The incarnation, live or retired, created last at or before {@code t}; ties by UID. */
  private static Object createdLastBy(PodsOfName pods, long t) {
    Object best = null;
    long bestCreated = Long.MIN_VALUE;
    String bestUid = null;
    if (pods == null) {
      return null;
    }
    for (TimelineState s : pods.getPods()) {
      Long c = s.getSawPod() ? s.getLifecycle().getCreatedAt() : null;
      if (c != null && c <= t && better(c, s.getUid(), bestCreated, bestUid)) {
        best = s;
        bestCreated = c;
        bestUid = s.getUid();
      }
    }
    for (RetiredPod r : pods.getRetired()) {
      Long c = r.getCreatedAt();
      if (c != null && c <= t && better(c, r.getUid(), bestCreated, bestUid)) {
        best = r;
        bestCreated = c;
        bestUid = r.getUid();
      }
    }
    return best;
  }

  private static boolean better(long created, String uid, long bestCreated, String bestUid) {
    return created > bestCreated || (created == bestCreated && uid.compareTo(bestUid) > 0);
  }
}
