package io.schedlens.runs.replay;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where each recorded Pod watch event stands in event time. A Pod carries no time of its own change
 * (a label, a nomination, the deletion of a pod that never ran carry none): a change (MODIFIED,
 * DELETED) stands at its latest fact, and never before the watch event that happened before it in
 * the cluster, so a change without a time of its own takes the time of the stream around it. An
 * ADDED pod stands at its own latest fact: a watch starts by listing the pods that exist, in no
 * order of time.
 *
 * <p>What "before it in the cluster" means must not depend on how the recording was cut into files
 * or in which order they are given. When every watch event carries a numeric {@code
 * metadata.resourceVersion} (the API server's revision, which kubectl keeps), the watch events of
 * all files together are put in that order first: concatenated recordings, per-pod files and one
 * time-ordered file give the same times. Without one, each file is taken in the order it is written
 * (one watch stream per file), and a file whose order goes back in time is refused with its file
 * and line: a pod whose facts go backwards, or a pod added long before the stream around it after
 * the stream's initial listing (a second recording appended to the first).
 */
public final class PodWatchTimes {

  /**
   * One recorded watch event of a Pod.
   *
   * @param resourceVersion the object's revision, or -1 when it has none or not a number
   * @param own the time of its latest fact (its own time)
   */
  record Watched(
      PodObservation pod,
      ChangeType change,
      String file,
      int line,
      long resourceVersion,
      long own) {}

  /** The order of a recording cannot be recovered. */
  public static final class OrderBroken extends ConfigException {
    OrderBroken(String message) {
      super(message);
    }
  }

  private PodWatchTimes() {}

  /** The revision of {@code resourceVersion}, or -1. */
  static long revision(String resourceVersion) {
    if (resourceVersion == null || resourceVersion.isEmpty()) {
      return -1;
    }
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Sets every watch event's {@code observedAt}; returns them in the order they are placed.
   *
   * @param watched the watch events in the order read (file by file, each in its order)
   * @param graceMs how far back in time a file may go without being refused
   * @throws OrderBroken when there are no revisions and a file's order goes back in time
   */
  static List<PodObservation> place(List<Watched> watched, long graceMs) {
    boolean revisions = watched.stream().allMatch(w -> w.resourceVersion() >= 0);
    List<Watched> ordered = new ArrayList<>(watched);
    if (revisions) {
      ordered.sort(Comparator.comparingLong(Watched::resourceVersion)); // stable: ties keep order
    } else {
      checkOrder(watched, graceMs);
    }
    List<PodObservation> placed = new ArrayList<>(ordered.size());
    long clock = Long.MIN_VALUE;
    String file = null;
    for (Watched w : ordered) {
      if (!revisions && !w.file().equals(file)) {
        clock = Long.MIN_VALUE; // without revisions, each file is its own watch stream
        file = w.file();
      }
      clock = Math.max(clock, w.own());
      w.pod().setObservedAt(w.change() == ChangeType.ADDED ? w.own() : clock);
      placed.add(w.pod());
    }
    return placed;
  }

  private static void checkOrder(List<Watched> watched, long graceMs) {
    Map<String, Watched> previous = new HashMap<>();
    String file = null;
    long clock = Long.MIN_VALUE;
    boolean watching = false;
    for (Watched w : watched) {
      if (!w.file().equals(file)) {
        file = w.file();
        clock = Long.MIN_VALUE;
        watching = false;
      }
      Watched before = previous.put(w.pod().getUid(), w);
      if (before != null && w.own() < before.own()) {
        throw broken(
            w,
            "its facts stand at "
                + Instant.ofEpochMilli(w.own())
                + ", before those of its watch event at "
                + before.file()
                + ":"
                + before.line()
                + " ("
                + Instant.ofEpochMilli(before.own())
                + ")");
      }
      // A watch starts with the pods that exist (ADDED, in any order); after the first change, an
      // ADDED pod is a new one, created about when it is seen.
      if (watching && w.change() == ChangeType.ADDED && w.own() < clock - graceMs) {
        throw broken(
            w,
            "it is added at "
                + Instant.ofEpochMilli(w.own())
                + " after watch events up to "
                + Instant.ofEpochMilli(clock)
                + " (a second recording appended to the first?)");
      }
      if (w.change() != ChangeType.ADDED) {
        watching = true;
      }
      clock = Math.max(clock, w.own());
    }
  }

  private static OrderBroken broken(Watched w, String what) {
    return new OrderBroken(
        w.file()
            + ":"
            + w.line()
            + ": the watch events of this file go back in time at pod "
            + w.pod().getNamespace()
            + "/"
            + w.pod().getName()
            + ": "
            + what
            + ". Without metadata.resourceVersion on every Pod (kubectl -o json keeps it), replay"
            + " takes each file in the order it is written: keep the resourceVersions, or give"
            + " each recording its own file (--pods run1.json,run2.json), each in the order it was"
            + " recorded");
  }
}
