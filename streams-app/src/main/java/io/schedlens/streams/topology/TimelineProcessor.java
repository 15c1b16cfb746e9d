package io.schedlens.streams.topology;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.avro.internal.PodIdentity;
import io.schedlens.avro.internal.RoutedInput;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.schemas.EventTimes;
import io.schedlens.streams.metrics.StreamsMetrics;
import io.schedlens.streams.timeline.Change;
import io.schedlens.streams.timeline.Outbound;
import io.schedlens.streams.timeline.TimelineReducer;
import io.schedlens.streams.timeline.TimelineSettings;
import io.schedlens.streams.timeline.TimelineView;
import io.schedlens.streams.timeline.WorkloadService;
import io.schedlens.streams.timeline.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The timeline stage, keyed by pod UID: folds pod observations, events, resolved GPU samples and
 * requests, and messages between pods into each pod's state; emits the timeline when its story
 * changes (at once) or its counters change (at the next flush); announces each new pod's name to
 * the name index; and, once a pod is gone and the grace period has passed in event time, emits its
 * final timeline and its preemption record and frees its state.
 *
 * <p>Thin on purpose: every number comes from {@link TimelineReducer} and {@link TimelineView}.
 */
final class TimelineProcessor implements Processor<String, Object, String, Object> {

  static final String FINAL = "final";
  static final String STARVE = "starve";
  static final String ORPHAN = "orphan";
  static final String FORGET = "forget";
  static final int HOT_STATES = 20_000;

  private final TimelineReducer reducer;
  private final TimelineView view;
  private final TimelineSettings settings;
  private final StreamsMetrics metrics;
  private final Duration emitInterval;
  private final long orphanMs;
  private final Set<String> dirty = new LinkedHashSet<>();
  private final Watermarks marks;
  private final long idleMs;
  private long lastInputWallMs;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, TimelineState> timelines;

  /**
   * The states last written, as objects: the store holds bytes, and decoding a pod's state again
   * for each of its GPU samples and requests would cost more than applying them. Always the same
   * value as the store (every change is written through); dropped with the processor on a rebalance
   * or restart, and evicted for a pod whose input failed half-way.
   */
  private final Map<String, TimelineState> hot =
      new LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TimelineState> eldest) {
          return size() > HOT_STATES;
        }
      };

  private KeyValueStore<String, String> timers;
  private KeyValueStore<String, Long> finalized;

  TimelineProcessor(
      TimelineSettings settings,
      Duration emitInterval,
      Duration orphanTimeout,
      int partitions,
      Duration idleTimeout,
      StreamsMetrics metrics) {
    this.marks = new Watermarks(partitions);
    this.idleMs = idleTimeout.toMillis();
    this.settings = settings;
    this.reducer = new TimelineReducer(settings);
    this.view = new TimelineView(settings);
    this.metrics = metrics;
    this.emitInterval = emitInterval;
    this.orphanMs = orphanTimeout.toMillis();
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.timelines = context.getStateStore(TimelineTopology.TIMELINES_STORE);
    this.timers = context.getStateStore(TimelineTopology.TIMERS_STORE);
    this.finalized = context.getStateStore(TimelineTopology.FINALIZED_STORE);
    context.schedule(Duration.ofSeconds(1), PunctuationType.STREAM_TIME, this::fireTimers);
    context.schedule(emitInterval, PunctuationType.WALL_CLOCK_TIME, t -> flushDirty());
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        this::onWatermarkTick);
    lastInputWallMs = context.currentSystemTimeMs();
  }

  /** Broadcasts this task's watermark, then emits the finals every task has let through. */
  private void onWatermarkTick(long wallNow) {
    long streamTime = context.currentStreamTimeMs();
    long mark = wallNow - lastInputWallMs > idleMs ? Long.MAX_VALUE : streamTime;
    Watermark w = new Watermark(Watermarks.TIMELINE, context.taskId().partition(), mark);
    Record<String, Object> heartbeat =
        new Record<>("watermark", (Object) new RoutedInput(w), Math.max(0, streamTime));
    context.forward(heartbeat, TimelineTopology.TIMELINE_BY_UID_SINK);
    context.forward(heartbeat, TimelineTopology.TIMELINE_BY_NAME_SINK);
    fireFinals(marks.safeTime());
  }

  @Override
  public void process(Record<String, Object> record) {
    String uid = record.key();
    Object input = record.value() instanceof RoutedInput r ? r.getPayload() : record.value();
    if (input instanceof Watermark w) {
      marks.update(w.getStage(), w.getPartition(), w.getTime());
      return;
    }
    if (uid == null || input == null) {
      return;
    }
    lastInputWallMs = context.currentSystemTimeMs();
    String topic = context.recordMetadata().map(m -> m.topic()).orElse("?");
    metrics.recordsIn.labelValues(topic).inc();
    long eventTime = eventTime(input, record.timestamp());
    metrics
        .eventToMetricLag
        .labelValues(topic)
        .observe(Math.max(0, System.currentTimeMillis() - eventTime) / 1000.0);

    if (finalized.get(uid) != null) {
      late(uid, input, eventTime);
      return;
    }
    try {
      apply(record, uid, input, topic, eventTime);
    } catch (RuntimeException e) {
      hot.remove(uid);
      throw e;
    }
  }

  private void apply(
      Record<String, Object> record, String uid, Object input, String topic, long eventTime) {
    TimelineState s = load(uid);
    boolean isNew = s == null;
    if (isNew) {
      s = TimelineReducer.empty(uid);
    }
    boolean sawPod = s.getSawPod();
    boolean wasGone = s.getGone();
    if (input instanceof GpuSample g && reducer.tooLate(s, g)) {
      metrics.lateRecords.labelValues("gpu-sample").inc();
      return;
    }
    Change change = reducer.applyAny(s, input);

    if (!sawPod && s.getSawPod()) {
      announce(s, record.timestamp());
      if (TimelineView.scheduledAt(s) == null && s.getCreatedAt() != null) {
        timers.put(
            timerKey(s.getCreatedAt() + settings.starvationPending().toMillis(), uid, STARVE), "");
      }
    } else if (isNew && !s.getSawPod()) {
      timers.put(timerKey(eventTime + orphanMs, uid, ORPHAN), "");
    }
    for (Outbound o : change.outbound()) {
      send(o, record.timestamp());
    }
    if (!wasGone && s.getGone()) {
      timers.put(timerKey(finalDue(s), uid, FINAL), "");
    }
    if (input instanceof RequestLog r) {
      countRequest(s, r);
    }
    observeDurations(s);
    tellWorkloadFacts(s, record.timestamp());
    if (change.meaningful()) {
      emit(s, false);
      dirty.remove(uid);
    } else if (change.counters()) {
      dirty.add(uid);
    }
    store(uid, s);
  }

  private TimelineState load(String uid) {
    TimelineState s = hot.get(uid);
    if (s == null) {
      s = timelines.get(uid);
      if (s != null) {
        hot.put(uid, s);
      }
    }
    return s;
  }

  private void store(String uid, TimelineState s) {
    timelines.put(uid, s);
    hot.put(uid, s);
  }

  private void remove(String uid) {
    timelines.delete(uid);
    hot.remove(uid);
  }

  private static long eventTime(Object input, long fallback) {
    if (input instanceof ClusterEvent e) {
      return EventTimes.of(e);
    } else if (input instanceof GpuSample g) {
      return g.getTime();
    } else if (input instanceof RequestLog r) {
      return r.getTime();
    } else if (input instanceof PodObservation p) {
      return p.getObservedAt();
    }
    return fallback;
  }

  /** Tells the name index that this UID holds namespace/name from its creation on. */
  private void announce(TimelineState s, long timestamp) {
    PodIdentity id =
        new PodIdentity(
            s.getUid(),
            s.getNamespace(),
            s.getName(),
            s.getCreatedAt() == null ? 0L : s.getCreatedAt());
    context.forward(
        new Record<>(s.getNamespace() + "/" + s.getName(), (Object) new RoutedInput(id), timestamp),
        TimelineTopology.TIMELINE_BY_NAME_SINK);
  }

  private void send(Outbound o, long timestamp) {
    if (o instanceof Outbound.ToPreemptor p) {
      var link = p.link();
      if (link.getPreemptorUid() != null) {
        context.forward(
            new Record<>(link.getPreemptorUid(), (Object) new RoutedInput(link), timestamp),
            TimelineTopology.TIMELINE_BY_UID_SINK);
      } else {
        context.forward(
            new Record<>(
                link.getPreemptorNamespace() + "/" + link.getPreemptorName(),
                (Object) new RoutedInput(link),
                timestamp),
            TimelineTopology.TIMELINE_BY_NAME_SINK);
      }
    } else if (o instanceof Outbound.ToVictim v) {
      context.forward(
          new Record<>(
              v.details().getVictimUid(), (Object) new RoutedInput(v.details()), timestamp),
          TimelineTopology.TIMELINE_BY_UID_SINK);
    }
  }

  private void emit(TimelineState s, boolean isFinal) {
    if (!s.getSawPod()) {
      return; // nothing to show for a UID only events named
    }
    long now =
        isFinal && TimelineView.terminatedAt(s) != null
            ? TimelineView.terminatedAt(s)
            : s.getUpdatedAt();
    PodTimeline t = view.view(s, now, isFinal);
    context.forward(
        new Record<>(s.getUid(), (Object) t, Math.max(s.getUpdatedAt(), 0)),
        TimelineTopology.POD_TIMELINES_SINK);
    tellWorkloadMember(s, t);
    if (isFinal) {
      finish(s, t);
      tellWorkload(s, "final", now);
    }
  }

  /** Tells the pod's workload its facts when they changed since last told. */
  private void tellWorkloadMember(TimelineState s, PodTimeline t) {
    WorkloadMember m = WorkloadService.memberOf(t, s);
    if (s.getMemberSent() != null && sameButCounters(m, s.getMemberSent())) {
      return;
    }
    s.setMemberSent(m);
    WorkloadEvent e = new WorkloadEvent(s.getUid(), "pod", s.getUpdatedAt(), m);
    forwardToWorkload(s, e, s.getUpdatedAt());
  }

  /**
   * Request counters move with every flush of a serving pod; the workload needs them only for its
   * totals, so they travel with the pod's next lifecycle change or its final facts, not each flush.
   */
  private static boolean sameButCounters(WorkloadMember a, WorkloadMember b) {
    return WorkloadMember.newBuilder(a)
        .setRequests(b.getRequests())
        .setErrors(b.getErrors())
        .setSloBreaches(b.getSloBreaches())
        .build()
        .equals(b);
  }

  private void forwardToWorkload(TimelineState s, WorkloadEvent e, long timestamp) {
    WorkloadRef w = Workloads.of(s.getOwnerKind(), s.getOwnerName(), s.getName(), s.getLabels());
    if (w == null || s.getNamespace() == null) {
      return;
    }
    String key = Workloads.key(s.getNamespace(), w, s.getOwnerUid());
    context.forward(
        new Record<>(key, (Object) new RoutedInput(e), Math.max(0, timestamp)),
        TimelineTopology.BY_WORKLOAD_SINK);
  }

  /** Tells the pod's workload each fact it counts, once. */
  private void tellWorkloadFacts(TimelineState s, long timestamp) {
    if (!s.getSawPod()) {
      return;
    }
    tellWorkload(s, "member", timestamp);
    if (TimelineView.outcome(s).equals(TimelineView.PREEMPTED)
        || s.getPreemptedEventAt() != null
        || s.getPreemptedConditionAt() != null) {
      tellWorkload(s, "preempted", timestamp);
    }
    if (TimelineView.SUCCEEDED.equals(s.getTerminalPhase())) {
      tellWorkload(s, "succeeded", timestamp);
    }
  }

  private void tellWorkload(TimelineState s, String fact, long timestamp) {
    if (s.getWorkloadFacts().contains(fact)) {
      return;
    }
    List<String> facts = new ArrayList<>(s.getWorkloadFacts());
    facts.add(fact);
    s.setWorkloadFacts(facts);
    forwardToWorkload(s, new WorkloadEvent(s.getUid(), fact, timestamp, null), timestamp);
  }

  private void flushDirty() {
    for (String uid : new ArrayList<>(dirty)) {
      TimelineState s = load(uid);
      if (s != null) {
        emit(s, false);
        store(uid, s); // emitting may have told the workload (memberSent)
      }
    }
    dirty.clear();
  }

  private long finalDue(TimelineState s) {
    Long end = TimelineView.terminatedAt(s);
    long base = end != null ? Math.max(end, s.getUpdatedAt()) : s.getUpdatedAt();
    return base + settings.grace().toMillis();
  }

  /** Timers on this task's stream time: starvation, orphans, forgetting finalized pods. */
  private void fireTimers(long streamTime) {
    for (String kind : new String[] {STARVE, ORPHAN, FORGET}) {
      for (String uid : due(kind, streamTime)) {
        switch (kind) {
          case STARVE -> starve(uid);
          case ORPHAN -> orphan(uid, streamTime);
          default -> finalized.delete(uid);
        }
      }
    }
  }

  /** Final timelines wait for every task's watermark (see {@link Watermarks}). */
  private void fireFinals(long safeTime) {
    if (safeTime == Long.MIN_VALUE) {
      return;
    }
    for (String uid : due(FINAL, safeTime)) {
      finalizeTimeline(uid, Math.max(0, context.currentStreamTimeMs()));
    }
  }

  /** Removes and returns the UIDs of the timers of a kind due at or before {@code time}. */
  private List<String> due(String kind, long time) {
    List<KeyValue<String, String>> due = new ArrayList<>();
    String to =
        kind + "|" + (time == Long.MAX_VALUE ? "~" : String.format("%019d~", Math.max(0, time)));
    try (KeyValueIterator<String, String> it = timers.range(kind + "|", to)) {
      it.forEachRemaining(due::add);
    }
    List<String> uids = new ArrayList<>();
    for (KeyValue<String, String> kv : due) {
      timers.delete(kv.key);
      uids.add(kv.key.substring(kv.key.lastIndexOf('|') + 1));
    }
    return uids;
  }

  private void finalizeTimeline(String uid, long streamTime) {
    TimelineState s = load(uid);
    if (s == null) {
      return;
    }
    emit(s, true);
    remove(uid);
    dirty.remove(uid);
    finalized.put(uid, streamTime);
    timers.put(timerKey(streamTime + orphanMs, uid, FORGET), "");
  }

  private void starve(String uid) {
    TimelineState s = load(uid);
    if (s != null
        && !s.getGone()
        && TimelineView.scheduledAt(s) == null
        && !s.getStarvingFlagged()) {
      s.setStarvingFlagged(true);
      emit(s, false);
      store(uid, s);
    }
  }

  private void orphan(String uid, long streamTime) {
    TimelineState s = load(uid);
    if (s == null || s.getSawPod()) {
      return;
    }
    remove(uid);
    dirty.remove(uid);
    DeadLetter d =
        DeadLetters.build(
            "schedlens-streams:timeline",
            null,
            null,
            uid.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            null,
            DeadLetters.UNKNOWN_POD,
            "inputs (events, samples or links) for pod UID "
                + uid
                + " arrived, but the pod itself was never observed within "
                + Duration.ofMillis(orphanMs)
                + " (outside the collector's namespaces or label selector?)",
            s.getUpdatedAt(),
            streamTime);
    metrics.deadLetters.labelValues(DeadLetters.UNKNOWN_POD).inc();
    context.forward(
        new Record<>(d.getSource(), (Object) d, streamTime), TimelineTopology.TIMELINE_DLQ_SINK);
  }

  private void late(String uid, Object input, long eventTime) {
    metrics.lateRecords.labelValues("after-final").inc();
    if (input instanceof GpuSample || input instanceof RequestLog) {
      return; // counted: a sample or request at the very end of a pod's life; not worth a letter
    }
    if (input instanceof io.schedlens.avro.internal.WorkloadStatus) {
      // counted: the workload stage's news about sibling pods (e.g. a later preemption of the same
      // Job) does not belong to a pod already finished; it is no input that was lost
      return;
    }
    DeadLetter d =
        DeadLetters.of(
            context.recordMetadata(),
            DeadLetters.LATE_AFTER_FINAL,
            input.getClass().getSimpleName()
                + " for pod "
                + uid
                + " arrived after its final timeline was emitted",
            null,
            eventTime,
            context.currentStreamTimeMs());
    metrics.deadLetters.labelValues(DeadLetters.LATE_AFTER_FINAL).inc();
    context.forward(
        new Record<>(d.getSource(), (Object) d, context.currentStreamTimeMs()),
        TimelineTopology.TIMELINE_DLQ_SINK);
  }

  /** The final timeline is out: the preemption record, and the metrics counted once per pod. */
  private void finish(TimelineState s, PodTimeline t) {
    String[] labels = labels(s);
    if (t.getPreemptedAt() != null && !s.getPreemptionEmitted()) {
      s.setPreemptionEmitted(true);
      context.forward(
          new Record<>(s.getUid(), (Object) TimelineView.preemption(s, t), t.getPreemptedAt()),
          TimelineTopology.PREEMPTIONS_SINK);
    }
    if (t.getPreemptedAt() != null && !s.getObserved().contains("preemption")) {
      countPreemption(s);
    }
    if (t.getNeverScheduled() && t.getPendingMs() != null) {
      metrics.pendingDuration.labelValues(labels).observe(t.getPendingMs() / 1000.0);
    }
    metrics
        .podsFinished
        .labelValues(labels[0], labels[1], labels[2], labels[3], labels[4], t.getOutcome())
        .inc();
    if (t.getAllocatedGpuSeconds() != null) {
      metrics.allocatedGpuSeconds.labelValues(labels).inc(t.getAllocatedGpuSeconds());
      metrics.busyGpuSeconds.labelValues(labels).inc(t.getBusyGpuSeconds());
      metrics.idleGpuSeconds.labelValues(labels).inc(t.getIdleAllocatedGpuSeconds());
    }
    if (t.getWastedGpuSeconds() != null && t.getDisruption() != null) {
      metrics
          .wastedGpuSeconds
          .labelValues(
              labels[0], labels[1], labels[2], labels[3], labels[4], t.getDisruption().getCause())
          .inc(t.getWastedGpuSeconds());
    }
  }

  /** Each duration is observed once per pod, when it becomes known. */
  private void observeDurations(TimelineState s) {
    if (!s.getSawPod()) {
      return;
    }
    Long created = s.getCreatedAt();
    Long scheduled = TimelineView.scheduledAt(s);
    Long running = s.getRunningAt();
    Long ready = s.getReadyAt();
    observe(s, "pending", created, scheduled, metrics.pendingDuration);
    observe(s, "startup", scheduled, running, metrics.startupDuration);
    observe(s, "modelLoad", running, ready, metrics.modelLoadDuration);
    observe(s, "ready", created, ready, metrics.timeToReady);
    Long firstOk = null;
    if (ready != null) {
      firstOk = s.getOkTimes().stream().filter(x -> x >= ready).findFirst().orElse(null);
    }
    observe(s, "firstOk", created, firstOk, metrics.timeToFirstOk);
    boolean preemptorKnown =
        s.getPreemptor() != null && s.getPreemptor().getPriorityClass() != null;
    if (s.getPreemptedEventAt() != null || s.getPreemptedConditionAt() != null) {
      if (preemptorKnown && !s.getObserved().contains("preemption")) {
        countPreemption(s);
      }
    }
  }

  private void observe(
      TimelineState s,
      String name,
      Long from,
      Long to,
      io.prometheus.metrics.core.metrics.Histogram h) {
    if (from == null || to == null || s.getObserved().contains(name)) {
      return;
    }
    List<String> observed = new ArrayList<>(s.getObserved());
    observed.add(name);
    s.setObserved(observed);
    h.labelValues(labels(s)).observe(Math.max(0, to - from) / 1000.0);
  }

  private void countPreemption(TimelineState s) {
    List<String> observed = new ArrayList<>(s.getObserved());
    observed.add("preemption");
    s.setObserved(observed);
    String preemptorClass =
        s.getPreemptor() == null || s.getPreemptor().getPriorityClass() == null
            ? ""
            : s.getPreemptor().getPriorityClass();
    String[] labels = labels(s);
    metrics
        .preemptions
        .labelValues(labels[0], labels[1], preemptorClass, labels[3], labels[4])
        .inc();
  }

  private void countRequest(TimelineState s, RequestLog r) {
    String[] labels = labels(s);
    metrics.requests.labelValues(labels).inc();
    if (TimelineReducer.isError(r)) {
      metrics.requestErrors.labelValues(labels).inc();
      forwardToWorkload(s, new WorkloadEvent(s.getUid(), "error", r.getTime(), null), r.getTime());
    }
    Double slo = reducer.slo(s, r);
    if (slo != null && r.getLatencyMs() != null && r.getLatencyMs() > slo) {
      metrics.sloBreaches.labelValues(labels).inc();
      forwardToWorkload(
          s, new WorkloadEvent(s.getUid(), "slo-breach", r.getTime(), null), r.getTime());
    }
  }

  private String[] labels(TimelineState s) {
    WorkloadRef w = Workloads.of(s.getOwnerKind(), s.getOwnerName(), s.getName(), s.getLabels());
    return new String[] {
      orEmpty(s.getNamespace()),
      orEmpty(s.getPriorityClass()),
      w == null ? "" : w.getKind(),
      orEmpty(s.getLabels().get(settings.armKey())),
      orEmpty(s.getLabels().get(settings.repeatKey()))
    };
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  static String timerKey(long due, String uid, String kind) {
    return kind + "|" + String.format("%019d", Math.max(0, due)) + "|" + uid;
  }
}
