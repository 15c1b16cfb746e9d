package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.base.GpuShares;
import io.schedlens.base.Outcome;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One run of a scenario (one arm, one repeat) on an empty cluster, shaped like Kubernetes: the
 * shared objects ({@link ClusterState}) and one class per component acting on them — the workload
 * controllers ({@link DeploymentController} with its {@link ReplicaSetController}s, {@link
 * JobController}, through {@link ControllerContext}), kube-scheduler's {@link SchedulingQueue} over
 * the pure {@link KubeScheduler}, the {@link Kubelet}, the node lifecycle and taint eviction
 * controllers and {@code kubectl drain} ({@link NodeLifecycle}), the users' requests ({@link
 * TrafficGenerator}) and what the GPUs do ({@link GpuPublisher}) — all on the shared {@link
 * EventQueue}. This class wires them, schedules the run's arrivals, actions and end, and tells a
 * pod's controller when the pod changed, as their informers would. Every change is written to the
 * {@link ClusterWriter} as the Kubernetes component that makes it would write it; the ground truth
 * is kept alongside.
 *
 * <p>Semantics, after kube-scheduler, the kubelet and the controllers (Kubernetes 1.27+):
 *
 * <ul>
 *   <li>The scheduling queue orders by priority, then creation time. A pod that does not fit waits
 *       until a pod leaves a node (with per-pod backoff of 1 s doubling to 10 s) or 5 minutes pass;
 *       every failed attempt is a FailedScheduling event (a series when the note repeats) and sets
 *       PodScheduled=False/Unschedulable.
 *   <li>Preemption nominates the node ({@code status.nominatedNodeName}), gives each victim the
 *       DisruptionTarget condition (PreemptionByScheduler) and the Preempted event, and deletes it
 *       with its grace period; the preemptor binds once the victims are gone. Terminating pods hold
 *       their GPUs until their containers stop.
 *   <li>The kubelet pulls, creates and starts the container (core/v1 events), marks a server Ready
 *       after its model load (a batch container at start), and on deletion sends SIGTERM (Killing
 *       event): the container exits (0 for a server, 143 for a batch worker) or is killed at the
 *       grace period (137); the pod gets its terminal phase and is then removed.
 *   <li>A ReplicaSet replaces a pod as soon as it is terminating; a Job replaces a failed pod after
 *       its backoff (10 s doubling, at most 6 minutes) unless the failure is a disruption its
 *       podFailurePolicy ignores, and a replacement resumes from the last checkpoint.
 * </ul>
 */
public final class ClusterRun {

  private final Scenario scenario;
  private final Arm arm;
  private final int repeat;
  private final long start;
  private final long end;
  private final ClusterState state;
  private final List<DeploymentController> deployments = new ArrayList<>();
  private final List<JobController> jobs = new ArrayList<>();
  private final Map<String, JobController> jobsByUid = new HashMap<>();
  private final List<ServiceInterruption> interruptions = new ArrayList<>();
  private final GpuPublisher gpus;
  private final SchedulingQueue scheduler;
  private final Kubelet kubelet;
  private final NodeLifecycle nodeLifecycle;
  private final TrafficGenerator traffic;
  private final KueueManager kueue;

  /** What the workload controllers see of this run ({@link ControllerContext}). */
  private final ControllerContext controllers =
      new ControllerContext() {
        @Override
        public EventQueue queue() {
          return state.queue;
        }

        @Override
        public ClusterWriter api() {
          return state.api;
        }

        @Override
        public String namespace() {
          return scenario.namespace();
        }

        @Override
        public Map<String, String> experimentLabels() {
          return state.experimentLabels();
        }

        @Override
        public boolean ended() {
          return state.ended;
        }

        @Override
        public String newUid() {
          return state.names.uid();
        }

        @Override
        public SimPod newPod(
            Workload w, String ownerKind, String ownerName, String ownerUid, String generateName) {
          return ClusterRun.this.newPod(w, ownerKind, ownerName, ownerUid, generateName);
        }

        @Override
        public void create(SimPod p) {
          ClusterRun.this.create(p);
        }

        @Override
        public void delete(SimPod p) {
          kubelet.delete(p);
        }

        @Override
        public String newTemplateHash() {
          return state.names.templateHash();
        }

        @Override
        public SimPod newPod(
            Workload w,
            String ownerKind,
            String ownerName,
            String ownerUid,
            String generateName,
            String name) {
          return ClusterRun.this.newPod(w, ownerKind, ownerName, ownerUid, generateName, name);
        }

        @Override
        public void podsChanged() {
          gpus.publish();
        }

        @Override
        public String causeOf(String podUid) {
          LiveTruth t = state.truth(podUid);
          return t == null ? null : t.cause;
        }

        @Override
        public void endedBy(SimPod p, DisruptionCause cause) {
          state.truth(p.uid).cause = cause.wire();
        }

        @Override
        public void interrupted(String workload, long from, long to, String cause) {
          interruptions.add(new ServiceInterruption(workload, arm.name(), repeat, from, to, cause));
        }
      };

  public ClusterRun(
      Scenario scenario,
      Arm arm,
      int repeat,
      long start,
      EventQueue queue,
      ClusterWriter api,
      RequestSink requests,
      GpuView gpuView,
      List<SimNode> nodes) {
    this.scenario = scenario;
    this.arm = arm;
    this.repeat = repeat;
    this.start = start;
    this.end = start + scenario.duration().toMillis();
    // the cluster's own timing: the repeat's seed, set apart per arm
    long seed = workloadSeed(scenario, repeat) + arm.name().hashCode();
    this.state = new ClusterState(scenario, arm, repeat, queue, api, nodes, seed);
    this.gpus = new GpuPublisher(state, gpuView, deployments);
    // The kubelet tells the scheduling queue when a pod left a node, the queue tells the kubelet
    // what it bound: the kubelet reaches the queue through this run (nodeFreed).
    this.kubelet = new Kubelet(state, this::nodeFreed, this::notifyOwner, gpus::publish);
    this.scheduler = new SchedulingQueue(state, kubelet::start, kubelet::delete);
    this.nodeLifecycle =
        new NodeLifecycle(state, kubelet, scheduler::nodeFreed, this::notifyOwner, gpus::publish);
    this.traffic = new TrafficGenerator(state, requests);
    this.kueue = new KueueManager(state);
  }

  /** How the scheduler writes failed attempts (before {@link #schedule}). */
  public ClusterRun schedulerWrites(SchedulerWrites writes) {
    state.schedulerWrites = writes;
    return this;
  }

  public Arm arm() {
    return arm;
  }

  public int repeat() {
    return repeat;
  }

  public long start() {
    return start;
  }

  public long end() {
    return end;
  }

  /** Requests that found no Ready pod to serve them (users turned away). */
  public long unserved() {
    return traffic.unserved();
  }

  public Map<String, Long> unservedByService() {
    return traffic.unservedByService();
  }

  /**
   * Schedules the run's arrivals, replica changes and its end. What the users do — when each Job
   * arrives, when a Deployment is scaled, how much work each Job's completions need — is drawn from
   * {@link #workloadSeed}: the same in every arm of a repeat (common random numbers), so that the
   * arms of a repeat differ by their policy alone. The cluster's own timing (kubelet, scheduler,
   * traffic) is drawn from the run's random source.
   */
  public void schedule() {
    SplittableRandom jitter = new SplittableRandom(workloadSeed(scenario, repeat));
    for (Workload w : scenario.workloads()) {
      if (w.spec() instanceof ServingSpec serving) {
        DeploymentController rs = new DeploymentController(controllers, w, serving);
        deployments.add(rs);
        for (ReplicaStep step : serving.replicas()) {
          long at =
              start + ClusterState.jittered(jitter, step.at().toMillis(), step.jitter().toMillis());
          state.queue.at(at, () -> rs.scale(step.replicas()));
        }
        if (serving.traffic() != null) {
          traffic.start(rs, start);
        }
      } else if (w.spec() instanceof JobSpec job) {
        Scenario.Arrival a = job.arrival();
        for (int i = 0; i < a.count(); i++) {
          long at =
              start
                  + ClusterState.jittered(
                      jitter, a.at().toMillis() + i * a.every().toMillis(), a.jitter().toMillis());
          String name = a.count() == 1 ? w.name() : w.name() + "-" + (i + 1);
          if (at < end) {
            state.queue.at(
                at,
                () -> {
                  JobController j =
                      new JobController(controllers, w, job, name, jitter.split(), kueue);
                  jobs.add(j);
                  jobsByUid.put(j.uid, j);
                });
          }
        }
      }
    }
    for (Scenario.Action a : scenario.actions()) {
      long at = start + a.at().toMillis();
      state.queue.at(
          at,
          () -> {
            switch (a.action()) {
              case "drain" -> nodeLifecycle.drain(a.target());
              case "uncordon" -> nodeLifecycle.uncordon(a.target());
              case "fail" -> nodeLifecycle.fail(a.target());
              case "rejoin" -> nodeLifecycle.rejoin(a.target());
              case "rollout" -> rollout(a);
              default -> throw new IllegalStateException("unknown action " + a.action());
            }
          });
    }
    state.queue.at(end, this::finish);
  }

  /** The seed of what the users do in repeat {@code repeat} of {@code scenario}, in every arm. */
  static long workloadSeed(Scenario scenario, int repeat) {
    return scenario.seed() * 1_000_003L + repeat * 7919L;
  }

  /** A new pod template for a Deployment: rolled out within maxSurge / maxUnavailable. */
  private void rollout(Scenario.Action a) {
    for (DeploymentController d : deployments) {
      if (d.w.name().equals(a.target())) {
        int replicas = Math.max(d.desired, 1);
        d.rollout(
            Scenario.Action.resolve(a.maxSurge(), replicas, true),
            Scenario.Action.resolve(a.maxUnavailable(), replicas, false));
      }
    }
  }

  /** True once every pod of the run is gone. */
  public boolean drained() {
    return state.ended && state.pods.values().stream().allMatch(p -> p.gone);
  }

  /**
   * A Deployment's service interruption as the simulator lived it: from the moment its last Ready
   * pod stopped serving (deletion asked for) while it wanted a replica, to the moment a pod was
   * Ready again or none was wanted.
   *
   * @param cause preemption, eviction-api, taint-manager, rollout or deletion: what ended the pod
   *     whose loss began it
   * @param end null when the run ended first
   */
  public record ServiceInterruption(
      String workload, String arm, int repeat, long start, Long end, String cause) {}

  /** The gangs of this run's JobSets, in the order they were created. */
  public List<GangTruth> gangs() {
    List<GangTruth> out = new ArrayList<>();
    for (JobController j : jobs) {
      if (j.jobSetName != null) {
        out.add(
            GangTruth.of(
                j.jobSetName, j.w.name(), state.arm.name(), repeat, j.pods(), state.queue.now()));
      }
    }
    return out;
  }

  /** The service interruptions of this run's Deployments, in order. */
  public List<ServiceInterruption> interruptions() {
    return List.copyOf(interruptions);
  }

  /** The ground truth of every pod of this run. */
  public List<PodTruth> truth() {
    List<PodTruth> out = new ArrayList<>();
    for (SimPod p : state.pods.values()) {
      LiveTruth t = state.truth(p.uid);
      double share =
          p.node == null
              ? GpuShares.device(p.gpuResource, null, null)
              : state.node(p.node).share(p.gpuResource);
      Double wasted = null;
      if (p.workload.spec() instanceof JobSpec
          && p.containerStartedAt != null
          && p.containerFinishedAt != null
          && p.deletionRequestedAt != null
          && !Outcome.SUCCEEDED.wire().equals(t.outcome)) {
        long from =
            p.lastCheckpointAt == null
                ? p.containerStartedAt
                : Math.max(p.containerStartedAt, p.lastCheckpointAt);
        wasted = p.gpus * share * Math.max(0, p.containerFinishedAt - from) / 1000.0;
      }
      out.add(
          new PodTruth(
              p.uid,
              p.namespace,
              p.name,
              p.workload.name(),
              p.workload.kind(),
              state.arm.name(),
              repeat,
              p.priorityClassName,
              p.priority,
              p.gpus,
              share,
              p.node,
              p.createdAt,
              t.scheduledAt,
              p.containerStartedAt,
              p.readyAt,
              p.firstOkAt,
              p.containerFinishedAt,
              p.deletionRequestedAt,
              t.deletedAt,
              t.preemptedAt,
              t.preemptorUid,
              List.copyOf(t.victims),
              p.lastCheckpointAt,
              wasted,
              p.failedScheduling.values().stream().mapToInt(s -> s.count).sum(),
              t.requests,
              t.errors,
              t.sloBreaches,
              t.outcome,
              t.cause,
              t.queue,
              t.admittedAt,
              t.queueWaitMs));
    }
    return out;
  }

  // ------------------------------------------------------------------ pods and their owners

  private SimPod newPod(
      Workload w, String ownerKind, String ownerName, String ownerUid, String generateName) {
    return newPod(
        w, ownerKind, ownerName, ownerUid, generateName, generateName + state.names.suffix());
  }

  /**
   * A pod named {@code name}: generated from {@code generateName}, or (null) chosen by its owner.
   */
  private SimPod newPod(
      Workload w,
      String ownerKind,
      String ownerName,
      String ownerUid,
      String generateName,
      String name) {
    ClusterState.PodClass pc = state.podClass(w);
    SimPod p =
        new SimPod(
            state.names.uid(),
            scenario.namespace(),
            name,
            generateName,
            w,
            ownerKind,
            ownerName,
            ownerUid,
            pc.name(),
            pc.priority(),
            pc.preemptionPolicy(),
            state.queue.now());
    p.labels.put("app.kubernetes.io/name", w.name());
    p.labels.put("schedlens.io/experiment", scenario.experiment());
    p.labels.put("schedlens.io/arm", arm.name());
    p.labels.put("schedlens.io/repeat", Integer.toString(repeat));
    state.add(p);
    return p;
  }

  private void create(SimPod p) {
    state.api.createPod(PodObjects.pod(p));
    scheduler.added(p);
  }

  private void nodeFreed() {
    scheduler.nodeFreed();
    kueue.podLeft();
  }

  /** The pod's readiness or life changed: its controller reconciles, as its informer tells it. */
  private void notifyOwner(SimPod p) {
    for (DeploymentController d : deployments) {
      if (d.owns(p)) {
        d.reconcile();
        d.serviceCheck(p);
      }
    }
    JobController j = p.ownerUid == null ? null : jobsByUid.get(p.ownerUid);
    if (j != null) {
      j.podChanged(p);
    }
  }

  // ------------------------------------------------------------------ the end

  /** The run is over: Deployments scale to zero, Jobs are deleted with their pods. */
  private void finish() {
    state.ended = true;
    for (DeploymentController d : deployments) {
      d.write();
      d.reconcile();
      d.serviceCheck(null);
    }
    for (SimPod p : List.copyOf(state.pods.values())) {
      if (!p.gone && p.workload.spec() instanceof JobSpec) {
        kubelet.delete(p);
      }
    }
    // The run's harness deletes the Jobs still there (the next run applies them again).
    for (JobController j : jobs) {
      if (!j.finished) {
        j.delete();
      }
    }
    kueue.end();
    gpus.publish();
  }
}
