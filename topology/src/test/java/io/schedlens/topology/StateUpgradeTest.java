package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.ClosedPoints;
import io.schedlens.avro.internal.InputSecond;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.SchemaHistory;
import io.schedlens.schemas.SchemaMigrations;
import io.schedlens.testsupport.Inputs;
import io.schedlens.timeline.InputSeconds;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineView;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.MeteredKeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Upgrades: the app starts from state stores written by an earlier release and goes on as if it had
 * never stopped. A run is cut in two: the first half runs on the current release; its stores are
 * then rewritten, value by value, in the schema versions an earlier release wrote (Avro schema
 * resolution from the current schema to the old one, single-object encoded with the old
 * fingerprint), put into fresh RocksDB directories exactly where Kafka Streams keeps them, and a
 * new driver opens them, as a restarted instance opens its volume: its processors rebuild what they
 * keep in memory from those bytes at init. The second half then runs on it. Its finals, preemptions
 * and workload timelines must equal those of one uninterrupted run, each once; the workload state
 * that the old release wrote must be freed like any other.
 *
 * <p>Which releases: the topology is pinned ({@code topology-description.txt}) and unchanged since
 * 1ff5817 (progress marks); an upgrade from before it is a reset and a rebuild (README). Since then
 * every stored type has had the versions of {@link #SINCE_TOPOLOGY} and later ones; age {@code k}
 * writes each type {@code k} versions back (not before that first one), so ages 1 to {@link
 * #oldestAge} together cover every version any release of this topology wrote, and age 0 is the
 * plain restart. A new store or stored type fails {@link #STORED_TYPES}'s check until it is listed.
 */
class StateUpgradeTest {

  /** The type of every store's values (a name from {@link SchemaHistory}), or null: not Avro. */
  static final Map<String, String> STORED_TYPES = new TreeMap<>();

  static {
    STORED_TYPES.put(TopologyNames.PODS_BY_NAME_STORE, "PodsOfName");
    STORED_TYPES.put(TopologyNames.POD_SERIES_STORE, "ClosedPoints");
    STORED_TYPES.put(TopologyNames.INPUT_SECONDS_STORE, "InputSecond");
    // the request-id windows are written where the release before them kept the ids
    STORED_TYPES.put(TopologyNames.LEGACY_REQUEST_IDS_STORE, "InputSecond");
    STORED_TYPES.put(TopologyNames.POD_TIMERS_STORE, null);
    STORED_TYPES.put(TopologyNames.POD_PROGRESS_STORE, null);
    STORED_TYPES.put(TopologyNames.WORKLOADS_STORE, "WorkloadState");
    STORED_TYPES.put(TopologyNames.WORKLOAD_PODS_STORE, "WorkloadMember");
    STORED_TYPES.put(TopologyNames.WORKLOAD_SECONDS_STORE, "SecondCount");
    STORED_TYPES.put(TopologyNames.NODES_STORE, "NodeState");
    STORED_TYPES.put(TopologyNames.NODE_TIMERS_STORE, null);
    STORED_TYPES.put(TopologyNames.PUBLISHED_STORE, "PodTimeline");
    STORED_TYPES.put(TopologyNames.PUBLISHED_WORKLOADS_STORE, "WorkloadTimeline");
  }

  /**
   * The stores whose values the current release compresses ({@link CompressedSerde}); every earlier
   * release wrote them as Avro single objects, as age 1 and older write them here.
   */
  static final Set<String> COMPRESSED_STORES =
      Set.of(TopologyNames.PODS_BY_NAME_STORE, TopologyNames.POD_SERIES_STORE);

  /** Compresses and decompresses stored bytes as such. */
  static final CompressedSerde<byte[]> BYTES = CompressedSerde.of(Serdes.ByteArray());

  /**
   * The version of each stored type at 1ff5817, the commit that made the current topology (from
   * {@code git ls-tree 1ff5817 schemas/src/main/resources/schema-history/}; NodeState was recorded
   * 16 minutes later, unchanged).
   */
  static final Map<String, Integer> SINCE_TOPOLOGY =
      Map.of(
          "PodsOfName", 1,
          "InputSecond", 1,
          "WorkloadState", 3,
          "WorkloadMember", 1,
          "SecondCount", 1,
          "NodeState", 1,
          "PodTimeline", 3,
          "WorkloadTimeline", 1);

  /**
   * The first PodsOfName version whose states keep their closed series points in {@code
   * pod-series}: a release before it kept whole series in the state and had no such store.
   */
  static final int SERIES_STORED_SINCE = 8;

  @TempDir Path dir;

  static Stream<Arguments> upgrades() {
    List<Arguments> all = new ArrayList<>();
    for (double cut : new double[] {60, 305}) {
      for (int age = 0; age <= oldestAge(); age++) {
        all.add(Arguments.of(age, cut));
      }
    }
    return all.stream();
  }

  /** How many versions back the oldest version since the topology is, of the type most changed. */
  static int oldestAge() {
    return SINCE_TOPOLOGY.entrySet().stream()
        .mapToInt(e -> SchemaHistory.versionsOf(e.getKey()).size() - e.getValue())
        .max()
        .orElseThrow();
  }

  /**
   * The scenario of the topology test (an interactive pod preempting two Job pods, everyone gone by
   * 311 s) and a Deployment with two replicas, deleted at 330 s, one of them sampled every 15 s;
   * everything freed an hour after.
   */
  static List<Object> marked() {
    List<Object> in = new ArrayList<>(TimelineTopologyTest.scenario());
    in.add(TimelineTopologyTest.deployment("gone", ChangeType.ADDED, 0, 2));
    in.addAll(TimelineTopologyTest.replica("gone", "aaaaa", 0, 300.0));
    in.addAll(TimelineTopologyTest.replica("gone", "bbbbb", 0, 320.0));
    for (int t = 12; t < 318; t += 15) { // a series long enough for points to close before 305 s
      in.add(Inputs.gpu("GPU-7", "ai-lab", "gone-5d8f7-bbbbb", at(t), 40 + t % 7, 15_000L));
    }
    in.add(TimelineTopologyTest.deployment("gone", ChangeType.DELETED, 330, 0));
    in.addAll(withIds());
    in.sort(Comparator.comparingLong(StageDriver::timestampOf));
    // marks a second behind the inputs, as the collector writes them: one sequence for both runs
    List<Object> marked = new ArrayList<>();
    long lastMark = Long.MIN_VALUE;
    for (Object i : in) {
      long t = StageDriver.timestampOf(i);
      if (t - 1000 > lastMark + 1000) {
        lastMark = t - 1000;
        marked.add(lastMark);
      }
      marked.add(i);
    }
    return marked;
  }

  /** Request lines with ids to the interactive pod, a few seconds before each cut. */
  static List<RequestLog> withIds() {
    List<RequestLog> lines = new ArrayList<>();
    for (double t : new double[] {55.5, 56.25, 300.5}) {
      RequestLog r = Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(t), 200, 70);
      r.setRequestId("req-" + t);
      lines.add(r);
    }
    return lines;
  }

  /**
   * A shipper's retry of the lines of the ten seconds before the cut, read after it: their seconds
   * were settled before the cut, so only the ids kept across the upgrade make them count once.
   */
  static List<RequestLog> resent(double cut) {
    return withIds().stream()
        .filter(r -> r.getTime() >= at(cut - 10) && r.getTime() < at(cut))
        .toList();
  }

  /** What a run put out: the latest of each timeline and every preemption. */
  record Outputs(
      Map<String, PodTimeline> timelines,
      Map<String, WorkloadTimeline> workloads,
      List<String> preemptions,
      List<String> deadLetters) {

    static Outputs empty() {
      return new Outputs(new TreeMap<>(), new TreeMap<>(), new ArrayList<>(), new ArrayList<>());
    }

    void read(StageDriver d) {
      d.timelines.readKeyValuesToList().forEach(kv -> timelines.put(kv.key, kv.value));
      d.workloads.readKeyValuesToList().forEach(kv -> workloads.put(kv.key, kv.value));
      d.preemptions.readValuesToList().forEach(p -> preemptions.add(p.toString()));
      d.dlq.readValuesToList().forEach(l -> deadLetters.add(l.getReason() + " " + l.getDetail()));
    }
  }

  static void feed(StageDriver d, List<Object> marked, double from, double to) {
    for (Object o : marked) {
      long t = o instanceof Long mark ? mark : StageDriver.timestampOf(o);
      if (t < at(from) || t >= at(to)) {
        continue;
      }
      if (o instanceof Long mark) {
        d.markAll(mark);
      } else {
        d.pipe(o);
      }
    }
  }

  /** After the last input: finals out, then an hour and more for the freeing of workloads. */
  static void end(StageDriver d, Outputs out) {
    d.finish(at(330 + 200));
    d.finish(at(330 + 3600 + 300));
    out.read(d);
  }

  @ParameterizedTest(name = "state {0} versions old, upgraded at {1} s")
  @MethodSource("upgrades")
  void shouldGoOnFromTheStateAnEarlierReleaseWrote(int age, double cut) throws Exception {
    List<Object> marked = marked();
    TopologySettings settings = TimelineTopologyTest.SETTINGS;

    // one run, never stopped; it settles at the cut as the other does before it stops
    Outputs reference = Outputs.empty();
    try (StageDriver d =
        new StageDriver(settings, dir.resolve("reference"), new StreamsMetrics())) {
      feed(d, marked, -1e9, cut);
      d.settle();
      resent(cut).forEach(d::pipe);
      feed(d, marked, cut, 1e9);
      end(d, reference);
    }

    Outputs upgraded = Outputs.empty();
    Map<String, List<KeyValue<Bytes, byte[]>>> stores;
    try (StageDriver d = new StageDriver(settings, dir.resolve("old"), new StreamsMetrics())) {
      feed(d, marked, -1e9, cut);
      d.settle();
      upgraded.read(d);
      stores = storeBytes(d);
    }
    assertThat(stores.keySet()).as("every store's type is known").isEqualTo(STORED_TYPES.keySet());
    assertThat(stores.get(TopologyNames.PODS_BY_NAME_STORE)).as("pods in state").isNotEmpty();
    assertThat(stores.get(TopologyNames.WORKLOADS_STORE)).as("workloads").isNotEmpty();
    assertThat(stores.get(TopologyNames.LEGACY_REQUEST_IDS_STORE))
        .as("request ids of settled seconds")
        .isNotEmpty();

    if (cut > 300) { // points close the grace period (2 minutes) behind a pod's last one
      assertThat(stores.get(TopologyNames.POD_SERIES_STORE))
          .as("closed series points")
          .isNotEmpty();
    }
    if (Math.max(
            SINCE_TOPOLOGY.get("PodsOfName"), SchemaHistory.versionsOf("PodsOfName").size() - age)
        < SERIES_STORED_SINCE) {
      stores.put(
          TopologyNames.PODS_BY_NAME_STORE,
          wholeSeries(
              stores.get(TopologyNames.PODS_BY_NAME_STORE),
              stores.remove(TopologyNames.POD_SERIES_STORE)));
    }

    Path stateDir = dir.resolve("new");
    Map<String, Integer> written = new TreeMap<>();
    for (Map.Entry<String, List<KeyValue<Bytes, byte[]>>> s : stores.entrySet()) {
      String type = STORED_TYPES.get(s.getKey());
      List<KeyValue<Bytes, byte[]>> values = s.getValue();
      if (type != null) {
        List<Schema> versions = SchemaHistory.versionsOf(type);
        int version = Math.max(SINCE_TOPOLOGY.getOrDefault(type, 1), versions.size() - age);
        written.put(type, version);
        Schema current = SpecificData.get().getSchema(Class.forName(SchemaHistory.className(type)));
        Schema old = versions.get(version - 1);
        boolean compressed = COMPRESSED_STORES.contains(s.getKey());
        if (compressed && age == 0 && !values.isEmpty()) {
          assertThat(values)
              .as("%s as the current release writes it: compressed", s.getKey())
              .anyMatch(kv -> CompressedSerde.compressed(kv.value));
        }
        values =
            values.stream()
                .map(kv -> KeyValue.pair(kv.key, rewrite(BYTES.plain("", kv.value), current, old)))
                .toList();
        for (KeyValue<Bytes, byte[]> kv : values) {
          assertThat(Arrays.copyOfRange(kv.value, 2, 10))
              .as("%s written as v%d", type, version)
              .isEqualTo(fingerprint(old));
        }
        if (compressed && age == 0) { // as the current release writes them; earlier ones did not
          values =
              values.stream()
                  .map(kv -> KeyValue.pair(kv.key, BYTES.serialize("", kv.value)))
                  .toList();
        }
        if (age > 0 && List.of("PodsOfName", "InputSecond", "WorkloadState").contains(type)) {
          assertThat(fingerprint(old))
              .as("%s v%d is another schema", type, version)
              .isNotEqualTo(fingerprint(current));
        }
      }
      writeRocksDb(stateDir.resolve("schedlens-test/0_0/rocksdb/" + s.getKey()), values);
    }
    if (age == oldestAge()) {
      assertThat(written)
          .as("the oldest versions since the topology")
          .containsAllEntriesOf(SINCE_TOPOLOGY);
    }

    try (StageDriver d = new StageDriver(settings, stateDir, new StreamsMetrics())) {
      KeyValueStore<String, Object> states =
          d.driver.getKeyValueStore(TopologyNames.PODS_BY_NAME_STORE);
      assertThat(count(states)).as("the new release opened the old state").isPositive();
      assertThat(count(d.driver.getKeyValueStore(TopologyNames.LEGACY_REQUEST_IDS_STORE)))
          .as("the old release's request ids moved into the windows")
          .isZero();
      resent(cut).forEach(d::pipe);
      feed(d, marked, cut, 1e9);
      end(d, upgraded);
      assertThat(count(d.driver.getKeyValueStore(TopologyNames.WORKLOADS_STORE)))
          .as("workloads of the old state freed like any")
          .isZero();
      assertThat(count(d.driver.getKeyValueStore(TopologyNames.PODS_BY_NAME_STORE)))
          .as("pods of the old state freed like any")
          .isZero();
    }

    assertThat(reference.timelines())
        .hasSizeGreaterThan(4)
        .allSatisfy((k, v) -> assertThat(v.getFinal$()).as(k).isTrue());
    boolean withSeries = written.getOrDefault("PodsOfName", 2) >= 2;
    assertThat(comparable(upgraded.timelines(), withSeries))
        .isEqualTo(comparable(reference.timelines(), withSeries));
    assertThat(upgraded.workloads()).isEqualTo(reference.workloads());
    assertThat(upgraded.preemptions())
        .as("each preemption once")
        .containsExactlyInAnyOrderElementsOf(reference.preemptions());
    assertThat(upgraded.deadLetters()).isEqualTo(reference.deadLetters());
  }

  /**
   * Every recorded version of the two state records, the oldest ones too (written before the
   * topology of 1ff5817, whose stores an upgrade resets and rebuilds, see the README): a state of
   * each version decodes into the current class, says what it said in every field that version has,
   * and the current reducer and view go on from it.
   */
  @Test
  void shouldReadEveryRecordedVersionOfThePodAndWorkloadState() throws Exception {
    List<Object> marked = marked();
    List<TimelineState> pods = new ArrayList<>();
    List<WorkloadState> workloads = new ArrayList<>();
    try (StageDriver d =
        new StageDriver(
            TimelineTopologyTest.SETTINGS, dir.resolve("versions"), new StreamsMetrics())) {
      feed(d, marked, -1e9, 60);
      d.settle();
      KeyValueStore<String, PodsOfName> names =
          d.driver.getKeyValueStore(TopologyNames.PODS_BY_NAME_STORE);
      try (KeyValueIterator<String, PodsOfName> it = names.all()) {
        it.forEachRemaining(kv -> pods.addAll(kv.value.getPods()));
      }
      KeyValueStore<String, WorkloadState> ws =
          d.driver.getKeyValueStore(TopologyNames.WORKLOADS_STORE);
      try (KeyValueIterator<String, WorkloadState> it = ws.all()) {
        it.forEachRemaining(kv -> workloads.add(kv.value));
      }
    }
    assertThat(pods).as("running pods with samples and requests").hasSizeGreaterThan(3);
    assertThat(workloads).isNotEmpty();
    TimelineReducer reducer = new TimelineReducer(TimelineTopologyTest.SETTINGS.timeline());
    TimelineView view = new TimelineView(TimelineTopologyTest.SETTINGS.timeline());
    AvroSerde<TimelineState> podSerde = AvroSerde.of(TimelineState.class);
    AvroSerde<WorkloadState> workloadSerde = AvroSerde.of(WorkloadState.class);
    List<Schema> podVersions = SchemaHistory.versionsOf("TimelineState");
    List<Schema> workloadVersions = SchemaHistory.versionsOf("WorkloadState");
    assertThat(podVersions).hasSizeGreaterThanOrEqualTo(5);
    assertThat(workloadVersions).hasSizeGreaterThanOrEqualTo(4);
    for (Schema old : podVersions) {
      for (TimelineState s : pods) {
        byte[] current = podSerde.serialize("", s);
        TimelineState read = podSerde.deserialize("", rewrite(current, s.getSchema(), old));
        sameInEveryFieldOf(old, s, read);
        PodTimeline before = view.view(read, at(60), false);
        reducer.applyAny(
            read,
            Inputs.request(
                s.getIdentity().getNamespace(),
                s.getIdentity().getName(),
                "chat",
                at(61),
                200,
                80));
        assertThat(view.view(read, at(62), false).getUid()).isEqualTo(before.getUid());
      }
    }
    for (Schema old : workloadVersions) {
      for (WorkloadState w : workloads) {
        byte[] current = workloadSerde.serialize("", w);
        sameInEveryFieldOf(
            old, w, workloadSerde.deserialize("", rewrite(current, w.getSchema(), old)));
      }
    }
  }

  /** {@code read} says what {@code original} said in every field that {@code version} has. */
  static void sameInEveryFieldOf(
      Schema version, SpecificRecordBase original, SpecificRecordBase read) {
    Optional<SchemaMigrations.Migration> m = SchemaMigrations.of(version.getName());
    for (Schema.Field f : version.getFields()) {
      SpecificRecordBase o = original;
      SpecificRecordBase r = read;
      if (original.getSchema().getField(f.name()) == null
          && m.isPresent()
          && m.get().nestedOf(f.name()) != null) {
        // Moved into a nested record since: compare it there.
        o = (SpecificRecordBase) original.get(m.get().nestedOf(f.name()));
        r = (SpecificRecordBase) read.get(m.get().nestedOf(f.name()));
      }
      Schema.Field now = o.getSchema().getField(f.name());
      if (now == null) {
        continue; // a field the current release no longer has
      }
      if (f.schema().getType() == Schema.Type.RECORD
          && o.get(now.pos()) instanceof SpecificRecordBase nestedOriginal
          && r.get(now.pos()) instanceof SpecificRecordBase nestedRead) {
        // A nested record may have grown since: what that version has of it, field by field.
        sameInEveryFieldOf(f.schema(), nestedOriginal, nestedRead);
        continue;
      }
      assertThat(String.valueOf(r.get(now.pos())))
          .as("%s.%s read from %s", version.getName(), f.name(), version.getFullName())
          .isEqualTo(String.valueOf(o.get(now.pos())));
    }
  }

  /**
   * The finals, with what comes of the series left out where the old state had none (PodsOfName v1:
   * a pod's series then starts at the upgrade, and so does the sampled time that tells idle from
   * unsampled; everything else it says is the same).
   */
  static Map<String, PodTimeline> comparable(Map<String, PodTimeline> t, boolean withSeries) {
    Map<String, PodTimeline> out = new TreeMap<>();
    t.forEach(
        (k, v) -> {
          PodTimeline c = PodTimeline.newBuilder(v).build();
          if (!withSeries) {
            c.setSeries(null);
            c.setIdleAllocatedGpuSeconds(null);
            c.setUnsampledGpuSeconds(null);
          }
          out.put(k, c);
        });
    return out;
  }

  /**
   * Every store's entries as the bytes below its serde (the cache merged with RocksDB), after the
   * write-back buffers went down (a full iteration writes them through).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Map<String, List<KeyValue<Bytes, byte[]>>> storeBytes(StageDriver d) {
    Map<String, List<KeyValue<Bytes, byte[]>>> out = new TreeMap<>();
    List<KeyValue<Bytes, byte[]>> legacyIds = new ArrayList<>();
    for (StateStore s : d.driver.getAllStateStores().values()) {
      if (s instanceof KeyValueStore<?, ?> kv) {
        count(kv); // pods-by-name's write-back also writes pod-series: all of them first
      }
    }
    for (Map.Entry<String, StateStore> e : d.driver.getAllStateStores().entrySet()) {
      StateStore s = e.getValue();
      if (s instanceof WindowStore<?, ?> windows) {
        legacyIds.addAll(asLegacyIds((WindowStore<String, List<Long>>) windows));
        continue;
      }
      while (!(s instanceof MeteredKeyValueStore)) {
        s = ((WrappedStateStore) s).wrapped();
      }
      KeyValueStore<Bytes, byte[]> bytes =
          (KeyValueStore<Bytes, byte[]>) ((WrappedStateStore) s).wrapped();
      List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
      try (KeyValueIterator<Bytes, byte[]> it = bytes.all()) {
        it.forEachRemaining(entries::add);
      }
      out.put(e.getKey(), entries);
    }
    out.get(TopologyNames.LEGACY_REQUEST_IDS_STORE).addAll(legacyIds);
    return out;
  }

  /**
   * The request-id windows (each a batch of seconds) as the release before them kept the same ids:
   * {@code second|name} to a settled {@link InputSecond} holding them.
   */
  static List<KeyValue<Bytes, byte[]>> asLegacyIds(WindowStore<String, List<Long>> windows) {
    AvroSerde<InputSecond> serde = AvroSerde.of(InputSecond.class);
    List<KeyValue<Bytes, byte[]>> out = new ArrayList<>();
    try (KeyValueIterator<Windowed<String>, List<Long>> it = windows.all()) {
      it.forEachRemaining(
          kv ->
              RequestIdWindows.decode(kv.key.window().start(), kv.value)
                  .forEach(
                      (second, ids) -> {
                        InputSecond settled = InputSeconds.empty(second, kv.key.key());
                        settled.setApplied(true);
                        settled.setIds(new ArrayList<>(ids));
                        String key = TimerIndex.pad(second) + "|" + kv.key.key();
                        out.add(
                            KeyValue.pair(
                                Bytes.wrap(key.getBytes(StandardCharsets.UTF_8)),
                                serde.serialize("", settled)));
                      }));
    }
    out.sort(Comparator.comparing(kv -> kv.key));
    return out;
  }

  /**
   * Pods-by-name as a release before {@link #SERIES_STORED_SINCE} wrote it: each state's series
   * whole, its closed points taken back from {@code pod-series}.
   */
  static List<KeyValue<Bytes, byte[]>> wholeSeries(
      List<KeyValue<Bytes, byte[]>> pods, List<KeyValue<Bytes, byte[]>> series) {
    CompressedSerde<PodsOfName> podSerde = TimelineTopology.podsSerde();
    CompressedSerde<ClosedPoints> seriesSerde = TimelineTopology.closedPointsSerde();
    AvroSerde<PodsOfName> uncompressed = AvroSerde.of(PodsOfName.class);
    Map<String, ClosedPoints> closed = new TreeMap<>();
    for (KeyValue<Bytes, byte[]> kv : series) {
      closed.put(
          new String(kv.key.get(), StandardCharsets.UTF_8), seriesSerde.deserialize("", kv.value));
    }
    List<KeyValue<Bytes, byte[]>> out = new ArrayList<>();
    int joined = 0;
    for (KeyValue<Bytes, byte[]> kv : pods) {
      PodsOfName p = podSerde.deserialize("", kv.value);
      for (TimelineState s : p.getPods()) {
        if (s.getSeriesStored() > 0) {
          List<PodPoint> points = new ArrayList<>(closed.get(s.getUid()).getPoints());
          points.addAll(s.getSeries().getPoints());
          s.getSeries().setPoints(points);
          s.setSeriesStored(0);
          joined++;
        }
      }
      out.add(KeyValue.pair(kv.key, uncompressed.serialize("", p)));
    }
    assertThat(joined).as("states with closed points").isEqualTo(closed.size());
    return out;
  }

  static int count(KeyValueStore<?, ?> store) {
    int n = 0;
    try (KeyValueIterator<?, ?> it = store.all()) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  /**
   * A value the current release wrote, as release {@code old} would have written it: read with the
   * current schema as writer and the old one as reader (Avro schema resolution: fields the old one
   * lacks dropped), encoded as a single object of the old schema. For a version before a move of
   * fields into a nested record ({@link SchemaMigrations}), the fields are first moved back out, as
   * the last version before the move had them.
   */
  static byte[] rewrite(byte[] value, Schema current, Schema old) {
    try {
      int header = 10; // marker C3 01 and the 8-byte fingerprint
      GenericRecord r =
          new GenericDatumReader<GenericRecord>(current, current)
              .read(
                  null,
                  DecoderFactory.get().binaryDecoder(value, header, value.length - header, null));
      Schema writer = current;
      Optional<SchemaMigrations.Migration> m = SchemaMigrations.of(current.getName());
      if (m.isPresent()
          && SchemaHistory.versionsOf(current.getName()).indexOf(old) < m.get().lastBefore()) {
        r = m.get().backward(r);
        writer = m.get().lastBeforeSchema();
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder e = EncoderFactory.get().binaryEncoder(bytes, null);
      new GenericDatumWriter<GenericRecord>(writer).write(r, e);
      e.flush();
      GenericRecord resolved =
          new GenericDatumReader<GenericRecord>(writer, old)
              .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
      ByteBuffer encoded =
          new BinaryMessageEncoder<GenericRecord>(GenericData.get(), old).encode(resolved);
      byte[] out = new byte[encoded.remaining()];
      encoded.get(out);
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot rewrite a " + current.getName() + " as " + old, e);
    }
  }

  /** A schema's 64-bit CRC fingerprint as the single-object header carries it (little-endian). */
  static byte[] fingerprint(Schema schema) throws Exception {
    return SchemaNormalization.parsingFingerprint("CRC-64-AVRO", schema);
  }

  /** A RocksDB of the entries where Kafka Streams opens a persistent key-value store's. */
  static void writeRocksDb(Path db, List<KeyValue<Bytes, byte[]>> entries) throws Exception {
    Files.createDirectories(db.getParent());
    RocksDB.loadLibrary();
    try (Options options = new Options().setCreateIfMissing(true);
        RocksDB rocks = RocksDB.open(options, db.toString())) {
      for (KeyValue<Bytes, byte[]> kv : entries) {
        rocks.put(kv.key.get(), kv.value);
      }
    } catch (RocksDBException e) {
      throw new IllegalStateException("cannot write " + db, e);
    }
  }
}
