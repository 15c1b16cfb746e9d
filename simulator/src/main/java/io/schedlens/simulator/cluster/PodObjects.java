package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateRunning;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
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

  /**
   * The pod as the API server holds it now. Built with the model's constructors and setters, not
   * its builders: a pod is written at every change of every simulated pod (a week of a 1,000-GPU
   * cluster: millions of writes), and a builder copies every field of the object twice through
   * streams; that was half of the simulator's time in a what-if (JFR, {@code WhatIfLoad}). Every
   * collection is the pod's own copy: the receiver may keep the object while the pod changes.
   */
  public static Pod pod(SimPod p) {
    Pod pod = new Pod();
    pod.setApiVersion("v1");
    pod.setKind("Pod");
    pod.setMetadata(metadata(p));
    pod.setSpec(spec(p));
    pod.setStatus(status(p));
    return pod;
  }

  private static ObjectMeta metadata(SimPod p) {
    ObjectMeta m = new ObjectMeta();
    m.setName(p.name);
    m.setGenerateName(p.generateName);
    m.setNamespace(p.namespace);
    m.setUid(p.uid);
    m.setCreationTimestamp(KubeTime.seconds(p.createdAt));
    m.setLabels(new LinkedHashMap<>(p.labels));
    m.setAnnotations(p.annotations.isEmpty() ? null : new LinkedHashMap<>(p.annotations));
    OwnerReference owner = new OwnerReference();
    owner.setApiVersion(p.ownerKind.equals("Job") ? "batch/v1" : "apps/v1");
    owner.setKind(p.ownerKind);
    owner.setName(p.ownerName);
    owner.setUid(p.ownerUid);
    owner.setController(true);
    owner.setBlockOwnerDeletion(true);
    m.setOwnerReferences(new ArrayList<>(List.of(owner)));
    if (p.deletionRequestedAt != null) {
      m.setDeletionTimestamp(KubeTime.seconds(p.deletionRequestedAt + grace(p)));
      m.setDeletionGracePeriodSeconds(grace(p) / 1000);
    }
    return m;
  }

  private static PodSpec spec(SimPod p) {
    Container container = new Container();
    container.setName(containerName(p));
    container.setImage(p.workload.template().image());
    ResourceRequirements resources = new ResourceRequirements();
    resources.setRequests(gpus(p));
    resources.setLimits(gpus(p));
    container.setResources(resources);
    if (p.workload.spec() instanceof ServingSpec) {
      HTTPGetAction health = new HTTPGetAction();
      health.setPath("/health");
      health.setPort(new IntOrString(8000));
      Probe readiness = new Probe();
      readiness.setHttpGet(health);
      readiness.setPeriodSeconds(5);
      container.setReadinessProbe(readiness);
    }
    List<io.fabric8.kubernetes.api.model.Toleration> tolerations = new ArrayList<>();
    for (Toleration t : p.tolerations) {
      io.fabric8.kubernetes.api.model.Toleration k =
          new io.fabric8.kubernetes.api.model.Toleration();
      k.setKey(t.key().isEmpty() ? null : t.key());
      k.setOperator(t.operator());
      k.setValue(t.value().isEmpty() ? null : t.value());
      k.setEffect(t.effect().isEmpty() ? null : t.effect());
      tolerations.add(k);
    }
    PodSpec spec = new PodSpec();
    spec.setContainers(new ArrayList<>(List.of(container)));
    spec.setRestartPolicy(p.restartPolicy);
    spec.setTerminationGracePeriodSeconds(p.graceMs / 1000);
    spec.setSchedulerName(SCHEDULER);
    spec.setPriorityClassName(p.priorityClassName);
    spec.setPriority(p.priority);
    spec.setPreemptionPolicy(p.preemptionPolicy);
    spec.setTolerations(tolerations);
    spec.setNodeSelector(p.nodeSelector.isEmpty() ? null : new TreeMap<>(p.nodeSelector));
    spec.setNodeName(p.node);
    return spec;
  }

  private static Map<String, Quantity> gpus(SimPod p) {
    Map<String, Quantity> gpus = new LinkedHashMap<>();
    gpus.put(p.gpuResource, new Quantity(Integer.toString(p.gpus)));
    return gpus;
  }

  private static PodStatus status(SimPod p) {
    List<PodCondition> conditions = new ArrayList<>();
    for (String type : CONDITION_ORDER) {
      SimPod.Condition c = p.conditions.get(type);
      if (c != null) {
        PodCondition k = new PodCondition();
        k.setType(type);
        k.setStatus(c.status());
        k.setReason(c.reason());
        k.setMessage(c.message());
        k.setLastTransitionTime(KubeTime.seconds(c.lastTransition()));
        conditions.add(k);
      }
    }
    PodStatus status = new PodStatus();
    status.setPhase(p.phase);
    status.setQosClass("BestEffort");
    status.setConditions(conditions);
    status.setNominatedNodeName(p.nominatedNode);
    if (p.kubeletStartedAt != null) {
      status.setStartTime(KubeTime.seconds(p.kubeletStartedAt));
    }
    status.setContainerStatuses(containerStatus(p));
    if (p.node != null && (p.containerWaitingReason != null || p.containerStartedAt != null)) {
      status.setHostIP("10.0.0.10");
      status.setPodIP(podIp(p));
    }
    return status;
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
    ContainerState state = new ContainerState();
    if (p.containerFinishedAt != null) {
      ContainerStateTerminated terminated = new ContainerStateTerminated();
      terminated.setExitCode(p.exitCode);
      terminated.setReason(p.terminatedReason);
      terminated.setStartedAt(KubeTime.seconds(p.containerStartedAt));
      terminated.setFinishedAt(KubeTime.seconds(p.containerFinishedAt));
      terminated.setContainerID(id);
      state.setTerminated(terminated);
    } else if (p.containerStartedAt != null) {
      ContainerStateRunning running = new ContainerStateRunning();
      running.setStartedAt(KubeTime.seconds(p.containerStartedAt));
      state.setRunning(running);
    } else {
      ContainerStateWaiting waiting = new ContainerStateWaiting();
      waiting.setReason(p.containerWaitingReason);
      state.setWaiting(waiting);
    }
    ContainerStatus s = new ContainerStatus();
    s.setName(containerName(p));
    s.setImage(p.workload.template().image());
    s.setImageID(
        p.containerStartedAt == null ? "" : p.workload.template().image() + "@sha256:5f2e");
    s.setContainerID(p.containerStartedAt == null ? null : id);
    s.setReady(p.containerReady);
    s.setStarted(p.containerStartedAt != null && p.containerFinishedAt == null);
    s.setRestartCount(0);
    s.setState(state);
    return new ArrayList<>(List.of(s));
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
