package io.schedlens.topology;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.Change;
import io.schedlens.timeline.FactsToTell;
import io.schedlens.timeline.Incarnations;
import io.schedlens.timeline.InputSeconds;
import io.schedlens.timeline.PodEffect;
import io.schedlens.timeline.PodLife;
import io.schedlens.timeline.PodTimer;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.timeline.TimelineView;
import io.schedlens.topology.metrics.PodMetrics;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The pod stage, one task per partition of the four inputs about pods, which are all partitioned by
 * the pod's {@code namespace/name}: so a task holds every incarnation of the names it owns, with
 * everything that names them, and tells which incarnation a GPU sample or request belongs to by
 * itself.
 *
 * <p>Observations and events are folded into their incarnation's state at once ({@link
 * TimelineReducer}): a change of the story is published at once, of counters at the next flush. GPU
 * samples and requests wait per second ({@link WaitingSeconds}) until the second is complete
 * ({@link EventTime}): then the incarnation that held the name is known ({@link Incarnations}). A
 * pod's final timeline goes out when every stage has answered past its end plus the grace period;
 * then its state is freed. Every decision rests on event time (docs/developers/event-time.md),
 * never on a clock; wall-clock schedules only publish (counters every {@code emitInterval},
 * watermarks every {@link TopologySettings#WATERMARK_INTERVAL}).
 */
final class PodStage
    implements Processor<String, PodInput, String, SpecificRecord>,
        PodInput.Reader,
        EventTime.Listener {

  private static final String PODS = SourceMarks.PODS;
  private static final String EVENTS = SourceMarks.EVENTS;
  private static final String GPU = SourceMarks.GPU;
  private static final String REQUESTS = SourceMarks.REQUESTS;

  private final TimelineSettings settings;
  private final TimelineReducer reducer;
  private final PodLife life;
  private final TimelineView view;
  private final StreamsMetrics metrics;
  private final PodMetrics podMetrics;
  private final Duration emitInterval;
  private final long graceMs;
  private final Duration orphanTimeout;
  private final long orphanMs;
  private final int partitions;
  private final int hot;
  private final Duration dedup;

  /** Timelines whose counters changed since they were last published: out at the next flush. */
  private final Set<String> dirty = new LinkedHashSet<>();

  /** The request errors and breaches of the seconds being settled, told per workload and second. */
  private final FactsToTell.RequestCounts requestCounts = new FactsToTell.RequestCounts();

  private ProcessorContext<String, SpecificRecord> context;

  /** The record being read, and where it was read. */
  private Record<String, PodInput> record;

  private RecordMetadata meta;
  private PodStageOutputs out;
  private HotStore<PodsOfName> names;
  private WaitingSeconds waiting;
  private PodEventTime eventTime;
  private PodTimers timers;

  PodStage(TopologySettings s, StreamsMetrics metrics) {
    this.settings = s.timeline();
    this.reducer = new TimelineReducer(settings);
    this.life = new PodLife(reducer, s.orphanTimeout().toMillis());
    this.view = new TimelineView(settings);
    this.metrics = metrics;
    this.podMetrics = new PodMetrics(metrics, settings);
    this.emitInterval = s.emitInterval();
    this.graceMs = settings.grace().toMillis();
    this.orphanTimeout = s.orphanTimeout();
    this.orphanMs = orphanTimeout.toMillis();
    this.partitions = s.partitions();
    this.hot = s.hotObjects();
    this.dedup = s.dedupWindow();
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.out = new PodStageOutputs(context, metrics);
    KeyValueStore<String, PodsOfName> byName =
        context.getStateStore(TopologyNames.PODS_BY_NAME_STORE);
    PodSeriesStore series =
        new PodSeriesStore(context.getStateStore(TopologyNames.POD_SERIES_STORE), graceMs);
    series.layOut(byName);
    this.names = new HotStore<>(byName, hot);
    this.waiting =
        new WaitingSeconds(
            context.getStateStore(TopologyNames.INPUT_SECONDS_STORE),
            new RequestIdWindows(
                context.getStateStore(TopologyNames.REQUEST_ID_WINDOWS_STORE),
                dedup,
                context.getStateStore(TopologyNames.LEGACY_REQUEST_IDS_STORE)));
    this.eventTime =
        new PodEventTime(
            context.getStateStore(TopologyNames.POD_PROGRESS_STORE),
            context.getStateStore(TopologyNames.POD_TIMERS_STORE),
            partitions,
            graceMs);
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL,
        PunctuationType.WALL_CLOCK_TIME,
        wall -> // this task's watermark: when it moved, and now and then anyway
        eventTime.toBroadcast(wall, context.taskId().partition()).ifPresent(out::watermark));
    this.timers =
        new PodTimers(
            names, series, out, eventTime, podMetrics, dirty, this::emit, graceMs, orphanTimeout);
    context.schedule(emitInterval, PunctuationType.WALL_CLOCK_TIME, t -> flushDirty());
  }

  @Override
  public void process(Record<String, PodInput> record) {
    this.record = record;
    this.meta = context.recordMetadata().orElse(null);
    record.value().to(this);
  }

  // ------------------------------------------------------------------ what is read

  @Override
  public void mark(String source, long time) {
    eventTime.mark(source, time, this);
  }

  @Override
  public void tombstone(String source) {
    deadLetter(
        meta,
        DeadLetters.TOMBSTONE,
        "a record without a value (a tombstone) on an input topic: inputs are facts, never"
            + " deletions; the producer must send a value",
        null,
        record.key(),
        (long) record.timestamp());
  }

  /** Counts an input record; false (and a dead letter) when it has no key. */
  private boolean keyed(SpecificRecord value) {
    metrics.recordIn(meta.topic());
    if (record.key() != null) {
      return true;
    }
    deadLetter(
        meta,
        DeadLetters.NULL_KEY,
        value.getClass().getSimpleName()
            + " without a key: the producer must key pods and events by UID, samples and"
            + " requests by namespace/pod",
        value,
        null,
        (long) record.timestamp());
    return false;
  }

  // ------------------------------------------------------------------ progress

  /**
   * Settles the waiting seconds that are complete: their GPU samples and requests are all in and
   * the pods stream passed them, one state write for all their inputs.
   */
  @Override
  public void complete(long upTo) {
    for (WaitingSeconds.Waiting w : waiting.upTo(upTo)) {
      if (w.waits() && settle(w.inputs, eventTime.progress(PODS))) {
        waiting.done(w);
      }
    }
    tellRequestCounts();
  }

  /** Tells the workloads the request errors and breaches of the seconds just settled. */
  private void tellRequestCounts() {
    requestCounts.drain().forEach(out::tell);
  }

  @Override
  public void due(PodTimer timer, TimerTarget target) {
    timers.due(timer, target, eventTime.progress(PODS));
  }

  // ------------------------------------------------------------------ pods and events

  @Override
  public void observation(PodObservation o) {
    if (!keyed(o)) {
      return;
    }
    PodName name = PodName.of(o);
    if (!onItsPartition(name, meta, o)) {
      return;
    }
    String key = name.key();
    PodsOfName pods = orNone(names.get(key));
    try {
      PodLife.Step step = life.observe(pods, o, eventTime.progress(PODS));
      if (step.isLate()) {
        metrics.lateRecords.labelValues(step.late()).inc();
        return;
      }
      carryOut(key, step.effects());
      names.put(key, pods);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  @Override
  public void event(ClusterEvent e) {
    if (!keyed(e)) {
      return;
    }
    PodName name = PodName.regardedBy(e);
    String uid = e.getRegarding() == null ? null : e.getRegarding().getUid();
    if (name == null || uid == null) {
      deadLetter(
          meta,
          DeadLetters.UNKNOWN_POD,
          "event " + e.getReason() + " regards no pod by namespace, name and UID",
          e,
          null,
          EventTimes.of(e));
      return;
    }
    if (!onItsPartition(name, meta, e)) {
      return;
    }
    String key = name.key();
    PodsOfName pods = orNone(names.get(key));
    try {
      PodLife.Step step = life.event(pods, uid, e, eventTime.progress(EVENTS));
      if (step.isLate()) {
        deadLetter(
            meta,
            DeadLetters.LATE_AFTER_FINAL,
            "event " + e.getReason() + " for pod " + uid + " came after its final timeline",
            e,
            uid,
            EventTimes.of(e));
        return;
      }
      carryOut(key, step.effects());
      names.put(key, pods);
    } catch (RuntimeException ex) {
      names.evict(key);
      throw ex;
    }
  }

  /** Carries out what followed from an input to the pods of {@code key}, in order. */
  private void carryOut(String key, List<PodEffect> effects) {
    PodEffectCarrier carrier =
        new PodEffectCarrier(key, out, eventTime, podMetrics, dirty, s -> emit(s, false));
    for (PodEffect effect : effects) {
      effect.to(carrier);
    }
  }

  /** A record on another partition than its pod's name: its producer did not partition by name. */
  private boolean onItsPartition(PodName name, RecordMetadata meta, SpecificRecord value) {
    if (name.partition(partitions) == meta.partition()) {
      return true;
    }
    out.deadLetter(
        PodDeadLetters.wrongPartition(meta, value, name, partitions, context.currentSystemTimeMs()),
        context.currentStreamTimeMs(),
        1);
    return false;
  }

  // ------------------------------------------------------------------ samples and requests

  @Override
  public void sample(GpuSample g) {
    if (!keyed(g)) {
      return;
    }
    if (g.getPod() == null || g.getNamespace() == null) {
      metrics.lateRecords.labelValues("gpu-unattributed").inc();
      return; // a GPU allocated to no pod: not a pod fact
    }
    onNamed(new PodName(g.getNamespace(), g.getPod()), g.getTime(), g, GPU);
  }

  @Override
  public void request(RequestLog r) {
    if (keyed(r)) {
      onNamed(new PodName(r.getNamespace(), r.getPod()), r.getTime(), r, REQUESTS);
    }
  }

  private void onNamed(PodName name, long time, SpecificRecord input, String source) {
    if (!onItsPartition(name, meta, input)) {
      return;
    }
    metrics.observeEventToMetricLag(
        meta.topic(), Math.max(0, context.currentSystemTimeMs() - time) / 1000.0);
    if (eventTime.late(source, time)) {
      // Its own partition had passed its time by more than the grace period: late, in every run.
      metrics.lateRecords.labelValues(source.equals(GPU) ? "gpu-sample" : "request").inc();
      return;
    }
    long second = InputSeconds.secondOf(time);
    boolean complete = eventTime.complete(second);
    WaitingSeconds.Waiting w = waiting.open(second, name, complete);
    InputSecond b = w.inputs;
    String refused =
        input instanceof RequestLog r
            ? InputSeconds.addRequest(b, r, settings.serviceSlo(r.getService()))
            : InputSeconds.addGpu(b, (GpuSample) input);
    if (refused != null) {
      metrics.lateRecords.labelValues(refused).inc();
      return;
    }
    waiting.noteInput(w, meta.topic(), meta.partition(), meta.offset());
    if (complete && settle(b, eventTime.progress(PODS))) {
      waiting.done(w);
      tellRequestCounts();
    } else {
      waiting.keep(w);
    }
  }

  /**
   * Gives a second's inputs to the incarnation that held the name, when the pods stream has passed
   * far enough to say; true when the second was settled (its ids then kept for de-duplication).
   */
  private boolean settle(InputSecond b, long podsProgress) {
    PodsOfName pods = names.get(b.getName());
    Incarnations.Answer a =
        Incarnations.at(pods, b.getSecond(), podsProgress, PodLife.CREATION_TOLERANCE_MS, graceMs);
    if (a instanceof Incarnations.Wait) {
      return false;
    }
    long n = InputSeconds.pendingInputs(b);
    InputSecond taken = InputSeconds.take(b);
    waiting.rememberIds(b);
    if (a instanceof Incarnations.Live live) {
      TimelineState s = live.pod();
      if (s.getLifecycle().getGone()
          && s.getLifecycle().getDeletedObservedAt() != null
          && b.getSecond() > s.getLifecycle().getDeletedObservedAt()) {
        metrics.lateRecords.labelValues("after-pod-removed").inc(n);
        return true;
      }
      apply(b.getName(), pods, s, taken);
    } else if (a instanceof Incarnations.Retired) {
      metrics.lateRecords.labelValues("after-final").inc(n);
    } else {
      out.deadLetter(
          PodDeadLetters.unknownPod(taken, n, context.currentStreamTimeMs()), taken.getSecond(), n);
    }
    return true;
  }

  private void apply(String key, PodsOfName pods, TimelineState s, InputSecond in) {
    try {
      long breaches = reducer.breaches(s, in);
      reducer.apply(s, in);
      if (in.getRequests() > 0) {
        podMetrics.countRequests(s, in.getRequests(), in.getErrors(), breaches);
        requestCounts.add(s, in.getSecond(), in.getErrors(), breaches);
      }
      podMetrics.observeDurations(s);
      dirty.add(new TimerTarget(key, s.getUid()).id());
      names.put(key, pods);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  // ------------------------------------------------------------------ messages from other stages

  @Override
  public void heard(Watermark w) {
    eventTime.heard(w, this);
  }

  @Override
  public void link(String uid, VictimLink l) {
    String key = record.key();
    if (key == null) {
      return;
    }
    PodsOfName pods = names.get(key);
    try {
      onLink(key, orNone(pods), uid, l);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  @Override
  public void details(String uid, PreemptorDetails d) {
    told(uid, s -> reducer.apply(s, d));
  }

  @Override
  public void status(String uid, WorkloadStatus w) {
    told(uid, s -> reducer.apply(s, w));
  }

  /** Another stage told a pod of this name something about it. */
  private void told(String uid, Function<TimelineState, Change> apply) {
    String key = record.key();
    if (key == null) {
      return;
    }
    PodsOfName pods = names.get(key);
    try {
      TimelineState s = pods == null || uid == null ? null : Incarnations.live(pods, uid);
      if (s == null) {
        metrics.lateRecords.labelValues("message-after-final").inc();
        return;
      }
      if (apply.apply(s).meaningful()) {
        podMetrics.observeDurations(s);
        emit(s, false);
      }
      names.put(key, pods);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  /**
   * A victim names a pod of this name as its preemptor: by UID, or (a nominated pod's name only)
   * the incarnation that held the name then; a link for an incarnation not yet observed waits.
   */
  private void onLink(String key, PodsOfName pods, String messageUid, VictimLink l) {
    String uid = l.getPreemptorUid() != null ? l.getPreemptorUid() : messageUid;
    if (uid != null && Incarnations.retired(pods, uid) != null) {
      metrics.lateRecords.labelValues("message-after-final").inc();
      return;
    }
    TimelineState s =
        uid == null
            ? Incarnations.holderAt(pods, l.getAt(), PodLife.CREATION_TOLERANCE_MS)
            : Incarnations.live(pods, uid);
    if (s == null && uid != null) {
      s = TimelineReducer.empty(uid);
      s.getBookkeeping().setFirstInputAt(l.getAt());
      pods.getPods().add(s);
      eventTime.callAt(PodTimer.ORPHAN, l.getAt() + orphanMs, new TimerTarget(key, uid));
    }
    if (s == null) {
      List<VictimLink> waitingLinks = new ArrayList<>(pods.getWaitingLinks());
      waitingLinks.add(l);
      pods.setWaitingLinks(waitingLinks);
    } else {
      carryOut(key, life.link(s, l));
    }
    names.put(key, pods);
  }

  // ------------------------------------------------------------------ publishing

  private void flushDirty() {
    for (String d : new ArrayList<>(dirty)) {
      TimerTarget id = TimerTarget.parse(d);
      PodsOfName pods = names.get(id.key());
      TimelineState s = pods == null ? null : Incarnations.live(pods, id.uid());
      if (s != null) {
        emit(s, false);
        names.put(id.key(), pods); // emitting may have told the workload (memberSent)
      }
    }
    dirty.clear();
  }

  /** Publishes the pod's timeline; returns it, or null for a UID no observation showed yet. */
  private PodTimeline emit(TimelineState s, boolean isFinal) {
    if (!s.getSawPod()) {
      return null;
    }
    long now =
        isFinal && TimelineView.terminatedAt(s) != null
            ? TimelineView.terminatedAt(s)
            : s.getUpdatedAt();
    PodTimeline t = view.view(s, now, isFinal);
    out.timeline(s.getUid(), t, s.getUpdatedAt(), isFinal);
    FactsToTell.member(s, t).ifPresent(out::tell);
    return t;
  }

  // ------------------------------------------------------------------ helpers

  /** A dead letter for the input record being read. */
  private void deadLetter(
      RecordMetadata meta,
      String reason,
      String detail,
      SpecificRecord value,
      String key,
      Long time) {
    out.deadLetter(
        PodDeadLetters.input(meta, reason, detail, value, key, time, context.currentSystemTimeMs()),
        context.currentStreamTimeMs(),
        1);
  }

  private static PodsOfName orNone(PodsOfName pods) {
    return pods != null ? pods : Incarnations.none();
  }
}
