package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.report.WorkloadsFile;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import io.schedlens.topology.TopologySettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The streams app's topology (every stage, store and internal topic, the same reducer) in-process
 * ({@link InProcessTopology}: one partition, no broker). Fed the collector's records as they come,
 * with a progress mark on every input topic each {@link #SLICE_MS} of virtual time (the marks are
 * true: later inputs are never earlier than the virtual now they are read at), and the stages' wall
 * clock moved on so that their watermarks go round; the stores commit once an hour of it. The
 * marks, not the wall clock, decide what the timelines say: outputs are a function of the inputs
 * alone.
 *
 * <p>The topology runs on a thread of its own ({@code whatif-topology}), fed in batches through a
 * bounded hand-off in the order the inputs came, each with the virtual time it was read at: the
 * simulation goes on while the topology reduces what it wrote (two cores, two halves of the work).
 * The order and the times are the same as on one thread, so the outputs are too.
 */
final class TopologyRun implements Consumer<Outgoing>, AutoCloseable {

  /** Virtual time between progress marks. */
  static final long SLICE_MS = 60_000;

  /**
   * Slices between commits of the stores' write-back buffers: the stores are on the heap without
   * changelogs, so a commit only re-encodes the states that changed; a pod's state changed in many
   * slices of an hour is encoded once.
   */
  private static final int COMMIT_SLICES = 60;

  /** Inputs handed to the topology's thread at once. */
  private static final int BATCH = 512;

  /** The end of the inputs, on the hand-off. */
  private static final Read[] END = new Read[0];

  /** An input and the virtual time it was read at. */
  private record Read(Outgoing input, long at) {}

  private static final String PRODUCER = "whatif";

  private final Records records;
  private final InProcessTopology topology;
  private final LongSupplier now;
  private final Map<String, PodTimeline> latest = new LinkedHashMap<>();
  private final Map<String, WorkloadTimeline> latestWorkloads = new LinkedHashMap<>();
  private final Map<String, Preemption> latestPreemptions = new LinkedHashMap<>();
  private long lastMark = Long.MIN_VALUE;
  private long piped;
  private long slices;
  private final BlockingQueue<Read[]> handoff = new ArrayBlockingQueue<>(32);
  private Read[] batch = new Read[BATCH];
  private int filled;
  private final Thread worker;
  private volatile RuntimeException failed;

  /**
   * @param now the simulation's virtual time
   * @param stateDir the state directory of this run (its stores are on the heap)
   */
  TopologyRun(
      Topics topics, Records records, TopologySettings settings, LongSupplier now, Path stateDir) {
    this.records = records;
    this.now = now;
    this.topology =
        new InProcessTopology(topics, settings, new StreamsMetrics(), stateDir, now.getAsLong());
    for (String topic : records.markedTopics()) {
      if (!topology.inputTopics().contains(topic)) {
        throw new IllegalStateException("the collector marks a topic no stage reads: " + topic);
      }
    }
    topology.output(topics.podTimelines, latest::put);
    topology.output(
        topics.workloadTimelines, (k, w) -> WorkloadsFile.keepLatest(latestWorkloads, w));
    topology.output(topics.preemptions, latestPreemptions::put);
    worker = new Thread(this::work, "whatif-topology");
    worker.setDaemon(true);
    worker.start();
  }

  /** The topology's thread: every batch in order, until the end. */
  private void work() {
    try {
      while (true) {
        Read[] reads = handoff.take();
        if (reads == END) {
          return;
        }
        for (Read r : reads) {
          pipe(r.input(), r.at());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failed = e;
    }
  }

  /** Hands a batch over; fails if the topology's thread did. */
  private void hand(Read[] reads) {
    try {
      while (!handoff.offer(reads, 100, TimeUnit.MILLISECONDS)) {
        rethrow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the topology reduced the prediction", e);
    }
  }

  private void rethrow() {
    if (failed != null) {
      throw new IllegalStateException("the topology failed on a predicted input", failed);
    }
    if (!worker.isAlive()) {
      throw new IllegalStateException("the topology's thread ended before its input did");
    }
  }

  /** One input, read now: goes to the topology's thread with the virtual time. */
  @Override
  public void accept(Outgoing o) {
    batch[filled++] = new Read(o, now.getAsLong());
    if (filled == BATCH) {
      hand(batch);
      batch = new Read[BATCH];
      filled = 0;
    }
  }

  /** One input, read at {@code t}: first the mark of the slice that ended, if one did. */
  private void pipe(Outgoing o, long t) {
    if (lastMark == Long.MIN_VALUE) {
      lastMark = t - 1;
    } else if (t - lastMark > SLICE_MS) {
      markAll(t - 1);
      lastMark = t - 1;
      settle(3);
      if (++slices % COMMIT_SLICES == 0) {
        topology.commit();
      }
    }
    topology.pipe(o.topic(), o.key(), o.value(), new RecordHeaders(), o.eventTime());
    piped++;
  }

  /** Inputs piped (after {@link #finish}). */
  long piped() {
    return piped;
  }

  /** Ends the input (the last mark): every final timeline due goes out. */
  void finish() {
    hand(Arrays.copyOf(batch, filled));
    filled = 0;
    hand(END);
    try {
      worker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the topology reduced the prediction", e);
    }
    if (failed != null) {
      throw new IllegalStateException("the topology failed on a predicted input", failed);
    }
    if (lastMark == Long.MIN_VALUE) {
      lastMark = now.getAsLong() - 1; // nothing was written: the marks start now
    }
    markAll(ProgressMarks.END);
    settle(6);
    // a pod's flush tells its workload, whose own flush then publishes
    topology.advanceWallClock(Duration.ofSeconds(3));
    topology.advanceWallClock(Duration.ofSeconds(3));
    topology.commit();
  }

  private void markAll(long time) {
    for (String topic : records.markedTopics()) {
      Outgoing m = records.mark(topic, time, lastMark + 1, PRODUCER);
      topology.pipe(
          topic,
          null,
          m.value(),
          new RecordHeaders(ProgressMarks.headers().toArray()),
          m.eventTime());
    }
  }

  private void settle(int rounds) {
    for (int i = 0; i < rounds; i++) {
      topology.advanceWallClock(Duration.ofMillis(150));
    }
  }

  /** The latest timeline of every pod. */
  Map<String, PodTimeline> timelines() {
    return latest;
  }

  /** The latest timeline of every workload, by identity. */
  Map<String, WorkloadTimeline> workloads() {
    return latestWorkloads;
  }

  Map<String, Preemption> preemptions() {
    return latestPreemptions;
  }

  @Override
  public void close() {
    if (worker.isAlive()) {
      worker.interrupt();
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    topology.close();
  }
}
