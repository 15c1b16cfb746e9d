package io.schedlens.streams.topology;

import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.avro.internal.WorkloadStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.TreeSet;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The workload stage, keyed by {@code namespace/kind/name}: its pods tell it when they join, are
 * preempted, succeed and are finished; it counts the distinct preempted pods and whether one
 * completed, and tells every live pod of the workload when that changes (they show it as {@code
 * preemptionsOfWorkload} and workload starvation). A Job preempted three times is one workload with
 * three pod timelines.
 */
final class WorkloadProcessor implements Processor<String, Object, String, Object> {

  private final long idleMs;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, WorkloadState> workloads;
  private long lastInputWallMs;

  WorkloadProcessor(Duration idleTimeout) {
    this.idleMs = idleTimeout.toMillis();
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.workloads = context.getStateStore(TimelineTopology.WORKLOADS_STORE);
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        this::broadcastWatermark);
    lastInputWallMs = context.currentSystemTimeMs();
  }

  /** Everything sent so far has its answers out: the stream time, or no limit when idle. */
  private void broadcastWatermark(long wallNow) {
    long streamTime = context.currentStreamTimeMs();
    long mark = wallNow - lastInputWallMs > idleMs ? Long.MAX_VALUE : streamTime;
    Watermark w = new Watermark(Watermarks.WORKLOAD, context.taskId().partition(), mark);
    context.forward(
        new Record<>("watermark", (Object) new RoutedInput(w), Math.max(0, streamTime)),
        TimelineTopology.WORKLOAD_BY_UID_SINK);
  }

  @Override
  public void process(Record<String, Object> record) {
    Object value = record.value() instanceof RoutedInput r ? r.getPayload() : record.value();
    if (!(value instanceof WorkloadEvent e)) {
      return;
    }
    lastInputWallMs = context.currentSystemTimeMs();
    WorkloadState w = workloads.get(record.key());
    if (w == null) {
      w = WorkloadState.newBuilder().build();
    }
    WorkloadStatus before = new WorkloadStatus(w.getPreempted().size(), w.getCompleted());
    TreeSet<String> members = new TreeSet<>(w.getMembers());
    switch (e.getFact()) {
      case "member" -> {
        if (members.add(e.getUid()) && (before.getPreemptions() > 0 || before.getCompleted())) {
          tell(e.getUid(), before, record.timestamp());
        }
      }
      case "preempted" -> {
        TreeSet<String> preempted = new TreeSet<>(w.getPreempted());
        preempted.add(e.getUid());
        w.setPreempted(new ArrayList<>(preempted));
      }
      case "succeeded" -> w.setCompleted(true);
      case "final" -> members.remove(e.getUid());
      default -> {}
    }
    w.setMembers(new ArrayList<>(members));
    WorkloadStatus after = new WorkloadStatus(w.getPreempted().size(), w.getCompleted());
    if (!after.equals(before)) {
      for (String uid : members) {
        tell(uid, after, record.timestamp());
      }
    }
    // Counts stay when the last pod is finished: a Job's next pod is the same workload.
    workloads.put(record.key(), w);
  }

  private void tell(String uid, WorkloadStatus status, long timestamp) {
    context.forward(
        new Record<>(uid, (Object) new RoutedInput(status), timestamp),
        TimelineTopology.WORKLOAD_BY_UID_SINK);
  }
}
