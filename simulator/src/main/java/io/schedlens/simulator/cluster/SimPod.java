package io.schedlens.simulator.cluster;

import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.Toleration;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulator's state of one pod: what the API server, the scheduler, the kubelet and the
 * controllers know about it. Times are virtual epoch milliseconds; {@link PodObjects} writes them
 * at Kubernetes' granularity.
 */
public final class SimPod {

  /** A pod condition as the API shows it. */
  public record Condition(String status, String reason, String message, long lastTransition) {}

  // identity and spec
  final String uid;
  final String namespace;
  final String name;
  final String generateName;
  final Workload workload;
  final String ownerKind;
  final String ownerName;
  final String ownerUid;
  final Map<String, String> labels = new LinkedHashMap<>();
  final Map<String, String> annotations = new LinkedHashMap<>();
  final String priorityClassName;
  final int priority;
  final String preemptionPolicy;
  final int gpus;
  final String gpuResource;
  final List<Toleration> tolerations;
  final Map<String, String> nodeSelector;
  final long graceMs;
  final String restartPolicy;
  final long createdAt;

  // scheduling
  String node;
  String nominatedNode;
  long lastAttemptAt = Long.MIN_VALUE;

  /**
   * When the scheduler tries this pod next (its place in the active, backoff or unschedulable
   * queue).
   */
  long retryAt = Long.MAX_VALUE;

  int attempts;

  /** FailedScheduling events of this pod by note: the event's name and its series count. */
  final Map<String, EventSeries> failedScheduling = new LinkedHashMap<>();

  /** The PodScheduled=False note and nominated node last written to the pod's status. */
  String unschedulableWritten;

  // status
  String phase = "Pending";
  final Map<String, Condition> conditions = new LinkedHashMap<>();

  /** Container: null before creation, then waiting/running/terminated. */
  String containerWaitingReason;

  /** status.startTime: when the kubelet first acknowledged the pod (before its image pull). */
  Long kubeletStartedAt;

  Long containerStartedAt;
  Long containerFinishedAt;
  Integer exitCode;
  String terminatedReason;
  boolean containerReady;
  List<Integer> gpuIndices = new ArrayList<>();

  // deletion
  Long deletionRequestedAt;
  boolean gone;

  // job work
  long progressAtStart;
  long workNeeded;
  Long productiveFrom;
  Long lastCheckpointAt;
  long checkpointedProgress;
  boolean preempted;

  // deployment
  Long readyAt;
  Long firstOkAt;

  SimPod(
      String uid,
      String namespace,
      String name,
      String generateName,
      Workload workload,
      String ownerKind,
      String ownerName,
      String ownerUid,
      String priorityClassName,
      int priority,
      String preemptionPolicy,
      long createdAt) {
    this.uid = uid;
    this.namespace = namespace;
    this.name = name;
    this.generateName = generateName;
    this.workload = workload;
    this.ownerKind = ownerKind;
    this.ownerName = ownerName;
    this.ownerUid = ownerUid;
    this.priorityClassName = priorityClassName;
    this.priority = priority;
    this.preemptionPolicy = preemptionPolicy;
    this.gpus = workload.template().gpus();
    this.gpuResource = workload.template().gpuResource();
    this.tolerations = workload.template().tolerations();
    this.nodeSelector = workload.template().nodeSelector();
    this.graceMs = workload.template().terminationGracePeriod().toMillis();
    this.restartPolicy = workload.spec() instanceof JobSpec ? "Never" : "Always";
    this.createdAt = createdAt;
  }

  /** A FailedScheduling event and how often it happened (events.k8s.io series). */
  static final class EventSeries {
    final String name;
    final long firstAt;
    int count;
    long lastAt;

    /** The count last written to the API (with {@link SchedulerWrites#ON_CHANGE}). */
    int writtenCount;

    long writtenAt;

    EventSeries(String name, long firstAt) {
      this.name = name;
      this.firstAt = firstAt;
      this.count = 1;
      this.lastAt = firstAt;
    }
  }

  public String uid() {
    return uid;
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  public int priority() {
    return priority;
  }

  public int gpus() {
    return gpus;
  }

  /** The extended resource its devices are of. */
  public String gpuResource() {
    return gpuResource;
  }

  public String node() {
    return node;
  }

  /**
   * Bound to a node, not terminal and not removed: holds its GPUs (terminating pods included, until
   * their containers stop).
   */
  boolean holdsNode() {
    return node != null && !gone && !terminal();
  }

  boolean pending() {
    return node == null && !gone && deletionRequestedAt == null;
  }

  boolean terminating() {
    return deletionRequestedAt != null && !gone;
  }

  /** Terminating because the scheduler preempted it (DisruptionTarget PreemptionByScheduler). */
  boolean terminatingByPreemption() {
    return terminating() && preempted;
  }

  boolean terminal() {
    return phase.equals("Succeeded") || phase.equals("Failed");
  }

  /** Counts towards the controller's replicas: not terminating, not terminal, not gone. */
  boolean active() {
    return !gone && deletionRequestedAt == null && !terminal();
  }

  boolean ready() {
    Condition c = conditions.get("Ready");
    return c != null && c.status().equals("True") && deletionRequestedAt == null;
  }
}
