package io.schedlens.serving.api;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * How the API's lists are ordered and paged (pure): every list has one total order (time, then a
 * unique key), an answer holds at most {@code limit} items after a cursor, and each instance keeps
 * only its first {@code limit} matches while it counts the rest, so that neither an instance nor
 * the one that merges holds more than a page, however many timelines there are.
 */
public final class ListPaging {

  /** Items of a page when the caller does not say. */
  public static final int DEFAULT_LIMIT = 500;

  /** The most items of a page: what bounds an answer's memory. */
  public static final int MAX_LIMIT = 1_000;

  private ListPaging() {}

  /** Where an item sits in its list: by time (epoch ms), then by its unique key. */
  public record Position(long time, String key) implements Comparable<Position> {
    private static final Comparator<Position> ORDER =
        Comparator.comparingLong(Position::time).thenComparing(Position::key);

    @Override
    public int compareTo(Position o) {
      return ORDER.compare(this, o);
    }
  }

  /** A pod's place in a list: by creation (unknown last), then UID. */
  public static Position pod(PodTimeline t) {
    return new Position(
        t.getCreatedAt() == null ? Long.MAX_VALUE : t.getCreatedAt(),
        t.getUid() == null ? "" : t.getUid());
  }

  /** A workload's place in a list: by namespace/kind/name. */
  public static Position workload(WorkloadTimeline w) {
    return new Position(0, WorkloadKey.of(w.getNamespace(), w.getKind(), w.getName()).topicKey());
  }

  /** The cursor a caller passes back as {@code after} for the items that follow {@code p}. */
  public static String cursor(Position p) {
    return p.time() + "~" + p.key();
  }

  /**
   * The position a cursor names.
   *
   * @throws IllegalArgumentException when it is not a cursor this API gave
   */
  public static Position parseCursor(String cursor) {
    int sep = cursor.indexOf('~');
    if (sep > 0) {
      try {
        return new Position(Long.parseLong(cursor.substring(0, sep)), cursor.substring(sep + 1));
      } catch (NumberFormatException e) {
        // said below
      }
    }
    throw new IllegalArgumentException(
        "after must be the 'next' of an earlier answer (time~key), not '" + cursor + "'");
  }

  /** The position after which a page starts: null (from the start) for an absent cursor. */
  public static Position after(String cursor) {
    return cursor == null || cursor.isEmpty() ? null : parseCursor(cursor);
  }

  /**
   * The page size asked for: {@link #DEFAULT_LIMIT} when absent.
   *
   * @throws IllegalArgumentException when it is not a number from 1 to {@link #MAX_LIMIT}
   */
  public static int parseLimit(String limit) {
    if (limit == null || limit.isEmpty()) {
      return DEFAULT_LIMIT;
    }
    try {
      int n = Integer.parseInt(limit.strip());
      if (n >= 1 && n <= MAX_LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        "limit must be a whole number from 1 to "
            + MAX_LIMIT
            + ", not '"
            + limit
            + "'; page on with the answer's 'next' (after=...)");
  }

  /**
   * The first {@code limit} items after a position, of items offered one at a time in any order, in
   * memory for {@code limit} items: a bounded heap whose top is the last item kept.
   */
  public static final class FirstAfter<T> {
    private final Position after;
    private final int limit;
    private final Function<T, Position> position;
    private final PriorityQueue<Kept<T>> kept;
    private long count;
    private long remaining;

    private record Kept<T>(Position at, T item) {}

    /**
     * @param after the cursor's position (items at or before it are counted, not kept), or null
     */
    public FirstAfter(Position after, int limit, Function<T, Position> position) {
      this.after = after;
      this.limit = limit;
      this.position = position;
      this.kept =
          new PriorityQueue<>(
              Math.min(limit, 1024) + 1, Comparator.comparing((Kept<T> k) -> k.at()).reversed());
    }

    /** Counts a matching item and keeps it when it is among the first after the cursor. */
    public void offer(T item) {
      count++;
      Position at = position.apply(item);
      if (after != null && at.compareTo(after) <= 0) {
        return;
      }
      remaining++;
      if (kept.size() < limit) {
        kept.add(new Kept<>(at, item));
      } else if (at.compareTo(kept.peek().at()) < 0) {
        kept.poll();
        kept.add(new Kept<>(at, item));
      }
    }

    /** Every match offered. */
    public long count() {
      return count;
    }

    /** The matches after the cursor (kept or not). */
    public long remaining() {
      return remaining;
    }

    /** The items kept, in list order. */
    public List<T> items() {
      List<Kept<T>> sorted = new ArrayList<>(kept);
      sorted.sort(Comparator.comparing(Kept::at));
      return sorted.stream().map(Kept::item).toList();
    }

    /** This instance's part of the list, for the partitions it served. */
    public Part<T> part(Set<Integer> partitions) {
      return new Part<>(items(), count, remaining, partitions);
    }
  }

  /**
   * One instance's part of a list: its first items after the cursor, its matches in all and after
   * the cursor, and the partitions of the store it read (what makes the parts a whole).
   */
  public record Part<T>(List<T> items, long count, long remaining, Set<Integer> partitions) {}

  /** The parts do not make the whole list: a partition was read by no instance, or by two. */
  public static final class IncompleteList extends ApiUnavailable {
    private static final long serialVersionUID = 1L;

    IncompleteList(String message) {
      super(message);
    }
  }

  /**
   * The answer from every instance's part: the first {@code limit} items in list order, the count
   * of every match, and the cursor of the next page when more follow.
   *
   * @param partitions the store's partitions (0 to partitions - 1), each to be read exactly once
   * @throws IncompleteList when the parts do not cover every partition exactly once (a rebalance is
   *     under way): an answer then would be partial, or hold a pod twice
   */
  public static <T> Listing<T> merge(
      Collection<Part<T>> parts, int partitions, int limit, Function<T, Position> position)
      throws IncompleteList {
    Set<Integer> seen = new TreeSet<>();
    Set<Integer> twice = new TreeSet<>();
    for (Part<T> p : parts) {
      for (int partition : p.partitions()) {
        if (!seen.add(partition)) {
          twice.add(partition);
        }
      }
    }
    Set<Integer> missing = new TreeSet<>();
    for (int i = 0; i < partitions; i++) {
      if (!seen.contains(i)) {
        missing.add(i);
      }
    }
    if (!missing.isEmpty() || !twice.isEmpty()) {
      throw new IncompleteList(
          (missing.isEmpty() ? "" : "partitions " + missing + " are served by no instance")
              + (missing.isEmpty() || twice.isEmpty() ? "" : "; ")
              + (twice.isEmpty() ? "" : "partitions " + twice + " are served by two instances")
              + " (a rebalance is under way); retry shortly");
    }
    List<T> all = new ArrayList<>();
    long count = 0;
    long remaining = 0;
    for (Part<T> p : parts) {
      all.addAll(p.items());
      count += p.count();
      remaining += p.remaining();
    }
    all.sort(Comparator.comparing(position));
    List<T> page = List.copyOf(all.subList(0, Math.min(limit, all.size())));
    String next =
        remaining > page.size() && !page.isEmpty()
            ? cursor(position.apply(page.get(page.size() - 1)))
            : null;
    return new Listing<>(page, count, next);
  }

  /**
   * The answer of a list read in one place (no partitions to check): a demo's or replay's files.
   */
  public static <T> Listing<T> whole(FirstAfter<T> first) {
    try {
      return merge(List.of(first.part(Set.of())), 0, first.limit, first.position);
    } catch (IncompleteList impossible) {
      throw new IllegalStateException(impossible);
    }
  }
}
