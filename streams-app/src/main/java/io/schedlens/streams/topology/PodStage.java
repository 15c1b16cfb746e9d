package io.schedlens.streams.topology;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.ProgressMark;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.RetiredPod;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.PodName;
import io.schedlens.schemas.Topics;
import io.schedlens.streams.metrics.PodMetrics;
import io.schedlens.streams.metrics.StreamsMetrics;
import io.schedlens.streams.timeline.Change;
import io.schedlens.streams.timeline.FactsToTell;
import io.schedlens.streams.timeline.Incarnations;
import io.schedlens.streams.timeline.InputSeconds;
import io.schedlens.streams.timeline.Outbound;
import io.schedlens.streams.timeline.TimelineReducer;
import io.schedlens.streams.timeline.TimelineSettings;
import io.schedlens.streams.timeline.TimelineView;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The pod stage, one task per partition of the four inputs about pods, which are all partitioned by
 * the pod's {@code namespace/name}: so a task holds every incarnation of the names it owns, with
 * everything that names them, and tells which incarnation a GPU sample or request belongs to by
 * itself.
 *
 * <p>What it decides, and on what:
 *
 * <ul>
 *   <li>Observations and events are folded into their incarnation's state at once ({@link
 *       TimelineReducer}); a change of the story is published at once, a change of counters at the
 *       next flush.
 *   <li>GPU samples and requests wait, gathered per second ({@link InputSeconds}), until the pods
 *       stream's progress mark has passed their second: then the incarnation that held the name is
 *       known ({@link Incarnations}). One whose name no pod held by the grace period after it goes
 *       to the dead-letter topic as {@code unknown-pod}. A sample or request that arrives after its
 *       own partition's mark passed its time plus the grace period is late and not counted; a
 *       request line seen twice counts once.
 *   <li>A pod's final timeline goes out once every task of every stage has answered past its end
 *       plus the grace period ({@link Watermarks}); then its state is freed.
 * </ul>
 *
 * Every decision rests on event time and progress marks, never on a clock or on how fast something
 * arrived, so the same inputs give the same timelines. Wall-clock schedules only publish: counter
 * updates every {@code emitInterval}, watermarks every {@link TopologySettings#WATERMARK_INTERVAL}.
 */
final class PodStage implements Processor<String, Object, String, Object> {

  /** Headers of the outputs (see OutputHeaders): the schema, and which records are final. */
  private static final OutputHeaders TIMELINE_HEADERS =
      OutputHeaders.of(PodTimeline.getClassSchema());

  private static final OutputHeaders PREEMPTION_HEADERS =
      OutputHeaders.of(Preemption.getClassSchema());

  /** Creation timestamps are whole seconds, and clocks differ a little. */
  static final long CREATION_TOLERANCE_MS = 5_000;

  static final String PODS = "pods";
  static final String EVENTS = "events";
  static final String GPU = "gpu-samples";
  static final String REQUESTS = "requests";
  static final List<String> SOURCES = List.of(PODS, EVENTS, GPU, REQUESTS);

  private static final long REBROADCAST_MS = 2_000;

  private final TimelineSettings settings;
  private final TimelineReducer reducer;
  private final TimelineView view;
  private final StreamsMetrics metrics;
  private final PodMetrics podMetrics;
  private final Duration emitInterval;
  private final long graceMs;
  private final long orphanMs;
  private final long dedupMs;
  private final int partitions;
  private final int hot;
  private final Map<String, String> sourceOfTopic = new HashMap<>();
  private final Watermarks heard;
  private final Map<String, Long> marks = new HashMap<>();
  private final Set<String> dirty = new LinkedHashSet<>();

  private ProcessorContext<String, Object> context;
  private HotStore<PodsOfName> names;
  private HotStore<InputSecond> pending;

  /**
   * Request ids of settled seconds: written once per pod and second, read only for a line that
   * comes after its second settled, so not kept decoded (kept, they filled the heap: live heap
   * after a 5-minute StreamsLoad latency run 67 to 107 MiB with them, 44 to 68 MiB without).
   */
  private KeyValueStore<String, InputSecond> seen;

  private TimerIndex timers;
  private KeyValueStore<String, Long> progress;
  private long external = Long.MIN_VALUE;
  private long answered = Long.MIN_VALUE;
  private long lastExpiry = Long.MIN_VALUE;

  /**
   * The keys of {@code input-seconds}, in time order: seconds come due as the pods stream passes
   * them, and most keys are new, so looking them up in RocksDB (or scanning it over the tombstones
   * of settled seconds) would cost more than keeping the few waiting keys here. Read from the store
   * at start.
   */
  private final TreeSet<String> pendingKeys = new TreeSet<>();

  private String seenFloor = "";
  private long sentTime = Long.MIN_VALUE;
  private long sentAnswered = Long.MIN_VALUE;
  private long sentAtWall;

  PodStage(Topics topics, TopologySettings s, StreamsMetrics metrics) {
    this.settings = s.timeline();
    this.reducer = new TimelineReducer(settings);
    this.view = new TimelineView(settings);
    this.metrics = metrics;
    this.podMetrics = new PodMetrics(metrics, settings);
    this.emitInterval = s.emitInterval();
    this.graceMs = settings.grace().toMillis();
    this.orphanMs = s.orphanTimeout().toMillis();
    this.dedupMs = s.dedupWindow().toMillis();
    this.partitions = s.partitions();
    this.hot = s.hotObjects();
    this.heard = new Watermarks(partitions);
    sourceOfTopic.put(topics.pods.name(), PODS);
    sourceOfTopic.put(topics.events.name(), EVENTS);
    sourceOfTopic.put(topics.gpuSamples.name(), GPU);
    sourceOfTopic.put(topics.requests.name(), REQUESTS);
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.names = new HotStore<>(context.getStateStore(TimelineTopology.PODS_BY_NAME_STORE), hot);
    this.pending = new HotStore<>(context.getStateStore(TimelineTopology.INPUT_SECONDS_STORE), hot);
    this.seen = context.getStateStore(TimelineTopology.REQUEST_IDS_STORE);
    this.timers = new TimerIndex(context.getStateStore(TimelineTopology.POD_TIMERS_STORE));
    this.progress = context.getStateStore(TimelineTopology.POD_PROGRESS_STORE);
    // The marks decide what is late: they must survive a restart, or a record after a mark that
    // was read before the restart would be judged against none.
    for (String source : SOURCES) {
      Long m = progress.get(source);
      if (m != null) {
        marks.put(source, m);
      }
    }
    external = Watermarks.external(marks, SOURCES);
    try (KeyValueIterator<String, InputSecond> it = pending.store().all()) {
      it.forEachRemaining(kv -> pendingKeys.add(kv.key));
    }
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::broadcast);
    context.schedule(emitInterval, PunctuationType.WALL_CLOCK_TIME, t -> flushDirty());
  }

  @Override
  public void process(Record<String, Object> record) {
    RecordMetadata meta = context.recordMetadata().orElse(null);
    String source = meta == null ? null : sourceOfTopic.get(meta.topic());
    if (source == null) {
      if (record.value() instanceof StageMessage m) {
        onMessage(record.key(), m);
      }
      return;
    }
    Object value = record.value();
    if (value == null) {
      deadLetter(
          meta,
          DeadLetters.TOMBSTONE,
          "a record without a value (a tombstone) on an input topic: inputs are facts, never"
              + " deletions; the producer must send a value",
          null,
          record.key(),
          (long) record.timestamp());
      return;
    }
    if (value instanceof ProgressMark m) {
      onMark(source, m.getTime());
      return;
    }
    metrics.recordsIn.labelValues(meta.topic()).inc();
    if (record.key() == null) {
      deadLetter(
          meta,
          DeadLetters.NULL_KEY,
          value.getClass().getSimpleName()
              + " without a key: the producer must key pods and events by UID, samples and"
              + " requests by namespace/pod",
          value,
          null,
          (long) record.timestamp());
      return;
    }
    if (value instanceof PodObservation o && PODS.equals(source)) {
      onPod(o, meta);
    } else if (value instanceof ClusterEvent e && EVENTS.equals(source)) {
      onEvent(e, meta);
    } else if (value instanceof GpuSample g && GPU.equals(source)) {
      onSample(g, meta);
    } else if (value instanceof RequestLog r && REQUESTS.equals(source)) {
      onRequest(r, meta);
    } else {
      deadLetter(
          meta,
          DeadLetters.UNKNOWN_TYPE,
          "a " + value.getClass().getSimpleName() + " is not an input of " + meta.topic(),
          value,
          record.key(),
          (long) record.timestamp());
    }
  }

  // ------------------------------------------------------------------ progress

  private void onMark(String source, long time) {
    Long old = marks.get(source);
    if (old != null && time <= old) {
      return; // marks only move forward; an older one says nothing new
    }
    marks.put(source, time);
    progress.put(source, time);
    if (!EVENTS.equals(source)) {
      settleDue();
    }
    if (PODS.equals(source)) {
      podsAdvanced(time);
    }
    if (REQUESTS.equals(source)) {
      forgetRequestIds(time);
    }
    long e = Watermarks.external(marks, SOURCES);
    if (e > external) {
      external = e;
      for (String id : timers.due(TimerIndex.ASK, e)) {
        ask(id);
      }
    }
  }

  private long mark(String source) {
    Long m = marks.get(source);
    return m == null ? Long.MIN_VALUE : m;
  }

  /**
   * Whether a second's GPU samples and requests are all in (their streams passed its end) and the
   * pods stream passed it: then it is settled at once, one state write for all its inputs. A record
   * of a second already complete (a late one, or a backlog read ahead of its marks) is settled on
   * its own.
   */
  private boolean complete(long second) {
    return second <= completeUpTo();
  }

  /** The latest second that is complete, or Long.MIN_VALUE while a stream has no mark yet. */
  private long completeUpTo() {
    long inputs = Math.min(mark(GPU), mark(REQUESTS));
    if (inputs == Long.MIN_VALUE || mark(PODS) == Long.MIN_VALUE) {
      return Long.MIN_VALUE;
    }
    return Math.min(mark(PODS), inputs - 999);
  }

  /** Settles the waiting seconds that are complete (see {@link #complete}). */
  private void settleDue() {
    long bound = completeUpTo();
    if (bound == Long.MIN_VALUE) {
      return;
    }
    for (String key :
        new ArrayList<>(pendingKeys.headSet(TimerIndex.pad(bound) + "|\uffff", true))) {
      InputSecond b = pending.get(key);
      if (b == null || settle(key, b, mark(PODS))) {
        pending.delete(key);
        pendingKeys.remove(key);
      }
    }
  }

  /** The pods stream passed {@code p}: fire its timers. */
  private void podsAdvanced(long p) {
    for (String id : timers.due(TimerIndex.STARVE, p)) {
      starve(id);
    }
    for (String id : timers.due(TimerIndex.ORPHAN, p)) {
      orphan(id, p);
    }
    for (String id : timers.due(TimerIndex.FORGET, p)) {
      forget(id);
    }
  }

  /** Request ids older than the de-duplication window are forgotten (once a second at most). */
  private void forgetRequestIds(long requestsMark) {
    long before = requestsMark - dedupMs;
    if (before < lastExpiry + 1000) {
      return;
    }
    lastExpiry = before;
    List<String> old = new ArrayList<>();
    String to = TimerIndex.pad(before) + "|";
    try (KeyValueIterator<String, InputSecond> it = seen.range(seenFloor, to)) {
      it.forEachRemaining(kv -> old.add(kv.key));
    }
    old.forEach(k -> HotStore.remove(seen, k));
    seenFloor = to;
  }

  // ------------------------------------------------------------------ pods and events

  private void onPod(PodObservation o, RecordMetadata meta) {
    PodName name = PodName.of(o);
    if (!onItsPartition(name, meta, o)) {
      return;
    }
    String key = name.key();
    PodsOfName pods = orNew(names.get(key));
    if (retired(pods, o.getUid()) != null) {
      metrics.lateRecords.labelValues("pod-after-final").inc();
      return;
    }
    TimelineState s = find(pods, o.getUid());
    if (s != null && afterDue(s, mark(PODS))) {
      metrics.lateRecords.labelValues("pod-after-final").inc();
      return;
    }
    if (s == null) {
      s = TimelineReducer.empty(o.getUid());
      pods.getPods().add(s);
    }
    boolean sawPod = s.getSawPod();
    boolean wasGone = s.getGone();
    try {
      Change change = reducer.apply(s, o);
      if (!sawPod && s.getSawPod()) {
        firstSeen(key, pods, s);
      }
      afterChange(key, pods, s, change, wasGone, o.getObservedAt());
      names.put(key, pods);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  private void onEvent(ClusterEvent e, RecordMetadata meta) {
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
    PodsOfName pods = orNew(names.get(key));
    TimelineState s = find(pods, uid);
    if (retired(pods, uid) != null || (s != null && afterDue(s, mark(EVENTS)))) {
      deadLetter(
          meta,
          DeadLetters.LATE_AFTER_FINAL,
          "event " + e.getReason() + " for pod " + uid + " came after its final timeline",
          e,
          uid,
          EventTimes.of(e));
      return;
    }
    if (s == null) {
      s = TimelineReducer.empty(uid);
      s.setFirstInputAt(EventTimes.of(e));
      pods.getPods().add(s);
      timers.add(TimerIndex.ORPHAN, EventTimes.of(e) + orphanMs, key + "|" + uid);
    }
    boolean wasGone = s.getGone();
    try {
      Change change = reducer.apply(s, e);
      afterChange(key, pods, s, change, wasGone, EventTimes.of(e));
      names.put(key, pods);
    } catch (RuntimeException ex) {
      names.evict(key);
      throw ex;
    }
  }

  /** A record on another partition than its pod's name: its producer did not partition by name. */
  private boolean onItsPartition(PodName name, RecordMetadata meta, Object value) {
    if (name.partition(partitions) == meta.partition()) {
      return true;
    }
    deadLetter(
        meta,
        DeadLetters.WRONG_PARTITION,
        value.getClass().getSimpleName()
            + " for pod "
            + name
            + " on partition "
            + meta.partition()
            + ", but "
            + name
            + " belongs on partition "
            + name.partition(partitions)
            + " of "
            + partitions
            + ": inputs about a pod must be partitioned by namespace/name (the collector and"
            + " replay do so); check the producer and that every input topic has "
            + partitions
            + " partitions",
        value,
        null,
        null);
    return false;
  }

  /** A pod first observed: its waiting links, its starvation timer. */
  private void firstSeen(String key, PodsOfName pods, TimelineState s) {
    if (TimelineView.scheduledAt(s) == null && s.getCreatedAt() != null) {
      timers.add(
          TimerIndex.STARVE,
          s.getCreatedAt() + settings.starvationPending().toMillis(),
          key + "|" + s.getUid());
    }
    if (!pods.getWaitingLinks().isEmpty()) {
      List<VictimLink> still = new ArrayList<>();
      for (VictimLink l : pods.getWaitingLinks()) {
        TimelineState holder = holderAt(pods, l.getAt());
        if (holder == null) {
          still.add(l);
        } else {
          link(holder, l);
        }
      }
      pods.setWaitingLinks(still);
    }
  }

  /** After the pod's own facts changed: messages out, timers, the timeline when its story moved. */
  private void afterChange(
      String key, PodsOfName pods, TimelineState s, Change change, boolean wasGone, long at) {
    for (Outbound o : change.outbound()) {
      send(o, at);
    }
    if (!wasGone && s.getGone()) {
      timers.add(TimerIndex.FINAL, due(s), key + "|" + s.getUid());
    }
    for (FactsToTell.Tell t : FactsToTell.afterChange(s, at)) {
      tell(t);
    }
    Long preempted = s.getPreemptedEventAt() != null ? s.getPreemptedEventAt() : null;
    if (preempted == null) {
      preempted = s.getPreemptedConditionAt();
    }
    if (preempted != null && !s.getNodeFactsSent().contains("asked")) {
      List<String> sent = new ArrayList<>(s.getNodeFactsSent());
      sent.add("asked");
      s.setNodeFactsSent(sent);
      // Wait a grace period for the event that names the preemptor; then ask the node.
      timers.add(TimerIndex.ASK, preempted + graceMs, key + "|" + s.getUid());
    }
    podMetrics.observeDurations(s);
    if (change.meaningful()) {
      emit(s, false);
      dirty.remove(key + "|" + s.getUid());
    } else if (change.counters()) {
      dirty.add(key + "|" + s.getUid());
    }
  }

  /**
   * When a gone pod's final timeline is due: its end (or, later, when it was seen gone) plus the
   * grace period. From the pod's own facts only, so the same in every run.
   */
  private long due(TimelineState s) {
    Long end = TimelineView.terminatedAt(s);
    long base = end == null ? Long.MIN_VALUE : end;
    if (s.getDeletedObservedAt() != null) {
      base = Math.max(base, s.getDeletedObservedAt());
    }
    if (base == Long.MIN_VALUE) {
      base = s.getUpdatedAt();
    }
    return base + graceMs;
  }

  /** Whether an input after {@code mark} on its partition comes after the pod's final is due. */
  private boolean afterDue(TimelineState s, long mark) {
    return s.getGone() && mark >= due(s);
  }

  // ------------------------------------------------------------------ samples and requests

  private void onSample(GpuSample g, RecordMetadata meta) {
    if (g.getPod() == null || g.getNamespace() == null) {
      metrics.lateRecords.labelValues("gpu-unattributed").inc();
      return; // a GPU allocated to no pod: not a pod fact
    }
    onNamed(new PodName(g.getNamespace(), g.getPod()), g.getTime(), g, meta, GPU);
  }

  private void onRequest(RequestLog r, RecordMetadata meta) {
    onNamed(new PodName(r.getNamespace(), r.getPod()), r.getTime(), r, meta, REQUESTS);
  }

  private void onNamed(PodName name, long time, Object input, RecordMetadata meta, String source) {
    if (!onItsPartition(name, meta, input)) {
      return;
    }
    metrics
        .eventToMetricLag
        .labelValues(meta.topic())
        .observe(Math.max(0, context.currentSystemTimeMs() - time) / 1000.0);
    if (mark(source) >= time + graceMs) {
      // Its own partition had passed its time by more than the grace period: late, in every run.
      metrics.lateRecords.labelValues(source.equals(GPU) ? "gpu-sample" : "request").inc();
      return;
    }
    long second = InputSeconds.secondOf(time);
    String key = TimerIndex.pad(second) + "|" + name.key();
    InputSecond b = pendingKeys.contains(key) ? pending.get(key) : null;
    if (b == null) {
      b = InputSeconds.empty(second, name.key());
      // Only a complete second can have been settled, its ids kept.
      InputSecond ids = complete(second) ? seen.get(key) : null;
      if (ids != null) {
        b.setIds(new ArrayList<>(ids.getIds()));
      }
    }
    String refused =
        input instanceof RequestLog r
            ? InputSeconds.addRequest(b, r, serviceSlo(r))
            : InputSeconds.addGpu(b, (GpuSample) input);
    if (refused != null) {
      metrics.lateRecords.labelValues(refused).inc();
      return;
    }
    InputSeconds.noteInput(b, meta.topic() + ":" + meta.partition(), meta.offset());
    if (complete(second) && settle(key, b, mark(PODS))) {
      if (pendingKeys.remove(key)) {
        pending.delete(key);
      }
    } else {
      pending.put(key, b);
      pendingKeys.add(key);
    }
  }

  private Double serviceSlo(RequestLog r) {
    return r.getService() == null ? null : settings.slosMs().get(r.getService());
  }

  /**
   * Gives a second's inputs to the incarnation that held the name, when the pods stream has passed
   * far enough to say; true when the second was settled (its ids then kept for de-duplication).
   */
  private boolean settle(String key, InputSecond b, long podsProgress) {
    PodsOfName pods = names.get(b.getName());
    Incarnations.Answer a =
        Incarnations.at(pods, b.getSecond(), podsProgress, CREATION_TOLERANCE_MS, graceMs);
    if (a instanceof Incarnations.Wait) {
      return false;
    }
    long n = InputSeconds.pendingInputs(b);
    InputSecond taken = InputSeconds.take(b);
    if (!b.getIds().isEmpty()) {
      seen.put(key, b); // what is left of it: its request ids
      if (key.compareTo(seenFloor) < 0) {
        seenFloor = key;
      }
    }
    if (a instanceof Incarnations.Live live) {
      TimelineState s = live.pod();
      if (s.getGone()
          && s.getDeletedObservedAt() != null
          && b.getSecond() > s.getDeletedObservedAt()) {
        metrics.lateRecords.labelValues("after-pod-removed").inc(n);
        return true;
      }
      apply(b.getName(), pods, s, taken);
    } else if (a instanceof Incarnations.Retired) {
      metrics.lateRecords.labelValues("after-final").inc(n);
    } else {
      unknownPod(taken, n);
    }
    return true;
  }

  private void apply(String key, PodsOfName pods, TimelineState s, InputSecond in) {
    try {
      long breaches = reducer.breaches(s, in);
      reducer.apply(s, in);
      if (in.getRequests() > 0) {
        podMetrics.countRequests(s, in.getRequests(), in.getErrors(), breaches);
        FactsToTell.requests(s, in.getSecond(), in.getErrors(), breaches).ifPresent(this::tell);
      }
      podMetrics.observeDurations(s);
      dirty.add(key + "|" + s.getUid());
      names.put(key, pods);
    } catch (RuntimeException e) {
      names.evict(key);
      throw e;
    }
  }

  private void unknownPod(InputSecond in, long n) {
    StringBuilder where = new StringBuilder();
    in.getInputs()
        .forEach(
            (tp, r) ->
                where
                    .append(where.length() == 0 ? "" : ", ")
                    .append(r.getCount())
                    .append(" at ")
                    .append(tp)
                    .append(" offsets ")
                    .append(r.getFirst())
                    .append("..")
                    .append(r.getLast()));
    DeadLetter d =
        DeadLetters.build(
            "schedlens-streams:pods",
            null,
            null,
            in.getName().getBytes(StandardCharsets.UTF_8),
            null,
            DeadLetters.UNKNOWN_POD,
            n
                + " GPU sample(s) and request(s) for pod "
                + in.getName()
                + " in the second from "
                + Instant.ofEpochMilli(in.getSecond())
                + ": no pod of that name existed then, and the pods stream passed the grace"
                + " period without one ("
                + where
                + "; the records stay on their topics)",
            in.getSecond(),
            Math.max(0, context.currentStreamTimeMs()));
    metrics.deadLetters.labelValues(DeadLetters.UNKNOWN_POD).inc(n);
    context.forward(
        new Record<>(d.getSource(), (Object) d, Math.max(0, in.getSecond())),
        TimelineTopology.PODS_DLQ_SINK);
  }

  // ------------------------------------------------------------------ messages from other stages

  private void onMessage(String key, StageMessage m) {
    Object payload = m.getPayload();
    if (payload instanceof Watermark w) {
      heard.heard(w);
      long a = heard.answered();
      if (a > answered) {
        answered = a;
        for (String id : timers.due(TimerIndex.FINAL, a)) {
          finalTimeline(id);
        }
      }
      return;
    }
    if (key == null) {
      return;
    }
    PodsOfName pods = names.get(key);
    try {
      if (payload instanceof VictimLink l) {
        pods = orNew(pods);
        String uid = l.getPreemptorUid() != null ? l.getPreemptorUid() : m.getUid();
        TimelineState s = uid == null ? holderAt(pods, l.getAt()) : find(pods, uid);
        if (uid != null && retired(pods, uid) != null) {
          metrics.lateRecords.labelValues("message-after-final").inc();
          return;
        }
        if (s == null && uid != null) {
          s = TimelineReducer.empty(uid);
          s.setFirstInputAt(l.getAt());
          pods.getPods().add(s);
          timers.add(TimerIndex.ORPHAN, l.getAt() + orphanMs, key + "|" + uid);
        }
        if (s == null) {
          List<VictimLink> waiting = new ArrayList<>(pods.getWaitingLinks());
          waiting.add(l);
          pods.setWaitingLinks(waiting);
        } else {
          link(s, l);
        }
        names.put(key, pods);
        return;
      }
      TimelineState s = pods == null || m.getUid() == null ? null : find(pods, m.getUid());
      if (s == null) {
        metrics.lateRecords.labelValues("message-after-final").inc();
        return;
      }
      Change change =
          payload instanceof PreemptorDetails d
              ? reducer.apply(s, d)
              : payload instanceof WorkloadStatus w ? reducer.apply(s, w) : Change.NONE;
      if (change.meaningful()) {
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
   * A victim names this pod as its preemptor: add it, and answer who this pod is (unless the node
   * stage inferred the link: it told the victim already, and an answer to an answer would be a
   * third round the watermarks do not wait for).
   */
  private void link(TimelineState s, VictimLink l) {
    Change change = reducer.apply(s, l);
    if (l.getInferred()) {
      List<String> owed = new ArrayList<>(s.getDetailsOwed());
      owed.removeIf(o -> o.startsWith(l.getVictimUid()));
      s.setDetailsOwed(owed);
    } else {
      for (Outbound o : change.outbound()) {
        send(o, l.getAt());
      }
    }
    if (change.meaningful()) {
      emit(s, false);
    }
  }

  /** The live incarnation that held the name at {@code t} (or was created just after). */
  private static TimelineState holderAt(PodsOfName pods, long t) {
    Incarnations.Answer a =
        Incarnations.at(pods, t, Long.MAX_VALUE, CREATION_TOLERANCE_MS, Long.MAX_VALUE);
    return a instanceof Incarnations.Live live ? live.pod() : null;
  }

  // ------------------------------------------------------------------ messages to other stages

  private void send(Outbound o, long at) {
    if (o instanceof Outbound.ToPreemptor p) {
      VictimLink l = p.link();
      if (l.getPreemptorNamespace() != null && l.getPreemptorName() != null) {
        context.forward(
            new Record<>(
                new PodName(l.getPreemptorNamespace(), l.getPreemptorName()).key(),
                (Object) new StageMessage(l.getPreemptorUid(), l),
                Math.max(0, l.getAt())),
            TimelineTopology.PODS_TO_POD_SINK);
      }
      // Named by UID only: the victim asks its node, which knows the pods bound and nominated
      // there (see FactsToTell.victimQuestion).
    } else if (o instanceof Outbound.ToVictim v && v.victim() != null) {
      context.forward(
          new Record<>(
              v.victim(),
              (Object) new StageMessage(v.details().getVictimUid(), v.details()),
              Math.max(0, at)),
          TimelineTopology.PODS_TO_POD_SINK);
    }
  }

  private void tell(FactsToTell.Tell t) {
    if (t instanceof FactsToTell.ToWorkload w) {
      context.forward(
          new Record<>(
              w.key(),
              (Object) new StageMessage(w.event().getUid(), w.event()),
              Math.max(0, w.event().getAt())),
          TimelineTopology.PODS_TO_WORKLOAD_SINK);
    } else if (t instanceof FactsToTell.ToNode n) {
      context.forward(
          new Record<>(
              n.node(),
              (Object) new StageMessage(n.fact().getPod().getUid(), n.fact()),
              Math.max(0, n.fact().getAt())),
          TimelineTopology.PODS_TO_NODE_SINK);
    }
  }

  /** Broadcasts this task's watermark (when it moved, and now and then anyway). */
  private void broadcast(long wallNow) {
    long time = external;
    long ans = heard.firstOrder();
    if (time == sentTime && ans == sentAnswered && wallNow - sentAtWall < REBROADCAST_MS) {
      return;
    }
    sentTime = time;
    sentAnswered = ans;
    sentAtWall = wallNow;
    Watermark w = Watermarks.of(Watermarks.PODS, context.taskId().partition(), time, ans);
    Record<String, Object> r =
        new Record<>(
            "watermark",
            (Object) new StageMessage(null, w),
            Math.max(0, context.currentStreamTimeMs()));
    context.forward(r, TimelineTopology.PODS_TO_POD_SINK);
    context.forward(r, TimelineTopology.PODS_TO_WORKLOAD_SINK);
    context.forward(r, TimelineTopology.PODS_TO_NODE_SINK);
  }

  // ------------------------------------------------------------------ timers

  private void finalTimeline(String id) {
    String key = id.substring(0, id.lastIndexOf('|'));
    String uid = id.substring(id.lastIndexOf('|') + 1);
    PodsOfName pods = names.get(key);
    TimelineState s = pods == null ? null : find(pods, uid);
    if (s == null) {
      return;
    }
    PodTimeline t = emit(s, true);
    if (t != null) {
      podMetrics.finished(s, t);
      if (t.getPreemptedAt() != null && !s.getPreemptionEmitted()) {
        s.setPreemptionEmitted(true);
        context.forward(
            new Record<>(
                s.getUid(),
                (Object) TimelineView.preemption(s, t),
                t.getPreemptedAt(),
                PREEMPTION_HEADERS.headers(true)),
            TimelineTopology.PREEMPTIONS_SINK);
      }
    }
    long finalAt = due(s);
    drop(pods, s);
    List<RetiredPod> retired = new ArrayList<>(pods.getRetired());
    retired.add(new RetiredPod(uid, s.getCreatedAt(), finalAt));
    pods.setRetired(retired);
    timers.add(TimerIndex.FORGET, finalAt + orphanMs, id);
    dirty.remove(id);
    names.put(key, pods);
  }

  private void starve(String id) {
    String key = id.substring(0, id.lastIndexOf('|'));
    PodsOfName pods = names.get(key);
    TimelineState s = pods == null ? null : find(pods, id.substring(id.lastIndexOf('|') + 1));
    if (s != null
        && !s.getGone()
        && TimelineView.scheduledAt(s) == null
        && !s.getStarvingFlagged()) {
      s.setStarvingFlagged(true);
      emit(s, false);
      names.put(key, pods);
    }
  }

  private void ask(String id) {
    String key = id.substring(0, id.lastIndexOf('|'));
    PodsOfName pods = names.get(key);
    TimelineState s = pods == null ? null : find(pods, id.substring(id.lastIndexOf('|') + 1));
    if (s == null) {
      return;
    }
    Optional<FactsToTell.ToNode> q = FactsToTell.victimQuestion(s);
    if (q.isPresent()) {
      tell(q.get());
      names.put(key, pods);
    }
  }

  private void orphan(String id, long podsProgress) {
    String key = id.substring(0, id.lastIndexOf('|'));
    String uid = id.substring(id.lastIndexOf('|') + 1);
    PodsOfName pods = names.get(key);
    TimelineState s = pods == null ? null : find(pods, uid);
    if (s == null || s.getSawPod()) {
      return;
    }
    drop(pods, s);
    dirty.remove(id);
    names.put(key, pods);
    DeadLetter d =
        DeadLetters.build(
            "schedlens-streams:pods",
            null,
            null,
            uid.getBytes(StandardCharsets.UTF_8),
            null,
            DeadLetters.UNKNOWN_POD,
            "events or links for pod UID "
                + uid
                + " ("
                + key
                + ") arrived, but the pod itself was never observed within "
                + Duration.ofMillis(orphanMs)
                + " (outside the collector's namespaces or label selector?)",
            s.getFirstInputAt() != null ? s.getFirstInputAt() : s.getUpdatedAt(),
            podsProgress);
    metrics.deadLetters.labelValues(DeadLetters.UNKNOWN_POD).inc();
    context.forward(
        new Record<>(d.getSource(), (Object) d, Math.max(0, s.getUpdatedAt())),
        TimelineTopology.PODS_DLQ_SINK);
  }

  private void forget(String id) {
    String key = id.substring(0, id.lastIndexOf('|'));
    String uid = id.substring(id.lastIndexOf('|') + 1);
    PodsOfName pods = names.get(key);
    if (pods == null) {
      return;
    }
    List<RetiredPod> retired = new ArrayList<>(pods.getRetired());
    retired.removeIf(r -> r.getUid().equals(uid));
    pods.setRetired(retired);
    if (pods.getPods().isEmpty() && retired.isEmpty() && pods.getWaitingLinks().isEmpty()) {
      names.delete(key);
    } else {
      names.put(key, pods);
    }
  }

  // ------------------------------------------------------------------ publishing

  private void flushDirty() {
    for (String id : new ArrayList<>(dirty)) {
      String key = id.substring(0, id.lastIndexOf('|'));
      PodsOfName pods = names.get(key);
      TimelineState s = pods == null ? null : find(pods, id.substring(id.lastIndexOf('|') + 1));
      if (s != null) {
        emit(s, false);
        names.put(key, pods); // emitting may have told the workload (memberSent)
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
    context.forward(
        new Record<>(
            s.getUid(),
            (Object) t,
            Math.max(s.getUpdatedAt(), 0),
            TIMELINE_HEADERS.headers(isFinal)),
        TimelineTopology.POD_TIMELINES_SINK);
    FactsToTell.member(s, t).ifPresent(this::tell);
    return t;
  }

  // ------------------------------------------------------------------ helpers

  private void deadLetter(
      RecordMetadata meta, String reason, String detail, Object value, String key, Long time) {
    byte[] raw = null;
    if (value instanceof SpecificRecord r) {
      raw = AvroSerde.of(r.getClass()).serialize(meta.topic(), cast(r));
    }
    DeadLetter d =
        DeadLetters.build(
            meta.topic(),
            meta.partition(),
            meta.offset(),
            key == null ? null : key.getBytes(StandardCharsets.UTF_8),
            raw,
            reason,
            detail,
            time,
            context.currentSystemTimeMs());
    metrics.deadLetters.labelValues(reason).inc();
    context.forward(
        new Record<>(d.getSource(), (Object) d, Math.max(0, context.currentStreamTimeMs())),
        TimelineTopology.PODS_DLQ_SINK);
  }

  @SuppressWarnings("unchecked")
  private static <T extends SpecificRecord> T cast(SpecificRecord r) {
    return (T) r;
  }

  private static PodsOfName orNew(PodsOfName pods) {
    if (pods != null) {
      return pods;
    }
    return PodsOfName.newBuilder()
        .setPods(new ArrayList<>())
        .setRetired(new ArrayList<>())
        .setWaitingLinks(new ArrayList<>())
        .build();
  }

  /**
   * Removes an incarnation. Not {@code List.remove(Object)}: a list Avro decoded cannot remove
   * through its iterator.
   */
  private static void drop(PodsOfName pods, TimelineState s) {
    List<TimelineState> rest = new ArrayList<>(pods.getPods().size());
    for (TimelineState p : pods.getPods()) {
      if (p != s) {
        rest.add(p);
      }
    }
    pods.setPods(rest);
  }

  private static TimelineState find(PodsOfName pods, String uid) {
    for (TimelineState s : pods.getPods()) {
      if (s.getUid().equals(uid)) {
        return s;
      }
    }
    return null;
  }

  private static RetiredPod retired(PodsOfName pods, String uid) {
    for (RetiredPod r : pods.getRetired()) {
      if (r.getUid().equals(uid)) {
        return r;
      }
    }
    return null;
  }
}
