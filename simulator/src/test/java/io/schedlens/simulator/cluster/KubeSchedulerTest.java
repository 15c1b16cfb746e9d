package io.schedlens.simulator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.simulator.cluster.KubeScheduler.Bind;
import io.schedlens.simulator.cluster.KubeScheduler.Decision;
import io.schedlens.simulator.cluster.KubeScheduler.Preempt;
import io.schedlens.simulator.cluster.KubeScheduler.Unschedulable;
import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.PodTemplate;
import io.schedlens.simulator.scenario.Scenario.Taint;
import io.schedlens.simulator.scenario.Scenario.Toleration;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler's decisions as its documentation and source describe them: filter order and
 * FitError wording, least-allocated scoring, DefaultPreemption's victim selection and node choice,
 * nominated pods holding their place, preemptionPolicy Never, waiting for terminating victims.
 */
class KubeSchedulerTest {

  static final Taint GPU_TAINT = new Taint("nvidia.com/gpu", "present", "NoSchedule");
  static final Toleration TOLERATE_GPU =
      new Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule");

  final List<SimPod> pods = new ArrayList<>();
  int seq;

  static SimNode node(String name, int gpus, Taint... taints) {
    List<String> uuids = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      uuids.add("GPU-" + name + "-" + i);
    }
    return new SimNode(name, gpus, "H100", Map.of("pool", "gpu"), List.of(taints), uuids);
  }

  static Workload workload(int gpus, List<Toleration> tolerations, Map<String, String> selector) {
    return new Workload(
        "w",
        null,
        new PodTemplate(
            gpus,
            "img",
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            selector,
            tolerations,
            false),
        null,
        new JobSpec(
            null,
            1,
            1,
            Duration.ofMinutes(1),
            0,
            Duration.ZERO,
            Duration.ZERO,
            6,
            false,
            Duration.ofSeconds(60)));
  }

  SimPod pod(int priority, int gpus, String policy) {
    SimPod p =
        new SimPod(
            "uid-" + (++seq),
            "ns",
            "p" + seq,
            "p",
            workload(gpus, List.of(TOLERATE_GPU), Map.of()),
            "Job",
            "j",
            "juid",
            null,
            priority,
            policy,
            1000L * seq);
    pods.add(p);
    return p;
  }

  SimPod running(String node, int priority, int gpus) {
    SimPod p = pod(priority, gpus, "PreemptLowerPriority");
    p.node = node;
    p.phase = "Running";
    p.kubeletStartedAt = 10_000L * seq - 2_000;
    p.containerStartedAt = 10_000L * seq;
    return p;
  }

  /**
   * A running pod the kubelet acknowledged at {@code acknowledged}, its container up at {@code
   * started}.
   */
  SimPod running(String node, int priority, long acknowledged, long started) {
    SimPod p = running(node, priority, 1);
    p.kubeletStartedAt = acknowledged;
    p.containerStartedAt = started;
    return p;
  }

  /** A pod of priority 0 asking for one device of {@code resource}. */
  SimPod pod(String resource, String node) {
    Workload w = workload(1, List.of(TOLERATE_GPU), Map.of());
    PodTemplate t = w.template();
    Workload of =
        new Workload(
            w.name(),
            null,
            new PodTemplate(
                1,
                t.image(),
                t.pull(),
                t.terminationGracePeriod(),
                t.stopTime(),
                t.nodeSelector(),
                t.tolerations(),
                false,
                resource),
            null,
            w.spec());
    SimPod p =
        new SimPod(
            "uid-" + (++seq),
            "ns",
            "p" + seq,
            "p",
            of,
            "Job",
            "j",
            "juid",
            null,
            0,
            "PreemptLowerPriority",
            1000L * seq);
    p.node = node;
    if (node != null) {
      p.phase = "Running";
    }
    pods.add(p);
    return p;
  }

  @Test
  void shouldFitAPodToTheDevicesOfTheResourceItAsksFor() {
    // an H100 node, one of its two GPUs as seven 1g.10gb instances (the mixed strategy)
    SimNode mixed =
        new SimNode(
            "m",
            2,
            "NVIDIA H100 80GB HBM3",
            Map.of(),
            List.of(),
            List.of("GPU-m-0", "GPU-m-1"),
            new GpuLayout("1g.10gb", 1, 1));
    assertThat(mixed.devices("nvidia.com/mig-1g.10gb")).isEqualTo(7);
    assertThat(mixed.devices("nvidia.com/gpu")).isEqualTo(1);
    for (int i = 0; i < 7; i++) {
      pod("nvidia.com/mig-1g.10gb", "m");
    }

    assertThat(KubeScheduler.schedule(pod("nvidia.com/mig-1g.10gb", null), List.of(mixed), pods))
        .isEqualTo(
            new Unschedulable(
                "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.10gb. preemption: 0/1"
                    + " nodes are available: 1 No preemption victims found for incoming pod."));
    assertThat(KubeScheduler.schedule(pod("nvidia.com/gpu", null), List.of(mixed), pods))
        .as("the whole GPU is another resource, still free")
        .isEqualTo(new Bind("m"));
  }

  @Test
  void shouldOfferEachTimeSlicedGpuAsManyTimesAsItsReplicas() {
    SimNode t4 =
        new SimNode(
            "t", 1, "Tesla T4", Map.of(), List.of(), List.of("GPU-t-0"), new GpuLayout(null, 0, 4));
    assertThat(t4.devices("nvidia.com/gpu")).isEqualTo(4);
    assertThat(t4.share("nvidia.com/gpu")).isEqualTo(0.25);
    assertThat(t4.device("nvidia.com/gpu", 3)).isEqualTo(new SimNode.Device(0, null, 3));
    assertThat(t4.gpuLabels())
        .containsEntry("nvidia.com/gpu.replicas", "4")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "time-slicing")
        .containsEntry("nvidia.com/gpu.product", "Tesla-T4-SHARED");
  }

  @Test
  void shouldBindToTheLeastAllocatedNodeThatFits() {
    List<SimNode> nodes = List.of(node("a", 4, GPU_TAINT), node("b", 4, GPU_TAINT));
    running("a", 0, 2);
    Decision d = KubeScheduler.schedule(pod(0, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(d).isEqualTo(new Bind("b"));
  }

  @Test
  void shouldWriteTheFitErrorAsKubeSchedulerDoes() {
    SimPod p =
        new SimPod(
            "u",
            "ns",
            "intolerant",
            "x",
            workload(1, List.of(), Map.of()),
            "Job",
            "j",
            "ju",
            null,
            0,
            "PreemptLowerPriority",
            0);
    pods.add(p);
    List<SimNode> nodes = List.of(node("a", 1, GPU_TAINT), node("b", 1));
    running("b", 0, 1);
    Decision d = KubeScheduler.schedule(p, nodes, pods);
    assertThat(d)
        .isEqualTo(
            new Unschedulable(
                "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated"
                    + " taint {nvidia.com/gpu: present}. preemption: 0/2 nodes are available: 1 No"
                    + " preemption victims found for incoming pod, 1 Preemption is not helpful for"
                    + " scheduling."));
  }

  @Test
  void shouldNameANodeSelectorMismatch() {
    SimPod p =
        new SimPod(
            "u",
            "ns",
            "picky",
            "x",
            workload(1, List.of(TOLERATE_GPU), Map.of("pool", "a100")),
            "Job",
            "j",
            "ju",
            null,
            0,
            "PreemptLowerPriority",
            0);
    pods.add(p);
    Decision d = KubeScheduler.schedule(p, List.of(node("a", 1)), pods);
    assertThat(((Unschedulable) d).note())
        .startsWith(
            "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.");
  }

  @Test
  void shouldPreemptOnTheNodeWhoseVictimsHaveTheLowestPriority() {
    List<SimNode> nodes = List.of(node("a", 1), node("b", 1));
    SimPod low = running("a", 500, 1);
    running("b", 1000, 1);
    Decision d = KubeScheduler.schedule(pod(100_000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(d).isInstanceOf(Preempt.class);
    Preempt p = (Preempt) d;
    assertThat(p.node()).isEqualTo("a");
    assertThat(p.victims()).containsExactly(low);
    assertThat(p.note()).isEqualTo("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
  }

  @Test
  void shouldPreferFewerVictimsAtEqualPriority() {
    List<SimNode> nodes = List.of(node("a", 2), node("b", 2));
    running("a", 100, 1);
    running("a", 100, 1);
    SimPod big = running("b", 100, 2);
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 2, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.node()).isEqualTo("b");
    assertThat(p.victims()).containsExactly(big);
  }

  @Test
  void shouldReprieveTheMostImportantPodsThatNeedNotGo() {
    List<SimNode> nodes = List.of(node("a", 2));
    SimPod cheap = running("a", 100, 1);
    running("a", 200, 1);
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.victims()).containsExactly(cheap);
  }

  @Test
  void shouldPreemptOnTheNodeWhoseVictimsTheKubeletAcknowledgedLatest() {
    // kube-scheduler's GetPodStartTime reads status.startTime, set when the kubelet acknowledges
    // the pod, before the image pull: a's pod was acknowledged first but, its pull long, started
    // its container last. b's victims "started" later, so b loses the least work.
    List<SimNode> nodes = List.of(node("a", 1), node("b", 1));
    running("a", 100, 1_000, 30_000);
    SimPod b = running("b", 100, 5_000, 6_000);
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.node()).isEqualTo("b");
    assertThat(p.victims()).containsExactly(b);
  }

  @Test
  void shouldReadStartTimesToTheSecondAsTheApiHoldsThem() {
    // status.startTime is RFC 3339 to the second: 5.1 s and 5.9 s tie, and the first node stays
    List<SimNode> nodes = List.of(node("a", 1), node("b", 1));
    SimPod a = running("a", 100, 5_100, 6_000);
    running("b", 100, 5_900, 7_000);
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.node()).isEqualTo("a");
    assertThat(p.victims()).containsExactly(a);
  }

  @Test
  void shouldReprieveTheEarlierAcknowledgedPodOfEqualPriority() {
    List<SimNode> nodes = List.of(node("a", 2));
    running("a", 100, 1_000, 30_000);
    SimPod later = running("a", 100, 5_000, 6_000);
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.victims()).containsExactly(later);
  }

  @Test
  void shouldTakeAPodTheKubeletHasNotAcknowledgedAsStartedNow() {
    List<SimNode> nodes = List.of(node("a", 2));
    running("a", 100, 1_000, 2_000);
    SimPod bound = running("a", 100, 1);
    bound.kubeletStartedAt = null;
    bound.containerStartedAt = null;
    Preempt p = (Preempt) KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(p.victims()).containsExactly(bound);
  }

  @Test
  void shouldNeverPreemptPodsOfEqualOrHigherPriority() {
    List<SimNode> nodes = List.of(node("a", 1));
    running("a", 1000, 1);
    Decision d = KubeScheduler.schedule(pod(1000, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(((Unschedulable) d).note())
        .endsWith(
            "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  }

  @Test
  void shouldHonourPreemptionPolicyNever() {
    List<SimNode> nodes = List.of(node("a", 1));
    running("a", 0, 1);
    Decision d = KubeScheduler.schedule(pod(100_000, 1, "Never"), nodes, pods);
    assertThat(((Unschedulable) d).note())
        .isEqualTo(
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: not eligible due"
                + " to preemptionPolicy=Never.");
  }

  @Test
  void shouldWaitForItsVictimsToTerminateRatherThanPreemptAgain() {
    List<SimNode> nodes = List.of(node("a", 1));
    SimPod victim = running("a", 0, 1);
    victim.preempted = true;
    victim.deletionRequestedAt = 5_000L;
    SimPod preemptor = pod(100_000, 1, "PreemptLowerPriority");
    preemptor.nominatedNode = "a";
    Decision d = KubeScheduler.schedule(preemptor, nodes, pods);
    assertThat(((Unschedulable) d).note())
        .isEqualTo(
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: not eligible due"
                + " to a terminating pod on the nominated node.");
  }

  @Test
  void shouldKeepANominatedNodeForTheHigherPriorityPod() {
    List<SimNode> nodes = List.of(node("a", 1));
    SimPod nominated = pod(100_000, 1, "PreemptLowerPriority");
    nominated.nominatedNode = "a";
    Decision d = KubeScheduler.schedule(pod(10, 1, "PreemptLowerPriority"), nodes, pods);
    assertThat(d).isInstanceOf(Unschedulable.class);
    // ... but the nominated pod itself fits there.
    assertThat(KubeScheduler.schedule(nominated, nodes, pods)).isEqualTo(new Bind("a"));
  }

  @Test
  void shouldCountTerminatingPodsUntilTheirContainersStopButNotTerminalOnes() {
    List<SimNode> nodes = List.of(node("a", 1));
    SimPod leaving = running("a", 0, 1);
    leaving.deletionRequestedAt = 1L;
    SimPod next = pod(0, 1, "PreemptLowerPriority");
    assertThat(KubeScheduler.schedule(next, nodes, pods)).isInstanceOf(Unschedulable.class);
    leaving.phase = "Failed";
    assertThat(KubeScheduler.schedule(next, nodes, pods)).isEqualTo(new Bind("a"));
  }
}
