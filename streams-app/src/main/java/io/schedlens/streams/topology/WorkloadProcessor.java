package io.schedlens.streams.topology;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.Recovery;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.DesiredStep;
import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.streams.metrics.StreamsMetrics;
import io.schedlens.streams.timeline.Disruptions;
import io.schedlens.streams.timeline.WorkloadService;
import io.schedlens.streams.timeline.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 *
 * <p>It also keeps each pod's facts (sent by its timeline when they change) and the times of the
 * workload's request errors and SLO breaches, and emits the workload's timeline ({@link
 * WorkloadService}): at once when a pod's facts change, at the next flush for errors and breaches.
 */
final class WorkloadProcessor implements Processor<String, Object, String, Object> {

  static final int MAX_REQUEST_TIMES = 2000;
  static final int MAX_DESIRED_STEPS = 500;

  private final long idleMs;
  private final Duration emitInterval;
  private final StreamsMetrics metrics;
  private final Set<String> dirty = new LinkedHashSet<>();
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, WorkloadState> workloads;
  private long lastInputWallMs;

  WorkloadProcessor(Duration idleTimeout, Duration emitInterval, StreamsMetrics metrics) {
    this.idleMs = idleTimeout.toMillis();
    this.emitInterval = emitInterval;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.workloads = context.getStateStore(TimelineTopology.WORKLOADS_STORE);
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        this::broadcastWatermark);
    context.schedule(emitInterval, PunctuationType.WALL_CLOCK_TIME, t -> flushDirty());
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
    if (value instanceof WorkloadObservation o) {
      lastInputWallMs = context.currentSystemTimeMs();
      observed(o);
      return;
    }
    if (!(value instanceof WorkloadEvent e)) {
      return;
    }
    lastInputWallMs = context.currentSystemTimeMs();
    WorkloadState w = workloads.get(record.key());
    if (w == null) {
      w = WorkloadState.newBuilder().build();
    }
    WorkloadStatus before = new WorkloadStatus(w.getPreempted().size(), w.getCompleted(), null);
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
      case "pod" -> {
        if (e.getPod() != null) {
          w.setPods(upsert(w.getPods(), e.getPod()));
          w.setUpdatedAt(
              Math.max(w.getUpdatedAt(), Math.max(record.timestamp(), latestTime(e.getPod()))));
          tellRollouts(w, emit(record.key(), w), record.timestamp());
          dirty.remove(record.key());
        }
      }
      case "error" -> {
        w.setErrorTimes(appendBounded(w.getErrorTimes(), e.getAt()));
        w.setUpdatedAt(Math.max(w.getUpdatedAt(), e.getAt()));
        dirty.add(record.key());
      }
      case "slo-breach" -> {
        w.setBreachTimes(appendBounded(w.getBreachTimes(), e.getAt()));
        w.setUpdatedAt(Math.max(w.getUpdatedAt(), e.getAt()));
        dirty.add(record.key());
      }
      default -> {}
    }
    w.setMembers(new ArrayList<>(members));
    WorkloadStatus after = new WorkloadStatus(w.getPreempted().size(), w.getCompleted(), null);
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

  /**
   * Tells each pod a rollout deleted that it was (once): it shows on its own timeline. The
   * workload's timeline found them already (its recoveries with cause rollout).
   */
  private void tellRollouts(WorkloadState w, WorkloadTimeline t, long timestamp) {
    if (t == null) {
      return;
    }
    List<String> told = new ArrayList<>(w.getRolloutTold());
    for (Recovery r : t.getRecoveries()) {
      if (Disruptions.ROLLOUT.equals(r.getCause()) && !told.contains(r.getPod())) {
        told.add(r.getPod());
        tell(
            r.getPod(),
            new WorkloadStatus(w.getPreempted().size(), w.getCompleted(), r.getAt()),
            timestamp);
      }
    }
    Set<String> kept = podUids(w);
    told.removeIf(uid -> !kept.contains(uid));
    w.setRolloutTold(told);
  }

  /**
   * The workload object says how many replicas it wants: a step of desired replicas, at the time
   * what decides them was written, when that changed. Keyed as its pods' facts are ({@link
   * Workloads#key}: a Job's or StatefulSet's with its UID).
   */
  private void observed(WorkloadObservation o) {
    String key =
        Workloads.key(o.getNamespace(), new WorkloadRef(o.getKind(), o.getName()), o.getUid());
    WorkloadState w = workloads.get(key);
    if (w == null) {
      w = WorkloadState.newBuilder().build();
    }
    int desired = o.getChangeType() == ChangeType.DELETED ? 0 : o.getDesired();
    // Event time: when what decides it was written (managedFields); the read time only without
    // it, and for a deletion (the object keeps no time of that).
    long at =
        o.getDesiredChangedAt() != null && o.getChangeType() != ChangeType.DELETED
            ? o.getDesiredChangedAt()
            : o.getObservedAt();
    List<DesiredStep> steps = new ArrayList<>(w.getDesiredSteps());
    steps.sort(Comparator.comparingLong(DesiredStep::getAt));
    // The step in force at the observation's time; an older observation arriving late changes
    // nothing it would not have.
    DesiredStep before = null;
    for (DesiredStep s : steps) {
      if (s.getAt() <= at) {
        before = s;
      }
    }
    if (before != null && before.getDesired() == desired) {
      return;
    }
    steps.add(new DesiredStep(at, desired));
    steps.sort(Comparator.comparingLong(DesiredStep::getAt));
    if (steps.size() > MAX_DESIRED_STEPS) {
      steps = new ArrayList<>(steps.subList(steps.size() - MAX_DESIRED_STEPS, steps.size()));
    }
    w.setDesiredSteps(steps);
    w.setUpdatedAt(Math.max(w.getUpdatedAt(), at));
    emit(key, w);
    workloads.put(key, w);
  }

  private void flushDirty() {
    for (String key : new ArrayList<>(dirty)) {
      WorkloadState w = workloads.get(key);
      if (w != null) {
        emit(key, w);
        workloads.put(key, w);
      }
    }
    dirty.clear();
  }

  /**
   * Emits the workload's timeline and adds what newly closed or recovered to the metrics; returns
   * it, or null when the workload has no pod yet.
   */
  private WorkloadTimeline emit(String key, WorkloadState w) {
    if (w.getPods().isEmpty()) {
      return null;
    }
    WorkloadService.Identity id = WorkloadService.Identity.ofKey(key);
    WorkloadTimeline t =
        WorkloadService.view(
            id,
            w.getPods(),
            w.getDesiredSteps(),
            w.getErrorTimes(),
            w.getBreachTimes(),
            w.getUpdatedAt());
    context.forward(
        new Record<>(id.topicKey(), (Object) t, Math.max(0, w.getUpdatedAt())),
        TimelineTopology.WORKLOAD_TIMELINES_SINK);
    String[] labels = {
      id.namespace(),
      orEmpty(t.getPriorityClass()),
      id.kind(),
      orEmpty(t.getArm()),
      orEmpty(t.getRepeat())
    };
    long interrupted = WorkloadService.closedMs(t.getInterruptions());
    if (interrupted > w.getCountedInterruptionMs()) {
      metrics
          .workloadInterruptionSeconds
          .labelValues(labels)
          .inc((interrupted - w.getCountedInterruptionMs()) / 1000.0);
      w.setCountedInterruptionMs(interrupted);
    }
    long degraded = WorkloadService.closedMs(t.getDegraded());
    if (degraded > w.getCountedDegradedMs()) {
      metrics
          .workloadDegradedSeconds
          .labelValues(labels)
          .inc((degraded - w.getCountedDegradedMs()) / 1000.0);
      w.setCountedDegradedMs(degraded);
    }
    List<String> counted = new ArrayList<>(w.getCountedRecoveries());
    for (Recovery r : t.getRecoveries()) {
      observe(counted, labels, r, "scheduled", r.getToScheduledMs());
      observe(counted, labels, r, "ready", r.getToReadyMs());
      observe(counted, labels, r, "first_ok", r.getToFirstOkMs());
    }
    // Only the recoveries of pods still kept can come again.
    Set<String> kept = podUids(w);
    counted.removeIf(c -> !kept.contains(c.substring(0, c.indexOf(':'))));
    w.setCountedRecoveries(counted);
    return t;
  }

  private static Set<String> podUids(WorkloadState w) {
    Set<String> uids = new TreeSet<>();
    w.getPods().forEach(p -> uids.add(p.getUid()));
    return uids;
  }

  private void observe(List<String> counted, String[] labels, Recovery r, String stage, Long ms) {
    String mark = r.getPod() + ":" + stage;
    if (ms == null || counted.contains(mark)) {
      return;
    }
    counted.add(mark);
    metrics
        .workloadRecovery
        .labelValues(labels[0], labels[1], labels[2], labels[3], labels[4], r.getCause(), stage)
        .observe(ms / 1000.0);
  }

  /** The pod's latest facts replace its earlier ones; the oldest pods beyond the bound go. */
  static List<WorkloadMember> upsert(List<WorkloadMember> pods, WorkloadMember pod) {
    List<WorkloadMember> out = new ArrayList<>(pods.size() + 1);
    for (WorkloadMember p : pods) {
      if (!p.getUid().equals(pod.getUid())) {
        out.add(p);
      }
    }
    out.add(pod);
    if (out.size() > WorkloadService.MAX_PODS) {
      out.sort(
          Comparator.comparing(
              (WorkloadMember p) -> p.getCreatedAt() == null ? Long.MAX_VALUE : p.getCreatedAt()));
      out = new ArrayList<>(out.subList(out.size() - WorkloadService.MAX_PODS, out.size()));
    }
    return out;
  }

  private static List<Long> appendBounded(List<Long> times, long at) {
    List<Long> out = new ArrayList<>(times);
    out.add(at);
    if (out.size() > MAX_REQUEST_TIMES) {
      out.sort(null);
      out = new ArrayList<>(out.subList(out.size() - MAX_REQUEST_TIMES, out.size()));
    }
    return out;
  }

  private static long latestTime(WorkloadMember p) {
    long t = 0;
    for (Long x :
        new Long[] {
          p.getCreatedAt(),
          p.getScheduledAt(),
          p.getReadyAt(),
          p.getReadyEndAt(),
          p.getStoppedAt(),
          p.getFirstOkAt(),
          p.getDisruptionAt()
        }) {
      if (x != null) {
        t = Math.max(t, x);
      }
    }
    return t;
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
