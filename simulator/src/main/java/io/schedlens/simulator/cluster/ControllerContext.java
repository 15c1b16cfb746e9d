package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.Map;

/**
 * What a workload controller may do in the simulated cluster, as Kubernetes' controllers act
 * through the API server: read the clock and the pods, create and delete pods, write its own
 * object. The cluster run implements it; the controllers see nothing else of the cluster.
 */
interface ControllerContext {

  /** The cluster's clock and event queue. */
  EventQueue queue();

  /** The API server, for the controller's own object. */
  ClusterWriter api();

  /** The namespace every object of the run lives in. */
  String namespace();

  /** The experiment labels every object of the run carries. */
  Map<String, String> experimentLabels();

  /** Whether the run is over: controllers then create nothing more. */
  boolean ended();

  /** A new object UID (from the run's seeded random, so a run is reproducible). */
  String newUid();

  /** A new pod of {@code w}, owned as given, named from {@code generateName}; not yet created. */
  SimPod newPod(
      Workload w, String ownerKind, String ownerName, String ownerUid, String generateName);

  /** Creates the pod in the API; the scheduler sees it next. */
  void create(SimPod p);

  /** Asks for the pod's deletion (graceful). */
  void delete(SimPod p);

  /** A new pod-template hash, as a Deployment names its ReplicaSets. */
  String newTemplateHash();

  /** A new pod named {@code name} by its owner (a StatefulSet's ordinal), not generated. */
  SimPod newPod(
      Workload w,
      String ownerKind,
      String ownerName,
      String ownerUid,
      String generateName,
      String name);

  /** Pods were created or deleted: the GPU exporter's view changes. */
  void podsChanged();

  /** What ended a pod early in the ground truth (a disruption cause's wire name), or null. */
  String causeOf(String podUid);

  /** The ground truth: the pod ends early for this cause (a rollout replacing it). */
  void endedBy(SimPod p, DisruptionCause cause);

  /** The ground truth: the workload served no one from {@code from} to {@code to}, for cause. */
  void interrupted(String workload, long from, long to, String cause);
}
