package io.schedlens.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.runs.replay.PodWatchTimes;
import io.schedlens.runs.replay.RecordedInputs;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.schemas.Topics;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.testsupport.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replay has its whole input: the order of the lines within and across its files must not change
 * what it says. A recording cut into runs by pod and joined the ways people join files ({@code cat
 * run1/* run2/*}, one file per run, given in any order) replays to the same timelines as the
 * recording in time order; where the order cannot be recovered, the replay refuses the file at the
 * line that breaks it.
 */
class RecordingOrderIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RUNS = 3;

  @TempDir Path dir;

  @Test
  void shouldReplayConcatenatedRunsToTheSameTimelinesAsTheRecordingInTimeOrder() throws Exception {
    Scenario scenario = ScenarioLoader.load("day08");
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording"));
    Replay.Result ordered =
        DeterminismIT.replay(Recordings.replayArgs(rec.dir(), dir.resolve("ordered"), scenario));

    List<String> args = cut(rec.dir(), dir.resolve("cut"), true);
    args.addAll(List.of("--out", dir.resolve("concatenated").toString()));
    scenario
        .slos()
        .forEach((name, ms) -> args.addAll(List.of("--slo", name + "=" + Math.round(ms))));
    Replay.Result concatenated = DeterminismIT.replay(args);

    assertThat(ordered.deadLetters()).as("dead letters of the ordered recording").isEmpty();
    assertThat(concatenated.deadLetters()).as("dead letters of the concatenated runs").isEmpty();
    assertThat(concatenated.produced()).isEqualTo(ordered.produced());
    DeterminismIT.Outputs a = DeterminismIT.Outputs.of(ordered);
    DeterminismIT.Outputs b = DeterminismIT.Outputs.of(concatenated);
    assertThat(b.pods()).hasSameSizeAs(a.pods()).hasSize(rec.truth().size());
    assertThat(DeterminismIT.Outputs.differences(a.pods(), b.pods()))
        .as("pod timelines that differ between the ordered and the concatenated recording")
        .isEmpty();
    assertThat(DeterminismIT.Outputs.differences(a.workloads(), b.workloads()))
        .as("workload timelines that differ")
        .isEmpty();
    assertThat(DeterminismIT.Outputs.differences(a.preemptions(), b.preemptions()))
        .as("preemptions that differ")
        .isEmpty();
  }

  @Test
  void shouldRefuseConcatenatedRunsWithoutResourceVersionsAtTheLineThatGoesBackInTime()
      throws Exception {
    Scenario scenario = ScenarioLoader.load("day08");
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording"));
    cut(rec.dir(), dir.resolve("cut"), false);
    Path pods = dir.resolve("cut").resolve(ClusterRecorder.PODS);
    int firstOfSecondRun = runSizes(rec.dir().resolve(ClusterRecorder.PODS)).get(0) + 1;

    RecordedInputs replay = replayOf(List.of("--pods", pods.toString(), "--out", dir.toString()));
    String expected = pods + ":" + firstOfSecondRun + ": the watch events of this file go back";
    assertThatThrownBy(() -> replay.read(new Records(Topics.defaults(), 64 * 1024), new Unusable()))
        .isInstanceOf(PodWatchTimes.OrderBroken.class)
        .hasMessageStartingWith(expected)
        .hasMessageContaining("give each recording its own file");

    // Each run in its own file, in any order, is a watch stream of its own: accepted.
    List<String> perRun = new ArrayList<>();
    for (int run = RUNS - 1; run >= 0; run--) {
      perRun.addAll(
          List.of("--pods", dir.resolve("cut").resolve("pods-" + run + ".json").toString()));
    }
    perRun.addAll(List.of("--out", dir.toString()));
    Unusable unusable = new Unusable();
    assertThat(replayOf(perRun).read(new Records(Topics.defaults(), 64 * 1024), unusable))
        .isNotEmpty();
    assertThat(unusable.isEmpty()).isTrue();
  }

  @Test
  void shouldReadTheRealRecordingsTheSameInAnyOrderAndJoinedInOneFile() throws Exception {
    List<Path> podFiles = Fixtures.list("pods", ".json");
    List<Path> eventFiles = Fixtures.list("events", ".json");
    List<String> separate = new ArrayList<>();
    podFiles.forEach(p -> separate.addAll(List.of("--pods", p.toString())));
    eventFiles.forEach(p -> separate.addAll(List.of("--events", p.toString())));
    separate.addAll(List.of("--out", dir.toString()));

    // The same files joined into one pods file and one events file, last file first.
    StringBuilder pods = new StringBuilder();
    for (int i = podFiles.size() - 1; i >= 0; i--) {
      pods.append(Files.readString(podFiles.get(i))).append('\n');
    }
    StringBuilder events = new StringBuilder();
    for (int i = eventFiles.size() - 1; i >= 0; i--) {
      events.append(Files.readString(eventFiles.get(i))).append('\n');
    }
    Files.writeString(dir.resolve("pods.json"), pods);
    Files.writeString(dir.resolve("events.json"), events);
    List<String> joined =
        List.of(
            "--pods",
            dir.resolve("pods.json").toString(),
            "--events",
            dir.resolve("events.json").toString(),
            "--out",
            dir.toString());

    List<String> a = inputs(replayOf(separate));
    List<String> b = inputs(replayOf(joined));
    assertThat(a).isNotEmpty();
    assertThat(b).isEqualTo(a);
  }

  /** Every input a replay would produce, as sorted text: topic, time, key, value. */
  private static List<String> inputs(RecordedInputs replay) throws IOException {
    HexFormat hex = HexFormat.of();
    List<String> out = new ArrayList<>();
    for (Outgoing o : replay.read(new Records(Topics.defaults(), 64 * 1024), new Unusable())) {
      out.add(
          o.topic()
              + " "
              + o.eventTime()
              + " "
              + hex.formatHex(o.key())
              + " "
              + hex.formatHex(o.value()));
    }
    out.sort(String::compareTo);
    return out;
  }

  private static RecordedInputs replayOf(List<String> args) {
    return new RecordedInputs(
        ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, Map.of())), line -> {});
  }

  /**
   * Cuts the recording in {@code rec} into {@link #RUNS} runs by pod, each in its order, and writes
   * them to {@code out} joined: pods.json and requests.jsonl as one file of run after run (what
   * {@code cat run1/* run2/*} gives), pods-N.json each run alone, events one file per run and the
   * DCGM scrapes cut in two by scrape, both given last file first. Returns the replay's input
   * arguments.
   *
   * @param resourceVersions false: the pods' {@code metadata.resourceVersion} removed
   */
  static List<String> cut(Path rec, Path out, boolean resourceVersions) throws IOException {
    Files.createDirectories(out);
    List<List<String>> pods = byRun(rec.resolve(ClusterRecorder.PODS), n -> uidOf(n, "metadata"));
    if (!resourceVersions) {
      for (List<String> run : pods) {
        run.replaceAll(RecordingOrderIT::withoutResourceVersion);
      }
    }
    List<String> all = new ArrayList<>();
    for (int run = 0; run < RUNS; run++) {
      all.addAll(pods.get(run));
      Files.write(out.resolve("pods-" + run + ".json"), pods.get(run));
    }
    Files.write(out.resolve(ClusterRecorder.PODS), all);

    List<List<String>> events =
        byRun(
            rec.resolve(ClusterRecorder.EVENTS),
            n -> {
              String uid = uidOf(n, "regarding");
              return uid.isEmpty() ? uidOf(n, "involvedObject") : uid;
            });
    List<String> args =
        new ArrayList<>(List.of("--pods", out.resolve(ClusterRecorder.PODS).toString()));
    for (int run = RUNS - 1; run >= 0; run--) {
      Path f = out.resolve("events-" + run + ".json");
      Files.write(f, events.get(run));
      args.addAll(List.of("--events", f.toString()));
    }

    List<List<String>> requests =
        byRun(rec.resolve(ClusterRecorder.REQUESTS), n -> n.path("pod").asText());
    List<String> joined = new ArrayList<>();
    requests.forEach(joined::addAll);
    Files.write(out.resolve(ClusterRecorder.REQUESTS), joined);
    args.addAll(List.of("--requests", out.resolve(ClusterRecorder.REQUESTS).toString()));

    // DCGM: blocks (comments and the samples after them) alternate between two files by scrape.
    List<List<String>> scrapes = List.of(new ArrayList<>(), new ArrayList<>());
    List<String> block = new ArrayList<>();
    long scrape = -1;
    List<String> lines = Files.readAllLines(rec.resolve(ClusterRecorder.DCGM));
    for (String line : lines) {
      if (line.startsWith("#")
          && !block.isEmpty()
          && !block.get(block.size() - 1).startsWith("#")) {
        scrapes.get((int) (scrape % 2)).addAll(block);
        block.clear();
      }
      block.add(line);
      if (!line.startsWith("#") && !line.isBlank()) {
        String[] parts = line.trim().split(" ");
        scrape = Long.parseLong(parts[parts.length - 1]) / 15_000;
      }
    }
    if (!block.isEmpty()) {
      scrapes.get((int) (scrape % 2)).addAll(block);
    }
    for (int i = 1; i >= 0; i--) {
      Path f = out.resolve("dcgm-" + i + ".prom");
      Files.write(f, scrapes.get(i));
      args.addAll(List.of("--dcgm", f.toString()));
    }
    return args;
  }

  private static List<Integer> runSizes(Path pods) throws IOException {
    return byRun(pods, n -> uidOf(n, "metadata")).stream().map(List::size).toList();
  }

  private interface RunOf {
    String of(JsonNode line);
  }

  /** The lines of a file in {@link #RUNS} runs, by a pod's identity, each run in file order. */
  private static List<List<String>> byRun(Path file, RunOf identity) throws IOException {
    List<List<String>> runs = new ArrayList<>();
    for (int i = 0; i < RUNS; i++) {
      runs.add(new ArrayList<>());
    }
    for (String line : Files.readAllLines(file)) {
      if (line.isBlank()) {
        continue;
      }
      String id = identity.of(JSON.readTree(line));
      runs.get(Math.floorMod(id.hashCode(), RUNS)).add(line);
    }
    return runs;
  }

  private static String uidOf(JsonNode line, String field) {
    JsonNode object = line.has("object") ? line.path("object") : line;
    return object.path(field).path("uid").asText();
  }

  private static String withoutResourceVersion(String line) {
    try {
      ObjectNode n = (ObjectNode) JSON.readTree(line);
      ((ObjectNode) n.path("object").path("metadata")).remove("resourceVersion");
      return JSON.writeValueAsString(n);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
