package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventSeriesBuilder;
import io.schedlens.base.KubeTime;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Kubernetes objects of the simulated cluster, as the API server shows them: Pods (metadata,
 * spec and status written by the controllers, the scheduler and the kubelet), scheduler events
 * through {@code events.k8s.io/v1}, kubelet events through core {@code v1}. Times at Kubernetes'
 * granularity (see {@link KubeTime}).
 */
public final class PodObjects {

  /** Order in which the kubelet lists pod conditions. */
  private static final List<String> CONDITION_ORDER =
      List.of(
          "PodReadyToStartContainers",
          "Initialized",
          "Ready",
          "ContainersReady",
          "PodScheduled",
          "DisruptionTarget");

  public static final String SCHEDULER = "default-scheduler";

  private PodObjects() {}

  public static String containerName(SimPod p) {
    return p.workload.spec() instanceof JobSpec ? "worker" : "server";
  }

  public static Pod pod(SimPod p) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(p.name)
            .withGenerateName(p.generateName)
            .withNamespace(p.namespace)
            .withUid(p.uid)
            .withCreationTimestamp(KubeTime.seconds(p.createdAt))
            .withLabels(new LinkedHashMap<>(p.labels))
            .withAnnotations(p.annotations.isEmpty() ? null : new LinkedHashMap<>(p.annotations))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(p.ownerKind.equals("Job") ? "batch/v1" : "apps/v1")
                    .withKind(p.ownerKind)
                    .withName(p.ownerName)
                    .withUid(p.ownerUid)
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .endMetadata();
    if (p.deletionRequestedAt != null) {
      b.editMetadata()
          .withDeletionTimestamp(KubeTime.seconds(p.deletionRequestedAt + grace(p)))
          .withDeletionGracePeriodSeconds(grace(p) / 1000)
          .endMetadata();
    }
    Map<String, Quantity> gpus = Map.of("nvidia.com/gpu", new Quantity(Integer.toString(p.gpus)));
    ContainerBuilder container =
        new ContainerBuilder()
            .withName(containerName(p))
            .withImage(p.workload.template().image())
            .withNewResources()
            .withRequests(gpus)
            .withLimits(gpus)
            .endResources();
    if (p.workload.spec() instanceof ServingSpec) {
      container
          .withNewReadinessProbe()
          .withNewHttpGet()
          .withPath("/health")
          .withNewPort(8000)
          .endHttpGet()
          .withPeriodSeconds(5)
          .endReadinessProbe();
    }
    List<io.fabric8.kubernetes.api.model.Toleration> tolerations = new ArrayList<>();
    for (Toleration t : p.tolerations) {
      tolerations.add(
          new TolerationBuilder()
              .withKey(t.key().isEmpty() ? null : t.key())
              .withOperator(t.operator())
              .withValue(t.value().isEmpty() ? null : t.value())
              .withEffect(t.effect().isEmpty() ? null : t.effect())
              .build());
    }
    b.withNewSpec()
        .withContainers(container.build())
        .withRestartPolicy(p.restartPolicy)
        .withTerminationGracePeriodSeconds(p.graceMs / 1000)
        .withSchedulerName(SCHEDULER)
        .withPriorityClassName(p.priorityClassName)
        .withPriority(p.priority)
        .withPreemptionPolicy(p.preemptionPolicy)
        .withTolerations(tolerations)
        .withNodeSelector(p.nodeSelector.isEmpty() ? null : new TreeMap<>(p.nodeSelector))
        .withNodeName(p.node)
        .endSpec();
    List<PodCondition> conditions = new ArrayList<>();
    for (String type : CONDITION_ORDER) {
      SimPod.Condition c = p.conditions.get(type);
      if (c != null) {
        conditions.add(
            new PodConditionBuilder()
                .withType(type)
                .withStatus(c.status())
                .withReason(c.reason())
                .withMessage(c.message())
                .withLastTransitionTime(KubeTime.seconds(c.lastTransition()))
                .withLastProbeTime(null)
                .build());
      }
    }
    b.withNewStatus()
        .withPhase(p.phase)
        .withQosClass("BestEffort")
        .withConditions(conditions)
        .withNominatedNodeName(p.nominatedNode)
        .withContainerStatuses(containerStatus(p))
        .endStatus();
    if (p.node != null && (p.containerWaitingReason != null || p.containerStartedAt != null)) {
      b.editStatus().withHostIP("10.0.0.10").withPodIP(podIp(p)).endStatus();
    }
    return b.build();
  }

  private static String podIp(SimPod p) {
    int h = Math.abs(p.uid.hashCode());
    return "10.244." + (h % 250 + 1) + "." + (h / 250 % 250 + 2);
  }

  private static List<ContainerStatus> containerStatus(SimPod p) {
    if (p.containerWaitingReason == null && p.containerStartedAt == null) {
      return null;
    }
    String id = "containerd://" + Integer.toHexString(p.uid.hashCode()) + "0f3c2a";
    ContainerState state;
    if (p.containerFinishedAt != null) {
      state =
          new ContainerStateBuilder()
              .withNewTerminated()
              .withExitCode(p.exitCode)
              .withReason(p.terminatedReason)
              .withStartedAt(KubeTime.seconds(p.containerStartedAt))
              .withFinishedAt(KubeTime.seconds(p.containerFinishedAt))
              .withContainerID(id)
              .endTerminated()
              .build();
    } else if (p.containerStartedAt != null) {
      state =
          new ContainerStateBuilder()
              .withNewRunning()
              .withStartedAt(KubeTime.seconds(p.containerStartedAt))
              .endRunning()
              .build();
    } else {
      state =
          new ContainerStateBuilder()
              .withNewWaiting()
              .withReason(p.containerWaitingReason)
              .endWaiting()
              .build();
    }
    return List.of(
        new ContainerStatusBuilder()
            .withName(containerName(p))
            .withImage(p.workload.template().image())
            .withImageID(
                p.containerStartedAt == null ? "" : p.workload.template().image() + "@sha256:5f2e")
            .withContainerID(p.containerStartedAt == null ? null : id)
            .withReady(p.containerReady)
            .withStarted(p.containerStartedAt != null && p.containerFinishedAt == null)
            .withRestartCount(0)
            .withState(state)
            .build());
  }

  public static ObjectReference reference(SimPod p) {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(p.namespace)
        .withName(p.name)
        .withUid(p.uid)
        .build();
  }

  /**
   * A scheduler event ({@code events.k8s.io/v1}); {@code count > 1} carries the series, as
   * client-go's event recorder writes repeats.
   */
  public static Event schedulerEvent(
      String name,
      SimPod regarding,
      SimPod related,
      String type,
      String reason,
      String action,
      String note,
      long firstAt,
      int count,
      long lastAt) {
    io.fabric8.kubernetes.api.model.events.v1.EventBuilder b =
        new io.fabric8.kubernetes.api.model.events.v1.EventBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(regarding.namespace)
            .endMetadata()
            .withEventTime(new MicroTime(KubeTime.micros(firstAt)))
            .withReportingController(SCHEDULER)
            .withReportingInstance(SCHEDULER + "-control-plane")
            .withAction(action)
            .withReason(reason)
            .withType(type)
            .withNote(note)
            .withRegarding(reference(regarding))
            .withRelated(related == null ? null : reference(related));
    if (count > 1) {
      b.withSeries(
          new EventSeriesBuilder()
              .withCount(count)
              .withLastObservedTime(new MicroTime(KubeTime.micros(lastAt)))
              .build());
    }
    return b.build();
  }

  /** A kubelet event (core {@code v1}, with count and first/last timestamps). */
  public static io.fabric8.kubernetes.api.model.Event kubeletEvent(
      String name, SimPod p, String type, String reason, String message, long at) {
    return coreEvent(name, p, type, reason, message, at, "kubelet", p.node, true);
  }

  /**
   * A core/v1 event about the pod from a controller of kube-controller-manager: the node lifecycle
   * controller's NodeNotReady, the taint eviction controller's TaintManagerEviction.
   */
  public static io.fabric8.kubernetes.api.model.Event controllerEvent(
      String name, SimPod p, String type, String reason, String message, long at, String by) {
    return coreEvent(name, p, type, reason, message, at, by, null, false);
  }

  private static io.fabric8.kubernetes.api.model.Event coreEvent(
      String name,
      SimPod p,
      String type,
      String reason,
      String message,
      long at,
      String component,
      String host,
      boolean container) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(p.namespace)
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withNamespace(p.namespace)
                .withName(p.name)
                .withUid(p.uid)
                .withFieldPath(container ? "spec.containers{" + containerName(p) + "}" : null)
                .build())
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withFirstTimestamp(KubeTime.seconds(at))
        .withLastTimestamp(KubeTime.seconds(at))
        .withCount(1)
        .withNewSource()
        .withComponent(component)
        .withHost(host)
        .endSource()
        .withReportingComponent(component)
        .withReportingInstance(host == null ? "" : host)
        .build();
  }

  /**
   * The grace period the API server gave the deletion: the pod's own, except for a pod bound to no
   * node, which no kubelet has to stop: the API server deletes it at once (grace period 0), after
   * writing the deletion mark that watchers see on its MODIFIED and DELETED events.
   */
  static long grace(SimPod p) {
    return p.node == null ? 0 : p.graceMs;
  }
}
