package io.schedlens.simulator.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScenarioLoaderTest {

  static final String MINIMAL =
      """
      name: tiny
      duration: 10m
      nodes: [{name: n, gpus: 1}]
      arms: [{name: control, priorityClasses: false}]
      workloads:
        - {name: job, kind: Job, work: 1m}
      """;

  @Test
  void shouldLoadTheBundledScenarios() {
    Scenario day08 = ScenarioLoader.load("day08");
    assertThat(day08.repeats()).isEqualTo(3);
    assertThat(day08.totalGpus()).isEqualTo(1);
    assertThat(day08.arms()).extracting(Scenario.Arm::name).containsExactly("control", "treatment");
    assertThat(day08.workloads())
        .extracting(Scenario.Workload::name)
        .containsExactly("interactive-inference", "embedding-batch", "asr-batch");
    assertThat(day08.slos()).containsEntry("chat", 1000.0);
    assertThat(ScenarioLoader.load("pool").totalGpus()).isEqualTo(32);
  }

  @Test
  void shouldFillInDefaults() {
    Scenario s = ScenarioLoader.parse("tiny.yaml", MINIMAL);
    assertThat(s.namespace()).isEqualTo("default");
    assertThat(s.gap()).isEqualTo(Duration.ofMinutes(5));
    Scenario.Workload job = s.workloads().get(0);
    assertThat(job.template().terminationGracePeriod()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.spec()).isInstanceOf(Scenario.JobSpec.class);
    Scenario.JobSpec spec = (Scenario.JobSpec) job.spec();
    assertThat(spec.backoffLimit()).isEqualTo(6);
    assertThat(spec.parallelism()).isEqualTo(1);
  }

  @Test
  void shouldRotateTheArmOrderOverRepeats() {
    Scenario s = ScenarioLoader.load("day08");
    assertThat(s.armOrder(1))
        .extracting(Scenario.Arm::name)
        .containsExactly("control", "treatment");
    assertThat(s.armOrder(2))
        .extracting(Scenario.Arm::name)
        .containsExactly("treatment", "control");
  }

  @Test
  void shouldNameTheFieldThatIsWrong() {
    assertThatThrownBy(
            () -> ScenarioLoader.parse("t.yaml", MINIMAL.replace("work: 1m", "work: soon")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("t.yaml: workloads[0].work: expected a duration like 90s, 20m, 1h, got 'soon'");
    assertThatThrownBy(
            () -> ScenarioLoader.parse("t.yaml", MINIMAL.replace("gpus: 1}", "gpus: 1, gpu: 2}")))
        .hasMessageStartingWith("t.yaml: nodes[0].gpu: unknown field");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "t.yaml", MINIMAL.replace("kind: Job,", "kind: Job, priorityClass: gold,")))
        .hasMessageContaining("workloads[0].priorityClass: 'gold' is not one of priorityClasses");
    assertThatThrownBy(
            () -> ScenarioLoader.parse("t.yaml", MINIMAL.replace("kind: Job", "kind: CronJob")))
        .hasMessage(
            "t.yaml: workloads[0].kind: must be Deployment, StatefulSet, Job or JobSet, got 'CronJob'");
    assertThatThrownBy(
            () -> ScenarioLoader.parse("t.yaml", MINIMAL.replace("name: tiny", "name: Tiny_1")))
        .hasMessageContaining("'Tiny_1' is not a Kubernetes name");
    assertThatThrownBy(() -> ScenarioLoader.parse("t.yaml", "nodes: [\n"))
        .hasMessageStartingWith("t.yaml: not valid YAML");
    assertThatThrownBy(() -> ScenarioLoader.load("no-such-scenario"))
        .hasMessageContaining(
            "neither a bundled scenario [day08, day08-disruptions, node-failure, pool, dense, gangs,"
                + " kueue, shared] nor a readable file");
  }

  @Test
  void shouldReadAPoolsMigLayoutAndTimeSlicingAndAWorkloadsGpuResource() {
    Scenario s = ScenarioLoader.load("shared");
    Scenario.NodePool h100 = s.nodes().get(0);
    assertThat(h100.layout()).isEqualTo(new Scenario.GpuLayout("1g.10gb", 2, 1));
    assertThat(h100.devices("nvidia.com/mig-1g.10gb")).isEqualTo(14);
    assertThat(h100.devices("nvidia.com/gpu")).isEqualTo(6);
    assertThat(s.nodes().get(1).devices("nvidia.com/gpu")).isEqualTo(4);
    assertThat(s.workloads().get(0).template().gpuResource()).isEqualTo("nvidia.com/mig-1g.10gb");
    assertThat(s.workloads().get(2).template().gpuResource()).isEqualTo("nvidia.com/gpu");

    String mig = MINIMAL.replace("gpus: 1}", "gpus: 1, mig: {profile: 1g.10gb}}");
    assertThatThrownBy(() -> ScenarioLoader.parse("t.yaml", mig))
        .as("the Job asks for nvidia.com/gpu; the node's only GPU is partitioned")
        .hasMessage("t.yaml: workloads[0].gpus: 1 GPUs fit on no node (the largest has 0)");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "t.yaml",
                    mig.replace("work: 1m}", "work: 1m, gpuResource: nvidia.com/mig-3g.40gb}")))
        .hasMessage(
            "t.yaml: workloads[0].gpus: 1 of nvidia.com/mig-3g.40gb fit on no node (the most a"
                + " node offers is 0)");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "t.yaml", MINIMAL.replace("gpus: 1}", "gpus: 1, mig: {profile: 9x.1gb}}")))
        .hasMessageContaining("nodes[0].mig.profile: '9x.1gb' is not a MIG profile");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "t.yaml", MINIMAL.replace("work: 1m}", "work: 1m, gpuResource: amd.com/gpu}")))
        .hasMessageContaining("workloads[0].gpuResource: must be nvidia.com/gpu or a MIG profile");
  }

  static final String QUEUED =
      """
      name: tiny
      duration: 10m
      nodes: [{name: n, gpus: 4}]
      arms: [{name: control, priorityClasses: false}]
      kueue:
        clusterQueues:
          - {name: cq-a, cohort: batch, nominalGpus: 2, reclaimWithinCohort: Any}
          - {name: cq-b, cohort: batch, nominalGpus: 2}
        localQueues: [{name: a, clusterQueue: cq-a}]
        workloadPriorityClasses: [{name: high, value: 10}]
      workloads:
        - {name: job, kind: Job, work: 1m, queue: a, workloadPriorityClass: high, parallelism: 2}
      """;

  @Test
  void shouldReadKueueAndRefuseWhatKueueWouldNeverAdmit() {
    Kueue k = ScenarioLoader.parse("q.yaml", QUEUED).kueue();
    assertThat(k.installed()).isTrue();
    assertThat(k.clusterQueueOf("a").name()).isEqualTo("cq-a");
    assertThat(k.clusterQueues().get(1).withinClusterQueue())
        .as("Kueue's default")
        .isEqualTo("Never");
    assertThat(k.clusterQueues().get(1).reclaimWithinCohort()).isEqualTo("Never");
    assertThat(ScenarioLoader.parse("t.yaml", MINIMAL).kueue().installed()).isFalse();
    assertThatThrownBy(
            () -> ScenarioLoader.parse("q.yaml", QUEUED.replace("queue: a,", "queue: b,")))
        .hasMessage("q.yaml: workloads[0].queue: 'b' is not one of kueue.localQueues [a]");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse("q.yaml", QUEUED.replace("parallelism: 2", "parallelism: 5")))
        .hasMessageContaining(
            "workloads[0].parallelism: 5 GPUs at once never fit ClusterQueue cq-a (at most 4");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "q.yaml", QUEUED.replace("clusterQueue: cq-a", "clusterQueue: x")))
        .hasMessageContaining("kueue.localQueues[0].clusterQueue: 'x' is not one of clusterQueues");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "q.yaml",
                    QUEUED.replace("reclaimWithinCohort: Any", "reclaimWithinCohort: All")))
        .hasMessageContaining("kueue.clusterQueues[0].reclaimWithinCohort: must be one of");
    assertThatThrownBy(
            () ->
                ScenarioLoader.parse(
                    "q.yaml",
                    QUEUED.replace("workloadPriorityClass: high", "workloadPriorityClass: low")))
        .hasMessageContaining("workloads[0].workloadPriorityClass: 'low' is not one of");
  }
}
