package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.projections.dcgm.ExpositionParser;
import io.schedlens.projections.dcgm.ExpositionParser.Format;
import io.schedlens.projections.dcgm.GpuSampleAssembler;
import io.schedlens.projections.dcgm.GpuSampleAssembler.KeyedGpuSample;
import io.schedlens.testsupport.Fixtures;
import io.schedlens.testsupport.Inputs;
import io.schedlens.testsupport.SharedGpuSeries;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared GPUs on the timelines (docs/design.md section 4, "Shared GPUs"): a pod on a MIG slice is
 * the slice's part of its GPU, in GPU-equivalents. The samples are dcgm-exporter's own, from
 * issue-dcgm-exporter-512 (an H100 in MIG mode, 1g.10gb instances attributed to two KServe pods)
 * and pr-dcgm-exporter-736 (an A30, a 1g.6gb instance attributed to a Triton pod), parsed as the
 * collector parses them and moved to the test's clock, a scrape every 15 s; nothing else of them is
 * changed. The pods' specs are not in those threads: each is run both ways the GPU Operator offers
 * (the mixed strategy's {@code nvidia.com/mig-1g.10gb}, the single strategy's {@code
 * nvidia.com/gpu} on a MIG node).
 */
class SharedGpuTimelinesTest {

  static final String H100_MIG = "issue-dcgm-exporter-512-h100-mig-pod-labels.prom";
  static final String A30_MIG = "pr-dcgm-exporter-736-lowercase-hostname-mig-a30.prom";
  static final String EMBEDDING = "text-embedding-predictor-00008-deployment-57946f6c67-vdtjl";
  static final String TRITON = "triton-server-f7cb5d77-95xcf";

  @TempDir Path stateDir;
  StageDriver driver;

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
      driver = null;
    }
  }

  /** The fixture's sample of {@code pod}, one every 15 s from {@code from} to {@code to}. */
  static List<GpuSample> scrapes(String fixture, String pod, double from, double to)
      throws Exception {
    GpuSample real =
        GpuSampleAssembler.assemble(
                ExpositionParser.parse(Fixtures.text("dcgm/" + fixture), Format.PROMETHEUS_TEXT),
                at(0),
                "http://10.0.0.1:9400/metrics",
                null)
            .samples()
            .stream()
            .map(KeyedGpuSample::sample)
            .filter(s -> pod.equals(s.getPod()))
            .findFirst()
            .orElseThrow();
    List<GpuSample> out = new ArrayList<>();
    for (double t = from; t <= to; t += 15) {
      out.add(
          GpuSample.newBuilder(real)
              .setTime(at(t))
              .setIntervalMs(t == from ? null : 15_000L)
              .build());
    }
    return out;
  }

  /** A pod of {@code namespace} asking for one device of {@code resource}, running 10–610 s. */
  static List<PodObservation> life(String namespace, String name, String resource) {
    Inputs.Pod p =
        new Inputs.Pod("u-" + name, namespace, name, "ReplicaSet", name + "-rs", null, 0, 1);
    List<PodObservation> out = new ArrayList<>();
    out.add(withResource(p.seen(ChangeType.ADDED, 0.2), resource));
    p.node("gpu-node-1")
        .condition("PodScheduled", "True", 1, null, null)
        .phase("Running")
        .running("server", 10, 0, true);
    out.add(withResource(p.seen(ChangeType.MODIFIED, 10.2), resource));
    p.phase("Succeeded").terminated("server", 10, 610, 0, "Completed");
    out.add(withResource(p.seen(ChangeType.MODIFIED, 610.2), resource));
    out.add(withResource(p.seen(ChangeType.DELETED, 611), resource));
    return out;
  }

  static PodObservation withResource(PodObservation o, String resource) {
    return PodObservation.newBuilder(o).setGpuResource(resource).build();
  }

  PodTimeline run(List<PodObservation> pod, List<GpuSample> samples) {
    List<Object> ordered = new ArrayList<>(pod);
    ordered.addAll(samples);
    ordered.sort(Comparator.comparingLong(StageDriver::timestampOf));
    driver =
        new StageDriver(
            TopologySettings.defaults(),
            stateDir.resolve(pod.get(0).getGpuResource() + "-" + System.nanoTime()),
            new StreamsMetrics());
    driver.pipeMarked(ordered, 30_000);
    driver.finish(at(610 + 900));
    return driver.latestByUid().get(pod.get(0).getUid());
  }

  @Test
  void shouldCountAnH100OneGSliceAsASeventhOfTheGpuInEitherStrategy() throws Exception {
    for (String resource : List.of("nvidia.com/mig-1g.10gb", "nvidia.com/gpu")) {
      PodTimeline t =
          run(
              life("model-playground-stg", EMBEDDING, resource),
              scrapes(H100_MIG, EMBEDDING, 10, 610));

      assertThat(t.getFinal$()).isTrue();
      assertThat(t.getGpuResource()).isEqualTo(resource);
      assertThat(t.getGpuShare()).as(resource).isCloseTo(1.0 / 7, within(1e-12));
      assertThat(t.getGpuShared()).isFalse();
      assertThat(t.getGpus()).isEqualTo(1);
      // 600 s on a seventh of an H100; the slice's engine was idle in every scrape
      assertThat(t.getAllocatedGpuSeconds()).isCloseTo(600.0 / 7, within(1e-9));
      assertThat(t.getBusyGpuSeconds()).isEqualTo(0.0);
      assertThat(t.getIdleAllocatedGpuSeconds() + t.getUnsampledGpuSeconds())
          .isCloseTo(600.0 / 7, within(1e-9));
      close();
    }
  }

  @Test
  void shouldCountAnA30OneGSliceAsAQuarterFromItsProfileAlone() throws Exception {
    // the A30's sample has no utilisation field: the share comes from the resource's profile
    PodTimeline t =
        run(life("default", TRITON, "nvidia.com/mig-1g.6gb"), scrapes(A30_MIG, TRITON, 10, 610));

    assertThat(t.getGpuShare()).isEqualTo(0.25);
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(150.0, within(1e-9));
    assertThat(t.getBusyGpuSeconds()).isEqualTo(0.0);
    assertThat(t.getUnsampledGpuSeconds()).isCloseTo(150.0, within(1e-9)); // no utilisation
  }

  @Test
  void shouldCountATimeSlicedReplicaAsAWholeGpuAndSaySoWhenItsReplicasAreNotKnown() {
    List<PodObservation> pod =
        life("default", "chat-0", "nvidia.com/gpu.shared").stream()
            .map(o -> PodObservation.newBuilder(o).setGpuShared(true).build())
            .toList();
    PodTimeline t = run(pod, List.of());

    assertThat(t.getGpuResource()).isEqualTo("nvidia.com/gpu.shared");
    assertThat(t.getGpuShared()).isTrue();
    assertThat(t.getGpuShare()).isEqualTo(1.0);
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(600.0, within(1e-9));
  }

  /**
   * Both pods of issue #340's GPU holding a replica of it in every scrape (virtual GPUs on) at
   * {@code utilPct} of the GPU, every 15 s from 10 to 610 s.
   */
  static List<GpuSample> virtualGpuScrapes(double utilPct) throws Exception {
    List<GpuSample> out = new ArrayList<>();
    for (double t = 10; t <= 610; t += 15) {
      for (KeyedGpuSample k :
          GpuSampleAssembler.assemble(
                  ExpositionParser.parse(
                      SharedGpuSeries.virtualGpuScrape("DCGM_FI_DEV_GPU_UTIL", utilPct, at(t)),
                      Format.PROMETHEUS_TEXT),
                  at(t),
                  "http://10.0.0.1:9400/metrics",
                  "gpu-node-1")
              .samples()) {
        out.add(GpuSample.newBuilder(k.sample()).setIntervalMs(t == 10 ? null : 15_000L).build());
      }
    }
    return out;
  }

  /** The pods' timelines by UID, their observations and samples run together. */
  Map<String, PodTimeline> runAll(List<PodObservation> pods, List<GpuSample> samples) {
    List<Object> ordered = new ArrayList<>(pods);
    ordered.addAll(samples);
    ordered.sort(Comparator.comparingLong(StageDriver::timestampOf));
    driver =
        new StageDriver(
            TopologySettings.defaults(),
            stateDir.resolve("all-" + System.nanoTime()),
            new StreamsMetrics());
    driver.pipeMarked(ordered, 30_000);
    driver.finish(at(610 + 900));
    return driver.latestByUid();
  }

  @Test
  void shouldSplitATimeSlicedGpusBusyAmongItsPodsAndCountEachOneReplica() throws Exception {
    // the node time-slices its GPU four ways (GPU feature discovery's labels); two pods hold one
    // replica each for 600 s while the GPU is 40 % busy
    List<PodObservation> pods = new ArrayList<>();
    for (String name : SharedGpuSeries.PODS) {
      for (PodObservation o : life(SharedGpuSeries.NAMESPACE, name, "nvidia.com/gpu")) {
        pods.add(
            PodObservation.newBuilder(o)
                .setGpuReplicas(4)
                .setGpuSharing("time-slicing")
                .setGpuProduct("NVIDIA-GeForce-RTX-4090-SHARED")
                .build());
      }
    }

    Map<String, PodTimeline> byUid = runAll(pods, virtualGpuScrapes(40));

    for (String name : SharedGpuSeries.PODS) {
      PodTimeline t = byUid.get("u-" + name);
      assertThat(t.getGpuResource()).isEqualTo("nvidia.com/gpu");
      assertThat(t.getGpuShared()).isTrue();
      assertThat(t.getGpuShare()).isEqualTo(0.25);
      assertThat(t.getAllocatedGpuSeconds()).isCloseTo(150.0, within(1e-9));
      // 41 samples of 15 s, the GPU 40 % busy split between its two pods: 0.2 × 615 s each
      assertThat(t.getBusyGpuSeconds()).as(name).isCloseTo(123.0, within(1e-6));
      assertThat(t.getIdleAllocatedGpuSeconds()).isCloseTo(27.0, within(1e-6));
    }
  }

  @Test
  void shouldMarkAGpuItsSamplesShowedSharedAndCountNoMoreBusyThanTheReplicaWhenReplicasAreUnknown()
      throws Exception {
    // no node labels (gpu.node-labels off): the samples alone tell the GPU is shared
    List<PodObservation> pods = new ArrayList<>();
    for (String name : SharedGpuSeries.PODS) {
      pods.addAll(life(SharedGpuSeries.NAMESPACE, name, "nvidia.com/gpu"));
    }

    Map<String, PodTimeline> byUid = runAll(pods, virtualGpuScrapes(100));

    PodTimeline t = byUid.get("u-pod1");
    assertThat(t.getGpuShared()).isTrue();
    assertThat(t.getGpuShare()).isEqualTo(1.0); // assumed: the replicas are not known
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(600.0, within(1e-9));
    // half of a fully busy GPU for 615 s of samples, within the 600 s allocated
    assertThat(t.getBusyGpuSeconds()).isCloseTo(307.5, within(1e-6));
  }

  @Test
  void shouldReadATimelineWithoutAResourceAsAWholeGpuOne() {
    // an observation from a collector older than gpuResource: nvidia.com/gpu, a whole GPU
    PodTimeline t = run(life("default", "train-0", null), List.of());

    assertThat(t.getGpuResource()).isEqualTo("nvidia.com/gpu");
    assertThat(t.getGpuShare()).isEqualTo(1.0);
    assertThat(t.getAllocatedGpuSeconds()).isCloseTo(600.0, within(1e-9));
  }
}
