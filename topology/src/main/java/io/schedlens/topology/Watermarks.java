package io.schedlens.topology;

import io.schedlens.avro.internal.Watermark;
import java.util.HashMap;
import java.util.Map;

/**
 * The app's event-time progress, as one task hears it: the one place the watermark protocol lives.
 *
 * <p>Every input partition carries its producer's progress marks; a task of the pod stage knows
 * from them how far its own inputs are complete ({@link #external}). But a pod's story also depends
 * on messages between tasks, which travel through internal topics: a victim tells its preemptor,
 * which answers; a pod tells its workload, which answers; a victim without a named preemptor asks
 * its node. So every task broadcasts a {@link Watermark} to every partition of the topics it writes
 * to, after the messages it covers:
 *
 * <pre>
 *  pod stage task    time     = least mark of its input partitions (pods, events, samples, requests)
 *                    answered = least time of every pod-stage task, as it heard them
 *  workload task     answered = least time of every pod-stage task, as it heard them
 *  node task         answered = least time of every pod-stage task, as it heard them
 *
 *  pods ─time─▶ workloads, nodes, pods      (first-order messages: facts, links, questions)
 *  pods, workloads, nodes ─answered─▶ pods  (second-order messages: answers, workload status)
 * </pre>
 *
 * A task that heard every pod-stage task pass T ({@link #firstOrder} ≥ T) has received every
 * message the pod stage sent about inputs up to T, and has answered them before it says so; a pod
 * task that heard every task of every stage answer past T ({@link #answered} ≥ T) has received
 * every answer about facts up to T. Answers cause no further messages, so two rounds suffice, and a
 * pod's final timeline waits for {@link #answered}. Nothing here reads a clock: the broadcasts go
 * out on a wall-clock schedule, which decides when a result is published, never what it says.
 */
final class Watermarks {

  static final String PODS = "pods";
  static final String WORKLOADS = "workloads";
  static final String NODES = "nodes";
  private static final String[] STAGES = {PODS, WORKLOADS, NODES};

  private final int partitions;
  private final Map<String, long[]> heard = new HashMap<>();

  Watermarks(int partitions) {
    this.partitions = partitions;
  }

  /** Records what a task said (both values only move forward). */
  void heard(Watermark w) {
    long[] v =
        heard.computeIfAbsent(
            w.getStage() + ":" + w.getPartition(),
            k -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
    v[0] = Math.max(v[0], w.getTime());
    v[1] = Math.max(v[1], w.getAnswered());
  }

  /**
   * Event time up to which every pod-stage task's inputs are complete and its messages sent, as
   * heard here; Long.MIN_VALUE until every task has spoken.
   */
  long firstOrder() {
    return least(new String[] {PODS}, 0);
  }

  /**
   * Event time up to which every task of every stage has received and answered every message about
   * facts up to it; Long.MIN_VALUE until every task has spoken.
   */
  long answered() {
    return least(STAGES, 1);
  }

  private long least(String[] stages, int index) {
    long least = Long.MAX_VALUE;
    for (String stage : stages) {
      for (int p = 0; p < partitions; p++) {
        long[] v = heard.get(stage + ":" + p);
        if (v == null) {
          return Long.MIN_VALUE;
        }
        least = Math.min(least, v[index]);
      }
    }
    return least;
  }

  /** The watermark a task broadcasts. */
  static Watermark of(String stage, int partition, long time, long answered) {
    return new Watermark(stage, partition, time, answered);
  }

  /** The least of the marks of a task's own input partitions; Long.MIN_VALUE until all spoke. */
  static long external(Map<String, Long> marks, Iterable<String> sources) {
    long least = Long.MAX_VALUE;
    for (String source : sources) {
      Long m = marks.get(source);
      if (m == null) {
        return Long.MIN_VALUE;
      }
      least = Math.min(least, m);
    }
    return least;
  }
}
