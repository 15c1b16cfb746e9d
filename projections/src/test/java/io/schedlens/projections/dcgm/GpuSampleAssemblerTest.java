package io.schedlens.projections.dcgm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.GpuSample;
import io.schedlens.projections.dcgm.ExpositionParser.Format;
import io.schedlens.projections.dcgm.GpuSampleAssembler.KeyedGpuSample;
import io.schedlens.projections.dcgm.GpuSampleAssembler.Result;
import io.schedlens.testsupport.Fixtures;
import io.schedlens.testsupport.SharedGpuSeries;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every real dcgm-exporter sample under testdata/real/dcgm, parsed to the values it says. */
class GpuSampleAssemblerTest {

  private static final long SCRAPED_AT = 1_771_529_460_000L;

  private static Result scrape(String fixture, String targetNode) throws Exception {
    return GpuSampleAssembler.assemble(
        ExpositionParser.parse(Fixtures.text("dcgm/" + fixture), Format.PROMETHEUS_TEXT),
        SCRAPED_AT,
        "http://10.0.0.1:9400/metrics",
        targetNode);
  }

  private static GpuSample gpu(Result r, String gpu) {
    return r.samples().stream()
        .map(KeyedGpuSample::sample)
        .filter(s -> gpu.equals(s.getGpu()))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void shouldReadEightH100sWithOneAttributedToAVllmWorker() throws Exception {
    Result r = scrape("aicr-h100-eks-8gpu-exposition-2026-02-19.prom", null);

    assertThat(r.samples()).hasSize(8);
    GpuSample busy = gpu(r, "6");
    assertThat(busy.getUuid()).isEqualTo("GPU-ca1b8386-093b-60cc-349d-c4a38b9124c0");
    assertThat(busy.getModelName()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(busy.getNode()).isEqualTo("ip-100-64-171-120.ec2.internal");
    assertThat(busy.getDevice()).isEqualTo("nvidia6");
    assertThat(busy.getNamespace()).isEqualTo("dynamo-workload");
    assertThat(busy.getPod()).isEqualTo("vllm-agg-0-vllmdecodeworker-5fljt");
    assertThat(busy.getContainer()).isEqualTo("main");
    assertThat(busy.getFields())
        .containsEntry("DCGM_FI_DEV_GPU_TEMP", 31.0)
        .containsEntry("DCGM_FI_DEV_POWER_USAGE", 115.22)
        .containsEntry("DCGM_FI_DEV_GPU_UTIL", 0.0);
    assertThat(busy.getLabels())
        .containsEntry("DCGM_FI_DRIVER_VERSION", "580.105.08")
        .containsEntry("pci_bus_id", "00000000:B9:00.0");
    assertThat(busy.getTime()).isEqualTo(SCRAPED_AT);
    assertThat(r.samples())
        .filteredOn(s -> s.sample().getGpu().equals("6"))
        .extracting(KeyedGpuSample::key)
        .containsExactly("dynamo-workload/vllm-agg-0-vllmdecodeworker-5fljt");

    GpuSample idle = gpu(r, "0");
    assertThat(idle.getPod()).isNull();
    assertThat(idle.getNamespace()).isNull();
    assertThat(idle.getFields())
        .containsEntry("DCGM_FI_DEV_GPU_TEMP", 26.0)
        .containsEntry("DCGM_FI_DEV_POWER_USAGE", 67.268)
        .containsEntry("DCGM_FI_DEV_MEM_COPY_UTIL", 0.0);
    assertThat(r.samples())
        .filteredOn(s -> s.sample().getGpu().equals("0"))
        .extracting(KeyedGpuSample::key)
        .containsExactly("ip-100-64-171-120.ec2.internal/0");
    assertThat(gpu(r, "7").getFields()).doesNotContainKey("DCGM_FI_DEV_MEM_COPY_UTIL");
  }

  @Test
  void shouldTreatAnEmptyPodUidAsUnknownButKeepThePod() throws Exception {
    Result r = scrape("aicr-h100-eks-8gpu-exposition-pod_uid-2026-03-02.prom", null);

    GpuSample attributed = gpu(r, "2");
    assertThat(attributed.getPod()).isEqualTo("vllm-agg-0-vllmdecodeworker-dkb9q");
    assertThat(attributed.getPodUid()).isNull();
    assertThat(attributed.getFields())
        .containsEntry("DCGM_FI_DEV_GPU_TEMP", 29.0)
        .containsEntry("DCGM_FI_DEV_POWER_USAGE", 110.786);
    assertThat(attributed.getLabels()).doesNotContainKey("pod_uid");
  }

  @Test
  void shouldDropTheNotSupportedSentinelAndCountIt() throws Exception {
    Result r = scrape("dcgm-exporter-README-docker-quickstart-sample.prom", null);

    assertThat(r.samples())
        .singleElement()
        .satisfies(
            k -> {
              GpuSample s = k.sample();
              assertThat(s.getUuid()).isEqualTo("GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52");
              assertThat(s.getFields())
                  .containsOnly(
                      Map.entry("DCGM_FI_DEV_SM_CLOCK", 139.0),
                      Map.entry("DCGM_FI_DEV_MEM_CLOCK", 405.0));
              assertThat(s.getNode()).isNull();
              assertThat(k.key()).isEqualTo("unknown-node/0");
            });
    assertThat(r.notUsed()).containsEntry(GpuSampleAssembler.DROPPED_SENTINEL, 1);
  }

  @Test
  void shouldTreatEmptyPodLabelsAsUnattributed() throws Exception {
    Result k8s = scrape("dcgm-exporter-README-k8s-quickstart-sample.prom", null);
    assertThat(k8s.samples())
        .singleElement()
        .satisfies(k -> assertThat(k.sample().getPod()).isNull());

    Result titan = scrape("issue-dcgm-exporter-58-titanv-empty-k8s-labels.prom", null);
    assertThat(titan.samples())
        .hasSize(5)
        .allSatisfy(
            k -> {
              assertThat(k.sample().getPod()).isNull();
              assertThat(k.sample().getModelName()).isEqualTo("NVIDIA TITAN V");
            });
    assertThat(gpu(titan, "4").getFields()).containsEntry("DCGM_FI_DEV_SM_CLOCK", 1335.0);
  }

  @Test
  void shouldPreferTheDiscoveredNodeOverAnExporterPodHostname() throws Exception {
    Result titan = scrape("issue-dcgm-exporter-58-titanv-empty-k8s-labels.prom", "gpu-node-3");

    assertThat(gpu(titan, "0").getNode()).isEqualTo("gpu-node-3");
    assertThat(gpu(titan, "0").getLabels()).containsEntry("Hostname", "dcgm-exporter-lcxpl");
  }

  @Test
  void shouldAttributeTwoL40sToOnePodAndLeaveAThirdWithAbsentLabelsUnattributed() throws Exception {
    Result r = scrape("issue-DCGM-226-l40s-pod-labels.prom", null);

    assertThat(r.samples())
        .extracting(KeyedGpuSample::key)
        .containsExactly("redacted/tensorflow-0", "redacted/tensorflow-0", "l40s.example.com/2");
    assertThat(gpu(r, "1").getContainer()).isEqualTo("tensorflow");
    assertThat(gpu(r, "2").getFields()).containsEntry("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.0);
  }

  @Test
  void shouldReadOldLabelNamesLowerCaseMetricNamesAndMigInstances() throws Exception {
    Result r = scrape("issue-dcgm-exporter-272-a100-mig-old-label-names.prom", null);

    assertThat(r.samples()).hasSize(3);
    GpuSample first = r.samples().get(0).sample();
    assertThat(first.getUuid()).isEqualTo("GPU-ed1353d6-52ba-8793-7230-4d5d3eb68167");
    assertThat(first.getMigProfile()).isEqualTo("3g.40gb");
    assertThat(first.getMigInstanceId()).isEqualTo("1");
    assertThat(first.getPod()).isNull();
    assertThat(first.getFields()).containsOnlyKeys("DCGM_FI_PROF_GR_ENGINE_ACTIVE");
    assertThat(r.samples().get(1).sample().getMigProfile()).isEqualTo("4g.40gb");
    assertThat(r.samples().get(1).key()).isEqualTo("unknown-node/0/mig-2");
  }

  @Test
  void shouldAttributeMigInstancesOfOneH100ToDifferentPods() throws Exception {
    Result r = scrape("issue-dcgm-exporter-512-h100-mig-pod-labels.prom", null);

    assertThat(r.samples())
        .extracting(KeyedGpuSample::key)
        .containsExactly(
            "model-playground-stg/text-embedding-predictor-00008-deployment-57946f6c67-vdtjl",
            "gsrh100-074/0/mig-8",
            "model-playground-stg/tts-predictor-00011-deployment-5554f75554-8j8pl");
    assertThat(r.samples().get(0).sample().getMigInstanceId()).isEqualTo("7");
    assertThat(r.samples().get(0).sample().getContainer()).isEqualTo("kserve-container");
  }

  @Test
  void shouldReadLowerCaseHostnameOfNewerExporters() throws Exception {
    Result r = scrape("pr-dcgm-exporter-736-lowercase-hostname-mig-a30.prom", null);

    GpuSample rtx = gpu(r, "1");
    assertThat(rtx.getNode()).isEqualTo("dcgm-exporter-wwwjh");
    assertThat(rtx.getModelName()).isEqualTo("NVIDIA RTX 2000 Ada Generation");
    assertThat(rtx.getFields())
        .containsEntry("DCGM_FI_DEV_DEC_UTIL", 46.0)
        .containsEntry("DCGM_FI_DEV_ENC_UTIL", 9.0)
        .containsEntry("DCGM_FI_DEV_FB_FREE", 11275.0);
    GpuSample a30 = gpu(r, "2");
    assertThat(a30.getMigProfile()).isEqualTo("1g.6gb");
    assertThat(a30.getPod()).isEqualTo("triton-server-f7cb5d77-95xcf");
    assertThat(a30.getFields()).containsEntry("DCGM_FI_DEV_FB_FREE", 2207.0);
  }

  @Test
  void shouldReadH100PodLabelsOnGpuZeroOnly() throws Exception {
    Result r = scrape("issue-dcgm-exporter-490-h100-pod-labels.prom", null);

    assertThat(r.samples())
        .extracting(KeyedGpuSample::key)
        .containsExactly(
            "default/dcgmproftester2",
            "computeinstance-e00c1p6dpy98xytphp/1",
            "computeinstance-e00c1p6dpy98xytphp/2");
    assertThat(gpu(r, "0").getLabels()).containsEntry("DCGM_FI_DRIVER_VERSION", "550.144.03");
  }

  @Test
  void shouldUseOnlyExportedLabelsForAttributionWhenSamplesWentThroughPrometheus()
      throws Exception {
    Result util =
        GpuSampleAssembler.assemble(
            PrometheusQueryResultParser.parse(
                Fixtures.text(
                    "dcgm/aicr-h100-eks-prometheus-query-gpu-util-exported-labels-2026-02-19.json")),
            0L,
            "prometheus",
            null);
    Result fb =
        GpuSampleAssembler.assemble(
            PrometheusQueryResultParser.parse(
                Fixtures.text(
                    "dcgm/aicr-h100-eks-prometheus-query-fb-used-exported-labels-2026-02-19.json")),
            0L,
            "prometheus",
            null);

    assertThat(util.samples()).hasSize(8);
    assertThat(util.samples())
        .filteredOn(k -> k.sample().getPod() != null)
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.key()).isEqualTo("dynamo-workload/vllm-agg-0-vllmdecodeworker-5fljt");
              assertThat(k.sample().getContainer()).isEqualTo("main");
              assertThat(k.sample().getGpu()).isEqualTo("6");
              assertThat(k.sample().getTime()).isEqualTo(1_771_529_464_570L);
              assertThat(k.sample().getFields()).containsEntry("DCGM_FI_DEV_GPU_UTIL", 0.0);
              assertThat(k.sample().getLabels()).doesNotContainKeys("job", "instance", "pod");
            });
    // The exporter's own pod is not a workload: 74 GB of framebuffer held, 0 % busy.
    GpuSample held =
        fb.samples().stream()
            .map(KeyedGpuSample::sample)
            .filter(s -> "6".equals(s.getGpu()))
            .findFirst()
            .orElseThrow();
    assertThat(held.getFields().get("DCGM_FI_DEV_FB_USED")).isCloseTo(74198.0, within(0.1));
    assertThat(fb.samples()).filteredOn(k -> k.sample().getPod() != null).hasSize(1);
  }

  @Test
  void shouldSplitARecordingOfSeveralTimestampedScrapes() throws Exception {
    String recording =
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\",Hostname=\"n1\",namespace=\"ai-lab\",pod=\"p\"} 80 1700000000000\n"
            + "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-1\",Hostname=\"n1\",namespace=\"ai-lab\",pod=\"p\"} 1000 1700000000000\n"
            + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\",Hostname=\"n1\",namespace=\"ai-lab\",pod=\"p\"} 40 1700000015000\n";

    Result r =
        GpuSampleAssembler.assemble(
            ExpositionParser.parse(recording, Format.PROMETHEUS_TEXT), 0L, "file", null);

    assertThat(r.samples())
        .extracting(k -> k.sample().getTime())
        .containsExactly(1_700_000_000_000L, 1_700_000_015_000L);
    assertThat(r.samples().get(0).sample().getFields()).hasSize(2);
    assertThat(r.samples().get(1).sample().getFields())
        .containsOnly(Map.entry("DCGM_FI_DEV_GPU_UTIL", 40.0));
  }

  private static Result assemble(String exposition) throws ExpositionFormatException {
    return GpuSampleAssembler.assemble(
        ExpositionParser.parse(exposition, Format.PROMETHEUS_TEXT), SCRAPED_AT, "file", null);
  }

  @Test
  void shouldCountThePodsAScrapeAttributedOneGpuTo() throws Exception {
    // issue #340's GPU and pods, both holding a replica in one scrape (virtual GPUs on)
    Result r = assemble(SharedGpuSeries.virtualGpuScrape("DCGM_FI_DEV_GPU_UTIL", 60, SCRAPED_AT));

    assertThat(r.samples()).hasSize(2);
    assertThat(r.samples())
        .allSatisfy(
            k -> {
              assertThat(k.sample().getUuid()).isEqualTo("GPU-longgui");
              assertThat(k.sample().getHolders()).isEqualTo(2);
              assertThat(k.sample().getOwnUtilisation()).isFalse();
              assertThat(k.sample().getLabels()).containsKey("vgpu");
            })
        .extracting(k -> k.sample().getPod())
        .containsExactlyInAnyOrderElementsOf(SharedGpuSeries.PODS);
  }

  @Test
  void shouldCountOneHolderWhenTheExporterAttributesTheGpuToOnePodAScrape() throws Exception {
    // without virtual GPUs: each scrape names one of the pods ("every sample a different metric")
    for (int i = 0; i < SharedGpuSeries.PODS.size(); i++) {
      Result r =
          assemble(SharedGpuSeries.oneHolderScrape(i, "DCGM_FI_DEV_GPU_UTIL", 60, SCRAPED_AT));
      assertThat(r.samples())
          .singleElement()
          .satisfies(
              k -> {
                assertThat(k.sample().getHolders()).isEqualTo(1);
                assertThat(k.sample().getOwnUtilisation()).isFalse();
              });
    }
  }

  @Test
  void shouldTellThePodsOwnUtilisationWhereTheExporterMeasuredItsProcesses() throws Exception {
    // 4.5.3-4.8.2 with virtual GPUs: GPU_UTIL per pod from its processes, the device's unattributed
    // beside them; other fields still the device's, copied to each pod
    String scrape =
        SharedGpuSeries.virtualGpuScrape("DCGM_FI_DEV_GPU_UTIL", 25, SCRAPED_AT)
            + SharedGpuSeries.virtualGpuScrape("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.7, SCRAPED_AT)
            + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-longgui\",Hostname=\"worker1\"} 70 "
            + SCRAPED_AT
            + "\n";

    Result r = assemble(scrape);

    assertThat(r.samples()).hasSize(3);
    assertThat(r.samples())
        .filteredOn(k -> k.sample().getPod() != null)
        .hasSize(2)
        .allSatisfy(
            k -> {
              assertThat(k.sample().getHolders()).isEqualTo(2);
              assertThat(k.sample().getOwnUtilisation()).isTrue();
            });
    assertThat(r.samples())
        .filteredOn(k -> k.sample().getPod() == null)
        .singleElement()
        .satisfies(k -> assertThat(k.sample().getHolders()).isEqualTo(1));
  }

  @Test
  void shouldParseEveryRealExpositionFixture() throws Exception {
    List<Path> files = Fixtures.list("dcgm", ".prom");
    assertThat(files).hasSizeGreaterThanOrEqualTo(10);
    for (Path f : files) {
      Result r = scrape(f.getFileName().toString(), null);
      assertThat(r.samples())
          .as(f.getFileName().toString())
          .isNotEmpty()
          .allSatisfy(k -> assertThat(k.sample().getUuid()).startsWith("GPU-"));
    }
  }
}
