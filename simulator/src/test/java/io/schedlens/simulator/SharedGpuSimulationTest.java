package io.schedlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.live.ClusterRecorder;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled {@code shared} scenario recorded as from a cluster, held to how the GPU Operator, the
 * device plugin and dcgm-exporter share GPUs: pods fit the devices of the resource they ask for,
 * never more than a node offers; the nodes carry GPU feature discovery's labels; dcgm-exporter
 * reports a MIG instance on its own without {@code DCGM_FI_DEV_GPU_UTIL}, and a time-sliced GPU
 * once per pod holding a replica, all with the GPU's value; the ground truth gives each pod the
 * part of a GPU it held.
 */
class SharedGpuSimulationTest {

  static final long ORIGIN = 1_767_225_600_000L;

  @TempDir static Path dir;
  static List<PodTruth> truth;
  static String dcgm;
  static String objects;
  static String pods;

  @BeforeAll
  static void simulate() throws Exception {
    Scenario s = ScenarioLoader.load("shared");
    Simulator sim = new Simulator(s, ORIGIN);
    try (ClusterRecorder r =
        new ClusterRecorder(dir, sim.gpus(), sim.nodes(), ORIGIN, s.scrapeInterval().toMillis())) {
      truth = sim.run(r, r, r, Simulator.Progress.NONE);
    }
    dcgm = Files.readString(dir.resolve(ClusterRecorder.DCGM));
    objects = Files.readString(dir.resolve(ClusterRecorder.OBJECTS));
    pods = Files.readString(dir.resolve(ClusterRecorder.PODS));
  }

  static List<PodTruth> of(String workload) {
    return truth.stream().filter(t -> t.workload().equals(workload)).toList();
  }

  @Test
  void shouldGiveEachPodThePartOfAGpuItsDeviceIs() {
    assertThat(of("chat-small"))
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.gpuShare()).isCloseTo(1.0 / 7, within(1e-12)));
    assertThat(of("embedder"))
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.gpuShare()).isEqualTo(0.25));
    assertThat(of("train")).isNotEmpty().allSatisfy(t -> assertThat(t.gpuShare()).isEqualTo(1.0));
    assertThat(of("chat-small")).allSatisfy(t -> assertThat(t.node()).startsWith("h100-"));
    assertThat(of("embedder").stream().filter(t -> t.node() != null))
        .allSatisfy(t -> assertThat(t.node()).isEqualTo("t4-1"));
    // the T4's four replicas hold at most four embedders: with four wanted from 8 m, all ran
    assertThat(of("embedder").stream().filter(t -> t.runningAt() != null).count())
        .isGreaterThanOrEqualTo(4);
  }

  @Test
  void shouldAskForTheResourceAndWriteTheNodesWithGpuFeatureDiscoverysLabels() {
    assertThat(pods).contains("\"nvidia.com/mig-1g.10gb\":\"1\"");
    assertThat(objects)
        .contains("\"nvidia.com/mig-1g.10gb.count\":\"14\"")
        .contains("\"nvidia.com/gpu.count\":\"6\"")
        .contains("\"nvidia.com/gpu.replicas\":\"4\"")
        .contains("\"nvidia.com/gpu.sharing-strategy\":\"time-slicing\"")
        .contains("\"nvidia.com/gpu.product\":\"Tesla-T4-SHARED\"");
  }

  @Test
  void shouldReportEachMigInstanceOnItsOwnWithoutGpuUtil() {
    assertThat(dcgm).contains("GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"7\"");
    assertThat(dcgm.lines().filter(l -> l.contains("GPU_I_PROFILE")))
        .noneMatch(l -> l.startsWith("DCGM_FI_DEV_GPU_UTIL"))
        .anyMatch(
            l -> l.startsWith("DCGM_FI_PROF_GR_ENGINE_ACTIVE") && l.contains("pod=\"chat-small-"));
  }

  /** A scrape's GR_ENGINE_ACTIVE line of the T4 per pod holding a replica: {time: {pod: value}}. */
  static Map<String, Map<String, String>> t4ByTime() {
    Pattern line =
        Pattern.compile(
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE\\{.*Hostname=\"t4-1\".*pod=\"([^\"]+)\",vgpu=\"(\\d)\"\\} (\\S+) (\\d+)");
    Map<String, Map<String, String>> byTime = new TreeMap<>();
    dcgm.lines()
        .forEach(
            l -> {
              Matcher m = line.matcher(l);
              if (m.matches()) {
                byTime
                    .computeIfAbsent(m.group(4), k -> new HashMap<>())
                    .put(m.group(1), m.group(3));
              }
            });
    return byTime;
  }

  @Test
  void shouldReportATimeSlicedGpuOncePerHolderWithTheGpusValue() {
    Map<String, Map<String, String>> byTime = t4ByTime();
    List<Map<String, String>> shared =
        byTime.values().stream().filter(pods -> pods.size() >= 2).toList();
    assertThat(shared).as("scrapes with two or more embedders on the T4").isNotEmpty();
    assertThat(shared).allSatisfy(pods -> assertThat(new HashSet<>(pods.values())).hasSize(1));
    assertThat(byTime.values().stream().mapToInt(Map::size).max().orElse(0)).isLessThanOrEqualTo(4);
  }
}
