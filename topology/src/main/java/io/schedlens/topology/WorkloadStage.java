package io.schedlens.topology;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.DesiredStep;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.timeline.OwningWorkload;
import io.schedlens.timeline.QueueAdmissions;
import io.schedlens.timeline.WorkloadContinuity;
import io.schedlens.topology.metrics.QueueMetrics;
import io.schedlens.topology.metrics.StreamsMetrics;
import io.schedlens.topology.metrics.WorkloadMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The workload stage, keyed by {@code namespace/kind/name} (a Job's or StatefulSet's with its
 * controller UID): its pods tell it their facts; it tells every live pod of the workload when and
 * how often the workload was preempted and whether one of its pods completed (they show {@code
 * preemptionsOfWorkload} and workload starvation), tells a pod that a rollout deleted it, and emits
 * the workload's timeline ({@link WorkloadContinuity}) every {@code emitInterval} while it changes.
 *
 * <p>What it keeps is split so that each fact writes a small entry: one per pod ({@code
 * workload-pods}), one per second with request errors or breaches ({@code workload-seconds}), and
 * the workload's own small state ({@code workloads}). A big workload's timeline is computed from
 * them when it is published, not at every fact: writing a workload's whole history for each of its
 * pods' facts made this stage the app's bottleneck.
 */
final class WorkloadStage
    implements Processor<String, WorkloadInput, String, SpecificRecord>, WorkloadInput.Reader {

  /** Headers of the outputs (see OutputHeaders); a workload timeline is never final. */
  private static final OutputHeaders HEADERS = OutputHeaders.of(WorkloadTimeline.getClassSchema());

  static final int MAX_DESIRED_STEPS = 500;
  static final int MAX_PREEMPTION_TIMES = 64;

  private final Duration emitInterval;
  private final long forgetAfterMs;
  private final int hot;
  private final StreamsMetrics metrics;
  private final Watermarks heard;
  private final Set<String> dirty = new LinkedHashSet<>();

  private final RolloutFinder rollouts = new RolloutFinder();

  private ProcessorContext<String, SpecificRecord> context;

  /** The record being read, and where it was read. */
  private Record<String, WorkloadInput> record;

  private RecordMetadata meta;
  private WorkloadStores stores;

  /** Workloads without a forgetAt when the task started, looked at before its first record. */
  private final List<String> undecided = new ArrayList<>();

  /**
   * Workloads due to be freed, by their {@code forgetAt}; rebuilt from the store at start. A stale
   * entry (the workload came back to life) is checked against the state before anything is freed.
   */
  private final TreeMap<Long, Set<String>> due = new TreeMap<>();

  private final AnsweredBroadcast answered =
      new AnsweredBroadcast(Watermarks.WORKLOADS, TopologyNames.WORKLOADS_TO_POD_SINK);

  WorkloadStage(TopologySettings settings, StreamsMetrics metrics) {
    this.emitInterval = settings.emitInterval();
    this.forgetAfterMs = settings.orphanTimeout().toMillis();
    this.hot = settings.hotObjects();
    this.metrics = metrics;
    this.heard = new Watermarks(settings.partitions());
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.stores =
        new WorkloadStores(
            new HotStore<>(context.getStateStore(TopologyNames.WORKLOADS_STORE), hot),
            context.getStateStore(TopologyNames.WORKLOAD_PODS_STORE),
            context.getStateStore(TopologyNames.WORKLOAD_SECONDS_STORE));
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::broadcast);
    context.schedule(emitInterval, PunctuationType.WALL_CLOCK_TIME, t -> flushDirty());
    try (KeyValueIterator<String, WorkloadState> it = stores.workloads.store().all()) {
      while (it.hasNext()) {
        KeyValue<String, WorkloadState> kv = it.next();
        if (kv.value != null && kv.value.getForgetAt() != null) {
          due.computeIfAbsent(kv.value.getForgetAt(), t -> new TreeSet<>()).add(kv.key);
        } else if (kv.value != null) {
          undecided.add(kv.key);
        }
      }
    }
  }

  /**
   * State written before WorkloadState v4 has no forgetAt: a workload whose pods had all ended then
   * would never be looked at again. Decided before the first record after a start from what the
   * state holds (its deletion, its pods' ends), as it would have been (a store is written only
   * while a record is processed, not in {@code init}). For state of v4 on this changes nothing: a
   * workload that is over has its forgetAt, so a restart decides nothing differently
   * (StateUpgradeTest).
   */
  private void decideUndecided() {
    for (String key : undecided) {
      WorkloadState w = stores.workloads.get(key);
      if (w != null && w.getForgetAt() == null) {
        scheduleForget(key, w, Long.MIN_VALUE, true);
        if (w.getForgetAt() != null) {
          stores.workloads.put(key, w);
        }
      }
    }
    undecided.clear();
  }

  @Override
  public void process(Record<String, WorkloadInput> record) {
    if (!undecided.isEmpty()) {
      decideUndecided();
    }
    this.record = record;
    this.meta = context.recordMetadata().orElse(null);
    record.value().to(this);
    forgetDue(context.currentStreamTimeMs());
  }

  @Override
  public void observation(WorkloadObservation o) {
    if (record.key() == null) {
      deadLetter(
          meta, DeadLetters.NULL_KEY, "a workload observation without a key (namespace/kind/name)");
      return;
    }
    metrics.recordIn(meta.topic());
    observed(o);
  }

  @Override
  public void tombstone() {
    deadLetter(
        meta,
        DeadLetters.TOMBSTONE,
        "a record without a value (a tombstone) on the workloads topic");
  }

  @Override
  public void heard(Watermark w) {
    heard.heard(w);
  }

  @Override
  public void fact(WorkloadEvent e) {
    if (record.key() != null) {
      fact(record.key(), e, record.timestamp());
    }
  }

  private void fact(String key, WorkloadEvent e, long timestamp) {
    WorkloadState w = stores.state(key);
    switch (e.getFact()) {
      case "pod" -> {
        if (e.getPod() != null) {
          boolean joined = stores.join(key, e.getUid(), e.getPod());
          w.setUpdatedAt(
              Math.max(
                  w.getUpdatedAt(),
                  Math.max(timestamp, WorkloadContinuity.latestFact(e.getPod()))));
          if (joined
              && (!w.getPreemptedTimes().isEmpty()
                  || w.getCompletedAt() != null
                  || !w.getQueueAdmissions().isEmpty()
                  || !w.getQueueEvictions().isEmpty())) {
            tell(key, e.getPod(), status(w, null));
          }
          tellRollouts(key, w, e.getPod());
          dirty.add(key);
          scheduleForget(key, w, timestamp, e.getPod().getFinal$());
        }
      }
      case "preempted" -> {
        Map<String, Long> times = new HashMap<>(w.getPreemptedTimes());
        // The pod's latest word: it tells again only when better evidence moved the time.
        Long before = times.get(e.getUid());
        if (before == null || e.getAt() != before) {
          times.put(e.getUid(), e.getAt());
          w.setPreemptedTimes(times);
          w.setPreempted(new ArrayList<>(new TreeSet<>(times.keySet())));
          tellAll(key, w);
        }
      }
      case "succeeded" -> {
        if (w.getCompletedAt() == null || e.getAt() < w.getCompletedAt()) {
          w.setCompletedAt(e.getAt());
          w.setCompleted(true);
          tellAll(key, w);
        }
      }
      case "requests" -> {
        stores.count(key, e.getAt(), "e", e.getErrors());
        stores.count(key, e.getAt(), "b", e.getBreaches());
        w.setUpdatedAt(Math.max(w.getUpdatedAt(), e.getAt()));
        dirty.add(key);
      }
      case "error" -> {
        stores.count(key, e.getAt(), "e", 1); // from an earlier version: one request each
        dirty.add(key);
      }
      case "slo-breach" -> {
        stores.count(key, e.getAt(), "b", 1);
        dirty.add(key);
      }
      default -> {} // member: the pod's facts follow ("pod"), with its name to answer it by
    }
    // Counts stay when the last pod is finished: a Job's next pod is the same workload.
    stores.workloads.put(key, w);
  }

  /** The workload's figures as a pod sees them, with when each fact happened. */
  private static WorkloadStatus status(WorkloadState w, Long rolledOutAt) {
    List<Long> times = new ArrayList<>(w.getPreemptedTimes().values());
    times.sort(null);
    if (times.size() > MAX_PREEMPTION_TIMES) {
      times = new ArrayList<>(times.subList(0, MAX_PREEMPTION_TIMES));
    }
    return WorkloadStatus.newBuilder()
        .setPreemptions(w.getPreemptedTimes().size())
        .setCompleted(w.getCompletedAt() != null)
        .setRolledOutAt(rolledOutAt)
        .setPreemptedAt(times)
        .setCompletedAt(w.getCompletedAt())
        .setQueueAdmissions(w.getQueueAdmissions())
        .setQueueEvictions(w.getQueueEvictions())
        .build();
  }

  /** Tells every live pod of the workload its figures. */
  private void tellAll(String key, WorkloadState w) {
    WorkloadStatus status = status(w, null);
    for (WorkloadMember p : stores.members(key)) {
      if (!p.getFinal$()) {
        tell(key, p, status);
      }
    }
  }

  private void tell(String key, WorkloadMember p, WorkloadStatus status) {
    if (p.getName() == null) {
      return;
    }
    PodName pod = new PodName(WorkloadKey.parse(key).namespace(), p.getName());
    context.forward(
        new Record<>(
            pod.key(),
            new StageMessage(p.getUid(), status),
            Math.max(0, context.currentStreamTimeMs())),
        TopologyNames.WORKLOADS_TO_POD_SINK);
  }

  /**
   * Tells each pod a rollout deleted that it was (once): it shows on its own timeline. Kubernetes
   * marks nothing on such a pod, so this stage infers it from its pods' facts.
   */
  private void tellRollouts(String key, WorkloadState w, WorkloadMember joined) {
    for (RolloutFinder.RolledOut r :
        rollouts.newlyRolledOut(key, w, joined, () -> stores.members(key))) {
      tell(key, r.pod(), status(w, r.at()));
    }
  }

  /**
   * The workload object says how many replicas it wants: a step of desired replicas, at the time
   * what decides them was written, when that changed. Keyed as its pods' facts are ({@link
   * OwningWorkload#key}: a Job's or StatefulSet's with its UID).
   */
  private void observed(WorkloadObservation o) {
    String key =
        OwningWorkload.key(o.getNamespace(), new WorkloadRef(o.getKind(), o.getName()), o.getUid());
    WorkloadState w = stores.state(key);
    if (o.getQueueWorkload() != null) {
      queued(key, w, o);
      return;
    }
    int desired = o.getChangeType() == ChangeType.DELETED ? 0 : o.getDesired();
    // Event time: when what decides it was written (managedFields); the read time only without
    // it, and for a deletion (the object keeps no time of that).
    long at =
        o.getDesiredChangedAt() != null && o.getChangeType() != ChangeType.DELETED
            ? o.getDesiredChangedAt()
            : o.getObservedAt();
    if (o.getChangeType() == ChangeType.DELETED) {
      if (w.getDeletedAt() == null || at > w.getDeletedAt()) {
        w.setDeletedAt(at);
      }
    } else if (w.getDeletedAt() != null && at > w.getDeletedAt()) {
      w.setDeletedAt(null); // created again under the same key (a Deployment's name reused)
    }
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
      scheduleForget(key, w, at, true);
      stores.workloads.put(key, w);
      return;
    }
    steps.add(new DesiredStep(at, desired));
    steps.sort(Comparator.comparingLong(DesiredStep::getAt));
    if (steps.size() > MAX_DESIRED_STEPS) {
      steps = new ArrayList<>(steps.subList(steps.size() - MAX_DESIRED_STEPS, steps.size()));
    }
    w.setDesiredSteps(steps);
    w.setUpdatedAt(Math.max(w.getUpdatedAt(), at));
    scheduleForget(key, w, at, true);
    stores.workloads.put(key, w);
    dirty.add(key);
  }

  /**
   * A Kueue Workload that admits this workload: its admission and eviction, told to the workload's
   * pods when they are new. A Workload deleted before its object was ever observed (a JobSet's,
   * which the collector does not observe, deleted while it waited) lets the state go as a deleted
   * object's does.
   */
  private void queued(String key, WorkloadState w, WorkloadObservation o) {
    QueueWorkload q = o.getQueueWorkload();
    String contradiction = QueueAdmissions.contradiction(q);
    if (contradiction != null) {
      deadLetter(
          meta, DeadLetters.QUEUE_OUT_OF_ORDER, "Workload " + q.getName() + ": " + contradiction);
      return;
    }
    QueueAdmissions.Known known =
        QueueAdmissions.observed(w.getQueueAdmissions(), w.getQueueEvictions(), q);
    long at = EventTimes.latestFact(q);
    if (o.getChangeType() == ChangeType.DELETED && w.getDesiredSteps().isEmpty()) {
      w.setDeletedAt(w.getDeletedAt() == null ? o.getObservedAt() : w.getDeletedAt());
      scheduleForget(key, w, at, true);
    }
    if (!known.admissions().equals(w.getQueueAdmissions())
        || !known.evictions().equals(w.getQueueEvictions())) {
      QueueMetrics.count(
          metrics,
          o.getNamespace(),
          o.getKind(),
          q,
          new QueueAdmissions.Known(w.getQueueAdmissions(), w.getQueueEvictions()),
          known);
      w.setQueueAdmissions(known.admissions());
      w.setQueueEvictions(known.evictions());
      w.setUpdatedAt(Math.max(w.getUpdatedAt(), at));
      tellAll(key, w);
      dirty.add(key);
    }
    stores.workloads.put(key, w);
  }

  /**
   * Decides when the workload's state is freed. A workload lives while its object exists or a pod
   * of it runs: once the object was deleted (or, for one never observed, such as a bare pod's or a
   * custom controller's, once it has pods) and every pod of it ended, its state is freed the orphan
   * timeout after the later of the two, in event time; a fact later than that would start it again.
   * A pod that joins, or the object created again, keeps it.
   *
   * @param mayBeOver false for the fact of a pod that is not final (the workload lives on)
   */
  private void scheduleForget(String key, WorkloadState w, long eventTime, boolean mayBeOver) {
    boolean gone = w.getDeletedAt() != null || w.getDesiredSteps().isEmpty();
    Long at = null;
    // A fact of a live pod keeps it without a look at the others (a scan per fact would cost).
    if (gone && mayBeOver) {
      List<WorkloadMember> members = stores.members(key);
      if ((w.getDeletedAt() != null || !members.isEmpty())
          && members.stream().allMatch(WorkloadMember::getFinal$)) {
        long last = w.getDeletedAt() == null ? Long.MIN_VALUE : w.getDeletedAt();
        for (WorkloadMember m : members) {
          last = Math.max(last, WorkloadContinuity.latestFact(m));
        }
        at = Math.max(last, eventTime) + forgetAfterMs;
      }
    }
    if (!Objects.equals(at, w.getForgetAt())) {
      w.setForgetAt(at);
      if (at != null) {
        due.computeIfAbsent(at, t -> new TreeSet<>()).add(key);
      }
    }
  }

  /**
   * Frees the state of the workloads due by {@code streamTime} (emitting a pending change first).
   */
  private void forgetDue(long streamTime) {
    while (!due.isEmpty() && due.firstKey() <= streamTime) {
      Map.Entry<Long, Set<String>> first = due.pollFirstEntry();
      for (String key : first.getValue()) {
        WorkloadState w = stores.workloads.get(key);
        if (w == null || !first.getKey().equals(w.getForgetAt())) {
          continue; // came back to life, or already freed
        }
        if (dirty.remove(key)) {
          emit(key, w);
        }
        if ((!w.getQueueAdmissions().isEmpty() || !w.getQueueEvictions().isEmpty())
            && stores.members(key).isEmpty()) {
          queueWithoutPods(key, first.getKey());
        }
        stores.forget(key);
        rollouts.forget(key);
        metrics.workloadsFreed.inc();
      }
    }
  }

  private void flushDirty() {
    for (String key : new ArrayList<>(dirty)) {
      WorkloadState w = stores.workloads.get(key);
      if (w != null) {
        emit(key, w);
        stores.workloads.put(key, w);
      }
    }
    dirty.clear();
  }

  /** Emits the workload's timeline and adds what newly closed or recovered to the metrics. */
  private void emit(String key, WorkloadState w) {
    List<WorkloadMember> members = stores.members(key);
    if (members.isEmpty()) {
      return;
    }
    WorkloadKey id = WorkloadKey.parse(key);
    WorkloadTimeline t =
        WorkloadContinuity.view(
            id,
            members,
            w.getDesiredSteps(),
            stores.counts(key, "e"),
            stores.counts(key, "b"),
            w.getUpdatedAt());
    t.setAdmissions(QueueAdmissions.story(w.getQueueAdmissions(), w.getQueueEvictions()));
    context.forward(
        new Record<>(id.identity(), t, Math.max(0, w.getUpdatedAt()), HEADERS.headers(false)),
        TopologyNames.WORKLOAD_TIMELINES_SINK);
    WorkloadMetrics.count(metrics, id, t, w, members);
  }

  /** Everything sent so far has its answers out: as far as every pod-stage task was heard. */
  private void broadcast(long wallNow) {
    answered.send(context, heard.firstOrder(), wallNow);
  }

  /**
   * A workload Kueue admitted or evicted, freed without a pod ever read: said as a dead letter of
   * the workload itself (no one input record is to blame), at the event time it was freed.
   */
  private void queueWithoutPods(String key, long freedAt) {
    DeadLetter d =
        DeadLetters.build(
            "schedlens-streams",
            null,
            null,
            key.getBytes(StandardCharsets.UTF_8),
            null,
            DeadLetters.QUEUE_WITHOUT_PODS,
            key + ": Kueue admitted or evicted it, and none of its pods was ever read",
            freedAt,
            context.currentSystemTimeMs());
    metrics.deadLetters.labelValues(DeadLetters.QUEUE_WITHOUT_PODS).inc();
    context.forward(
        new Record<>(d.getSource(), d, Math.max(0, freedAt)), TopologyNames.WORKLOADS_DLQ_SINK);
  }

  private void deadLetter(RecordMetadata meta, String reason, String detail) {
    DeadLetter d =
        DeadLetters.build(
            meta.topic(),
            meta.partition(),
            meta.offset(),
            null,
            null,
            reason,
            detail,
            null,
            context.currentSystemTimeMs());
    metrics.deadLetters.labelValues(reason).inc();
    context.forward(
        new Record<>(d.getSource(), d, Math.max(0, context.currentStreamTimeMs())),
        TopologyNames.WORKLOADS_DLQ_SINK);
  }
}
