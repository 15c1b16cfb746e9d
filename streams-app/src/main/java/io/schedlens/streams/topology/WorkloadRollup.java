package io.schedlens.streams.topology;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.streams.timeline.TimelineView;
import java.util.ArrayList;
import java.util.TreeSet;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The workload stage, keyed by {@code namespace/kind/name}: counts the distinct pods of a workload
 * that were preempted and whether one completed, puts {@code preemptionsOfWorkload} and workload
 * starvation on each pod timeline passing through, and publishes it keyed by pod UID. A Job
 * preempted three times is one workload with three pod timelines.
 */
final class WorkloadRollup implements Processor<String, PodTimeline, String, PodTimeline> {

  private final int starvationPreemptions;
  private ProcessorContext<String, PodTimeline> context;
  private KeyValueStore<String, WorkloadState> workloads;

  WorkloadRollup(int starvationPreemptions) {
    this.starvationPreemptions = starvationPreemptions;
  }

  @Override
  public void init(ProcessorContext<String, PodTimeline> context) {
    this.context = context;
    this.workloads = context.getStateStore(TimelineTopology.WORKLOADS_STORE);
  }

  @Override
  public void process(Record<String, PodTimeline> record) {
    PodTimeline t = record.value();
    if (t == null) {
      return;
    }
    WorkloadState w = workloads.get(record.key());
    if (w == null) {
      w = WorkloadState.newBuilder().build();
    }
    boolean changed = false;
    if (t.getPreemptedAt() != null && !w.getPreempted().contains(t.getUid())) {
      TreeSet<String> preempted = new TreeSet<>(w.getPreempted());
      preempted.add(t.getUid());
      w.setPreempted(new ArrayList<>(preempted));
      changed = true;
    }
    if (TimelineView.SUCCEEDED.equals(t.getOutcome()) && !w.getCompleted()) {
      w.setCompleted(true);
      changed = true;
    }
    if (changed) {
      workloads.put(record.key(), w);
    }
    int preemptions = w.getPreempted().size();
    t.setPreemptionsOfWorkload(preemptions);
    if (preemptions >= starvationPreemptions && !w.getCompleted()) {
      t.setStarving(true);
    }
    context.forward(new Record<>(t.getUid(), t, record.timestamp()));
  }
}
