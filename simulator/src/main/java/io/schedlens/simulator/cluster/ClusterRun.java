package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.base.KubeTime;
import io.schedlens.base.Outcome;
import io.schedlens.simulator.cluster.KubeScheduler.Bind;
import io.schedlens.simulator.cluster.KubeScheduler.Decision;
import io.schedlens.simulator.cluster.KubeScheduler.Preempt;
import io.schedlens.simulator.cluster.KubeScheduler.Unschedulable;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.ClassOverride;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Taint;
import io.schedlens.simulator.scenario.Scenario.Traffic;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One run of a scenario (one arm, one repeat) on an empty cluster: the workload controllers ({@link
 * DeploymentController} with its {@link ReplicaSetController}s, {@link JobController}, each acting
 * on this run only through {@link ControllerContext}), kube-scheduler ({@link KubeScheduler} and
 * its queue), the kubelet (image pull, container start, readiness, graceful termination), request
 * traffic and Job work with checkpoints, all on the shared {@link EventQueue}. Every change is
 * written to the {@link ClusterWriter} as the Kubernetes component that makes it would write it;
 * the ground truth is kept alongside.
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

  static final long UNSCHEDULABLE_FLUSH_MS = 5 * 60_000;
  public static final String CHECKPOINT_ANNOTATION = "schedlens.io/last-checkpoint";

  private final Scenario scenario;
  private final Arm arm;
  private final int repeat;
  private final long start;
  private final long end;
  private final EventQueue queue;
  private final ClusterWriter api;
  private final RequestSink requests;
  private final GpuView gpuView;
  private final SplittableRandom random;
  private final Names names;
  private final List<SimNode> nodes;

  /** Cordoned nodes (spec.unschedulable). */
  private final Set<String> unschedulable = new HashSet<>();

  /** Nodes that stopped (failed): their pods do no work and cannot be reached. */
  private final Set<String> down = new HashSet<>();

  /** Nodes the node lifecycle controller found unreachable (tainted) and not back yet. */
  private final Set<String> unreachable = new HashSet<>();

  /** A node's failures so far: a pending eviction of an earlier failure is void after a re-join. */
  private final Map<String, Integer> failures = new HashMap<>();

  /** kube-controller-manager's --node-monitor-grace-period (40 s up to Kubernetes 1.31). */
  static final long NODE_MONITOR_GRACE_MS = 40_000;

  /** The DefaultTolerationSeconds admission plugin's toleration of unreachable:NoExecute. */
  static final long UNREACHABLE_TOLERATION_MS = 300_000;

  static final Taint UNREACHABLE_NO_SCHEDULE =
      new Taint("node.kubernetes.io/unreachable", "", "NoSchedule");

  private final Map<String, SimPod> pods = new LinkedHashMap<>();
  private final Map<String, Truth> truth = new LinkedHashMap<>();
  private final List<DeploymentController> deployments = new ArrayList<>();
  private final List<ServiceInterruption> interruptions = new ArrayList<>();
  private final List<JobController> jobs = new ArrayList<>();
  private boolean passScheduled;
  private long passAt = Long.MAX_VALUE;
  private boolean ended;

  /** What the workload controllers see of this run ({@link ControllerContext}). */
  private final ControllerContext controllers =
      new ControllerContext() {
        @Override
        public EventQueue queue() {
          return queue;
        }

        @Override
        public ClusterWriter api() {
          return api;
        }

        @Override
        public String namespace() {
          return scenario.namespace();
        }

        @Override
        public Map<String, String> experimentLabels() {
          return ClusterRun.this.experimentLabels();
        }

        @Override
        public boolean ended() {
          return ended;
        }

        @Override
        public String newUid() {
          return names.uid();
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
          ClusterRun.this.delete(p);
        }

        @Override
        public Collection<SimPod> pods() {
          return pods.values();
        }

        @Override
        public String newTemplateHash() {
          return names.templateHash();
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
          publishGpus();
        }

        @Override
        public String causeOf(String podUid) {
          Truth t = truth.get(podUid);
          return t == null ? null : t.cause;
        }

        @Override
        public void endedBy(SimPod p, DisruptionCause cause) {
          truth.get(p.uid).cause = cause.wire();
        }

        @Override
        public void interrupted(String workload, long from, long to, String cause) {
          interruptions.add(new ServiceInterruption(workload, arm.name(), repeat, from, to, cause));
        }
      };

  private long requestSeq;
  private long unserved;
  private final Map<String, Long> unservedByService = new LinkedHashMap<>();

  /** Mutable truth of a pod while the run lasts. */
  private static final class Truth {
    Long scheduledAt;
    Long preemptedAt;
    String preemptorUid;
    final List<String> victims = new ArrayList<>();
    long requests;
    long errors;
    long sloBreaches;
    Long deletedAt;
    String outcome;

    /** What ended it early (preemption, eviction-api, taint-manager, rollout), if anything. */
    String cause;
  }

  public ClusterRun(
      Scenario scenario,
      Arm arm,
      int repeat,
      long start,
      EventQueue queue,
      ClusterWriter api,
      RequestSink requests,
      GpuView gpuView,
      List<SimNode> nodes,
      long seed) {
    this.scenario = scenario;
    this.arm = arm;
    this.repeat = repeat;
    this.start = start;
    this.end = start + scenario.duration().toMillis();
    this.queue = queue;
    this.api = api;
    this.requests = requests;
    this.gpuView = gpuView;
    this.random = new SplittableRandom(seed);
    this.names = new Names(random.split());
    this.nodes = nodes;
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
    return unserved;
  }

  public Map<String, Long> unservedByService() {
    return Map.copyOf(unservedByService);
  }

  /** Schedules the run's arrivals, replica changes and its end. */
  public void schedule() {
    SplittableRandom jitter = random.split();
    for (Workload w : scenario.workloads()) {
      if (w.spec() instanceof ServingSpec serving) {
        DeploymentController rs = new DeploymentController(controllers, w, serving);
        deployments.add(rs);
        for (ReplicaStep step : serving.replicas()) {
          long at = start + jittered(jitter, step.at().toMillis(), step.jitter().toMillis());
          queue.at(at, () -> rs.scale(step.replicas()));
        }
        if (serving.traffic() != null) {
          queue.at(start, () -> trafficTick(rs));
        }
      } else if (w.spec() instanceof JobSpec job) {
        Scenario.Arrival a = job.arrival();
        for (int i = 0; i < a.count(); i++) {
          long at =
              start
                  + jittered(
                      jitter, a.at().toMillis() + i * a.every().toMillis(), a.jitter().toMillis());
          String name = a.count() == 1 ? w.name() : w.name() + "-" + (i + 1);
          if (at < end) {
            queue.at(
                at, () -> jobs.add(new JobController(controllers, w, job, name, jitter.split())));
          }
        }
      }
    }
    for (Scenario.Action a : scenario.actions()) {
      long at = start + a.at().toMillis();
      queue.at(
          at,
          () -> {
            switch (a.action()) {
              case "drain" -> drain(a.target());
              case "uncordon" -> uncordon(a.target());
              case "fail" -> fail(a.target());
              case "rejoin" -> rejoin(a.target());
              case "rollout" -> rollout(a);
              default -> throw new IllegalStateException("unknown action " + a.action());
            }
          });
    }
    queue.at(end, this::finish);
  }

  /**
   * {@code kubectl drain}: cordon the node, then evict every pod on it through the Eviction API.
   * The API server marks each with the DisruptionTarget condition (EvictionByEvictionAPI) and
   * deletes it gracefully; controllers create replacements, which wait while the node is cordoned.
   * (No PodDisruptionBudgets in scenarios: every eviction is allowed.)
   */
  private void drain(String node) {
    unschedulable.add(node);
    evictFrom(node);
  }

  /**
   * One pass of {@code kubectl drain}'s evictions: every pod on the node whose PodDisruptionBudget
   * allows it; the Eviction API refuses the others (429), and drain tries them again every 5 s
   * while the node stays cordoned.
   */
  private void evictFrom(String node) {
    if (ended || !unschedulable.contains(node)) {
      return;
    }
    boolean refused = false;
    for (SimPod p : new ArrayList<>(pods.values())) {
      if (p.gone || p.deletionRequestedAt != null || !node.equals(p.node)) {
        continue;
      }
      if (!p.terminal() && !budgetAllowsEviction(p)) {
        refused = true;
        continue;
      }
      truth.get(p.uid).outcome = p.terminal() ? truth.get(p.uid).outcome : Outcome.EVICTED.wire();
      if (!p.terminal()) {
        truth.get(p.uid).cause = DisruptionCause.EVICTION_API.wire();
        condition(p, "DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting");
        writeStatus(p);
      }
      delete(p);
    }
    if (refused) {
      queue.after(DRAIN_RETRY_MS, () -> evictFrom(node));
    }
  }

  /** kubectl drain's wait between evictions a PodDisruptionBudget refused. */
  static final long DRAIN_RETRY_MS = 5_000;

  /** The Eviction API's answer for a pod of this cluster ({@link EvictionBudget}). */
  private boolean budgetAllowsEviction(SimPod p) {
    Integer minAvailable = p.workload.minAvailable();
    if (minAvailable == null) {
      return true;
    }
    long healthy =
        pods.values().stream()
            .filter(q -> !q.gone && q.workload == p.workload && q.ready())
            .count();
    return EvictionBudget.allows(healthy, p.ready(), minAvailable);
  }

  /** {@code kubectl uncordon}: the node takes pods again (it re-joined). */
  private void uncordon(String node) {
    if (unschedulable.remove(node)) {
      nodeFreed();
    }
  }

  /**
   * The node stops (power, kernel or network): its kubelet no longer reports and its pods do no
   * work and serve nobody. Kubernetes finds out after the node monitor grace period: the node
   * lifecycle controller taints the node unreachable (NoSchedule, NoExecute) and marks its pods
   * NotReady; the taint eviction controller deletes each pod when its toleration of
   * unreachable:NoExecute runs out (300 s, added to every pod by DefaultTolerationSeconds), with
   * the DisruptionTarget condition DeletionByTaintManager. Those deletions cannot finish while the
   * kubelet is away: the pods stay Terminating until the node re-joins; their controllers replace
   * them at once.
   */
  private void fail(String node) {
    if (!down.add(node)) {
      return;
    }
    int failure = failures.merge(node, 1, Integer::sum);
    publishGpus();
    queue.after(
        NODE_MONITOR_GRACE_MS,
        () -> {
          if (!down.contains(node) || failures.get(node) != failure) {
            return;
          }
          unreachable.add(node);
          for (SimPod p : new ArrayList<>(pods.values())) {
            if (p.gone || !node.equals(p.node)) {
              continue;
            }
            if (p.ready()) {
              condition(p, "Ready", "False", null, null);
              writeStatus(p);
              api.kubeletEvent(
                  PodObjects.controllerEvent(
                      names.eventName(p.name),
                      p,
                      "Warning",
                      "NodeNotReady",
                      "Node is not ready",
                      queue.now(),
                      "node-controller"));
              notifyOwner(p);
            }
            if (p.deletionRequestedAt == null && !p.terminal()) {
              queue.after(UNREACHABLE_TOLERATION_MS, () -> taintEviction(p, node, failure));
            }
          }
        });
  }

  private void taintEviction(SimPod p, String node, int failure) {
    if (p.gone
        || p.deletionRequestedAt != null
        || !down.contains(node)
        || failures.get(node) != failure) {
      return;
    }
    Truth t = truth.get(p.uid);
    t.outcome = Outcome.EVICTED.wire();
    t.cause = DisruptionCause.TAINT_MANAGER.wire();
    condition(
        p,
        "DisruptionTarget",
        "True",
        "DeletionByTaintManager",
        "Taint manager: deleting due to NoExecute taint");
    writeStatus(p);
    api.kubeletEvent(
        PodObjects.controllerEvent(
            names.eventName(p.name),
            p,
            "Normal",
            "TaintManagerEviction",
            "Marking for deletion Pod " + p.namespace + "/" + p.name,
            queue.now(),
            "taint-eviction-controller"));
    // A graceful deletion no kubelet answers: the pod stays Terminating, its controller replaces
    // it.
    p.deletionRequestedAt = queue.now();
    writeMeta(p);
    notifyOwner(p);
    publishGpus();
  }

  /**
   * The node is back: Ready, untainted. Its kubelet finds its pods deleted meanwhile and stops them
   * at once (their grace period ran out long ago).
   */
  private void rejoin(String node) {
    if (!down.remove(node)) {
      return;
    }
    failures.merge(node, 1, Integer::sum);
    unreachable.remove(node);
    for (SimPod p : new ArrayList<>(pods.values())) {
      if (!p.gone && node.equals(p.node) && p.deletionRequestedAt != null) {
        queue.after(
            500 + random.nextInt(1000),
            () -> {
              if (p.containerStartedAt != null && p.containerFinishedAt == null) {
                kubeletEvent(p, "Killing", "Stopping container " + PodObjects.containerName(p));
              }
              containerStopped(p, true);
            });
      }
    }
    publishGpus();
    nodeFreed();
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

  /** The nodes as the scheduler sees them: a node found unreachable carries its taint. */
  private List<SimNode> schedulableView() {
    if (unreachable.isEmpty()) {
      return nodes;
    }
    List<SimNode> view = new ArrayList<>(nodes.size());
    for (SimNode n : nodes) {
      if (unreachable.contains(n.name())) {
        List<Taint> taints = new ArrayList<>(n.taints());
        taints.add(UNREACHABLE_NO_SCHEDULE);
        view.add(new SimNode(n.name(), n.gpus(), n.gpuModel(), n.labels(), taints, n.gpuUuids()));
      } else {
        view.add(n);
      }
    }
    return view;
  }

  private static long jittered(SplittableRandom r, long at, long jitter) {
    if (jitter <= 0) {
      return at;
    }
    return Math.max(0, at + r.nextLong(-jitter, jitter + 1));
  }

  /** True once every pod of the run is gone. */
  public boolean drained() {
    return ended && pods.values().stream().allMatch(p -> p.gone);
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

  /** The service interruptions of this run's Deployments, in order. */
  public List<ServiceInterruption> interruptions() {
    return List.copyOf(interruptions);
  }

  /** The ground truth of every pod of this run. */
  public List<PodTruth> truth() {
    List<PodTruth> out = new ArrayList<>();
    for (SimPod p : pods.values()) {
      Truth t = truth.get(p.uid);
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
        wasted = p.gpus * Math.max(0, p.containerFinishedAt - from) / 1000.0;
      }
      out.add(
          new PodTruth(
              p.uid,
              p.namespace,
              p.name,
              p.workload.name(),
              p.workload.kind(),
              arm.name(),
              repeat,
              p.priorityClassName,
              p.priority,
              p.gpus,
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
              t.cause));
    }
    return out;
  }

  // ------------------------------------------------------------------ pods and the API

  private SimPod newPod(
      Workload w, String ownerKind, String ownerName, String ownerUid, String generateName) {
    return newPod(w, ownerKind, ownerName, ownerUid, generateName, generateName + names.suffix());
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
    PriorityClassSpec pc =
        arm.priorityClasses() && w.priorityClass() != null
            ? scenario.priorityClass(w.priorityClass())
            : null;
    int priority = 0;
    String policy = "PreemptLowerPriority";
    if (pc != null) {
      priority = pc.value();
      policy = pc.preemptionPolicy();
      ClassOverride o = arm.overrides().get(pc.name());
      if (o != null) {
        priority = o.value() != null ? o.value() : priority;
        policy = o.preemptionPolicy() != null ? o.preemptionPolicy() : policy;
      }
    }
    SimPod p =
        new SimPod(
            names.uid(),
            scenario.namespace(),
            name,
            generateName,
            w,
            ownerKind,
            ownerName,
            ownerUid,
            pc == null ? null : pc.name(),
            priority,
            policy,
            queue.now());
    p.labels.put("app.kubernetes.io/name", w.name());
    p.labels.put("schedlens.io/experiment", scenario.experiment());
    p.labels.put("schedlens.io/arm", arm.name());
    p.labels.put("schedlens.io/repeat", Integer.toString(repeat));
    pods.put(p.uid, p);
    truth.put(p.uid, new Truth());
    return p;
  }

  /** The experiment labels every object of this run carries. */
  private Map<String, String> experimentLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("schedlens.io/experiment", scenario.experiment());
    labels.put("schedlens.io/arm", arm.name());
    labels.put("schedlens.io/repeat", Integer.toString(repeat));
    return labels;
  }

  private void create(SimPod p) {
    api.createPod(PodObjects.pod(p));
    // The scheduler sees the new pod within milliseconds.
    p.retryAt = queue.now() + 5 + random.nextInt(40);
    requestPass(p.retryAt);
  }

  private void writeMeta(SimPod p) {
    if (!p.gone) {
      api.updatePod(PodObjects.pod(p));
    }
  }

  private void writeStatus(SimPod p) {
    if (!p.gone) {
      api.updatePodStatus(PodObjects.pod(p));
    }
  }

  private void condition(SimPod p, String type, String status, String reason, String message) {
    SimPod.Condition old = p.conditions.get(type);
    long at = queue.now();
    if (old != null && old.status().equals(status)) {
      at = old.lastTransition(); // the transition time only moves when the status does
    }
    p.conditions.put(type, new SimPod.Condition(status, reason, message, at));
  }

  // ------------------------------------------------------------------ the scheduler

  private void requestPass(long at) {
    at = Math.max(at, queue.now());
    if (passScheduled && passAt <= at) {
      return;
    }
    passScheduled = true;
    passAt = at;
    long when = at;
    queue.at(
        when,
        () -> {
          if (passAt == when) {
            passScheduled = false;
            passAt = Long.MAX_VALUE;
            schedulingPass();
          }
        });
  }

  /** kube-scheduler pops due pods in queue order (priority, then creation time), one at a time. */
  private void schedulingPass() {
    long now = queue.now();
    List<SimPod> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (SimPod p : pods.values()) {
      if (p.pending()) {
        if (p.retryAt <= now) {
          due.add(p);
        } else {
          next = Math.min(next, p.retryAt);
        }
      }
    }
    due.sort(
        Comparator.comparingInt((SimPod p) -> -p.priority)
            .thenComparingLong(p -> p.createdAt)
            .thenComparing(p -> p.name));
    for (SimPod p : due) {
      scheduleOne(p);
      if (p.pending()) {
        next = Math.min(next, p.retryAt);
      }
    }
    if (next != Long.MAX_VALUE) {
      requestPass(next);
    }
  }

  private void scheduleOne(SimPod p) {
    long now = queue.now();
    p.attempts++;
    p.lastAttemptAt = now;
    Decision d = KubeScheduler.schedule(p, schedulableView(), livePods(), unschedulable);
    if (d instanceof Bind b) {
      bind(p, b.node());
      return;
    }
    String note = d instanceof Preempt pr ? pr.note() : ((Unschedulable) d).note();
    // Unschedulable: wait for a pod to leave a node, or for the periodic flush.
    p.retryAt = now + UNSCHEDULABLE_FLUSH_MS;
    if (d instanceof Preempt pr) {
      // The post-filter runs first; the failure is recorded after it.
      preempt(p, pr.node(), pr.victims());
    }
    failedScheduling(p, note);
    condition(p, "PodScheduled", "False", "Unschedulable", note);
    writeStatus(p);
  }

  private List<SimPod> livePods() {
    return pods.values().stream().filter(x -> !x.gone).toList();
  }

  private void failedScheduling(SimPod p, String note) {
    long now = queue.now();
    SimPod.EventSeries s = p.failedScheduling.get(note);
    if (s == null) {
      s = new SimPod.EventSeries(names.eventName(p.name), now);
      p.failedScheduling.put(note, s);
    } else {
      s.count++;
      s.lastAt = now;
    }
    api.schedulerEvent(
        PodObjects.schedulerEvent(
            s.name,
            p,
            null,
            "Warning",
            "FailedScheduling",
            "Scheduling",
            note,
            s.firstAt,
            s.count,
            s.lastAt));
  }

  private void bind(SimPod p, String node) {
    long now = queue.now();
    p.node = node;
    p.nominatedNode = null;
    truth.get(p.uid).scheduledAt = now;
    api.updatePod(PodObjects.pod(p)); // the binding sets spec.nodeName
    condition(p, "PodScheduled", "True", null, null);
    writeStatus(p);
    api.schedulerEvent(
        PodObjects.schedulerEvent(
            names.eventName(p.name),
            p,
            null,
            "Normal",
            "Scheduled",
            "Binding",
            "Successfully assigned " + p.namespace + "/" + p.name + " to " + node,
            now,
            1,
            now));
    kubeletStart(p);
  }

  private void preempt(SimPod preemptor, String node, List<SimPod> victims) {
    long now = queue.now();
    preemptor.nominatedNode = node;
    // Lower-priority pods nominated to that node lose their nomination.
    for (SimPod other : pods.values()) {
      if (other != preemptor
          && other.pending()
          && node.equals(other.nominatedNode)
          && other.priority < preemptor.priority) {
        other.nominatedNode = null;
        writeStatus(other);
      }
    }
    for (SimPod v : victims) {
      Truth t = truth.get(v.uid);
      t.preemptedAt = now;
      t.cause = DisruptionCause.PREEMPTION.wire();
      t.preemptorUid = preemptor.uid;
      truth.get(preemptor.uid).victims.add(v.uid);
      v.preempted = true;
      condition(
          v,
          "DisruptionTarget",
          "True",
          "PreemptionByScheduler",
          PodObjects.SCHEDULER + ": preempting to accommodate a higher priority pod");
      writeStatus(v);
      api.schedulerEvent(
          PodObjects.schedulerEvent(
              names.eventName(v.name),
              v,
              preemptor,
              "Normal",
              "Preempted",
              "Preempting",
              "Preempted by pod " + preemptor.uid + " on node " + node,
              now,
              1,
              now));
      delete(v);
    }
  }

  /** Wakes pods waiting for room: a pod left a node. */
  private void nodeFreed() {
    long now = queue.now();
    long earliest = Long.MAX_VALUE;
    for (SimPod p : pods.values()) {
      if (p.pending()) {
        long backoff = Math.min(10_000L, 1000L << Math.min(10, Math.max(0, p.attempts - 1)));
        p.retryAt = Math.min(p.retryAt, Math.max(now, p.lastAttemptAt + backoff));
        earliest = Math.min(earliest, p.retryAt);
      }
    }
    if (earliest != Long.MAX_VALUE) {
      requestPass(earliest);
    }
  }

  // ------------------------------------------------------------------ the kubelet

  private void kubeletStart(SimPod p) {
    boolean warm = p.workload.template().warmStart();
    long seen = warm ? 20 + random.nextInt(40) : 100 + random.nextInt(400);
    queue.after(
        seen,
        () -> {
          if (stopped(p)) {
            return;
          }
          condition(p, "PodReadyToStartContainers", "False", null, null);
          condition(p, "Initialized", "True", null, null);
          condition(
              p,
              "Ready",
              "False",
              "ContainersNotReady",
              "containers with unready status: [" + PodObjects.containerName(p) + "]");
          condition(
              p,
              "ContainersReady",
              "False",
              "ContainersNotReady",
              "containers with unready status: [" + PodObjects.containerName(p) + "]");
          p.containerWaitingReason = "ContainerCreating";
          writeStatus(p);
        });
    long sandbox = seen + (warm ? 50 + random.nextInt(100) : 800 + random.nextInt(700));
    queue.after(
        sandbox,
        () -> {
          if (stopped(p)) {
            return;
          }
          condition(p, "PodReadyToStartContainers", "True", null, null);
          writeStatus(p);
          if (!warm) {
            kubeletEvent(p, "Pulling", "Pulling image \"" + p.workload.template().image() + "\"");
          }
        });
    long pull =
        warm
            ? 0
            : Math.max(200, p.workload.template().pull().toMillis() + random.nextLong(-1000, 1001));
    queue.after(
        sandbox + pull,
        () -> {
          if (stopped(p)) {
            return;
          }
          kubeletEvent(
              p,
              "Pulled",
              warm
                  ? "Container image \""
                      + p.workload.template().image()
                      + "\" already present on machine"
                  : String.format(
                      "Successfully pulled image \"%s\" in %.3fs (%.3fs including waiting). Image size: 8123456789 bytes.",
                      p.workload.template().image(), pull / 1000.0, pull / 1000.0));
          kubeletEvent(p, "Created", "Created container: " + PodObjects.containerName(p));
        });
    long started = sandbox + pull + (warm ? 20 + random.nextInt(60) : 300 + random.nextInt(500));
    queue.after(started, () -> containerStarted(p));
  }

  private void kubeletEvent(SimPod p, String reason, String message) {
    api.kubeletEvent(
        PodObjects.kubeletEvent(
            names.eventName(p.name), p, "Normal", reason, message, queue.now()));
  }

  private void containerStarted(SimPod p) {
    if (stopped(p)) {
      return;
    }
    long now = queue.now();
    kubeletEvent(p, "Started", "Started container " + PodObjects.containerName(p));
    p.containerStartedAt = now;
    p.containerWaitingReason = null;
    p.phase = "Running";
    allocateGpus(p);
    if (p.workload.spec() instanceof JobSpec job) {
      // No readiness probe: ready as soon as it runs.
      p.containerReady = true;
      condition(p, "ContainersReady", "True", null, null);
      condition(p, "Ready", "True", null, null);
      p.readyAt = now;
      writeStatus(p);
      startWork(p, job);
    } else if (p.workload.spec() instanceof ServingSpec serving) {
      writeStatus(p);
      long load =
          Math.max(
              p.workload.template().warmStart() ? 50 : 1000,
              jittered(
                  random,
                  serving.modelLoad().at().toMillis(),
                  serving.modelLoad().jitter().toMillis()));
      queue.after(
          load,
          () -> {
            if (stopped(p)) {
              return;
            }
            p.containerReady = true;
            p.readyAt = queue.now();
            condition(p, "ContainersReady", "True", null, null);
            condition(p, "Ready", "True", null, null);
            writeStatus(p);
            publishGpus();
            notifyOwner(p);
          });
    }
    publishGpus();
  }

  private void allocateGpus(SimPod p) {
    SimNode node = node(p.node);
    boolean[] used = new boolean[node.gpus()];
    for (SimPod other : pods.values()) {
      if (other != p
          && p.node.equals(other.node)
          && !other.gone
          && other.containerFinishedAt == null) {
        other.gpuIndices.forEach(i -> used[i] = true);
      }
    }
    p.gpuIndices = new ArrayList<>();
    for (int i = 0; i < used.length && p.gpuIndices.size() < p.gpus; i++) {
      if (!used[i]) {
        p.gpuIndices.add(i);
      }
    }
  }

  private SimNode node(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  /** Deletes a pod as the API server does: at once when unbound or terminal, else gracefully. */
  private void delete(SimPod p) {
    if (p.gone || p.deletionRequestedAt != null) {
      return;
    }
    p.deletionRequestedAt = queue.now();
    if (p.node == null) {
      // No kubelet is responsible for an unbound pod: the API server marks it deleted with grace
      // period 0 and removes it at once.
      writeMeta(p);
      remove(p);
      return;
    }
    writeMeta(p); // deletionTimestamp, deletionGracePeriodSeconds
    notifyOwner(p);
    publishGpus();
    if (p.terminal()) {
      queue.after(200 + random.nextInt(300), () -> remove(p));
      return;
    }
    long killAt = 50 + random.nextInt(150);
    queue.after(
        killAt,
        () -> {
          if (p.containerStartedAt != null) {
            kubeletEvent(p, "Killing", "Stopping container " + PodObjects.containerName(p));
          }
        });
    long stop = p.workload.template().stopTime().toMillis();
    boolean killed = stop >= p.graceMs;
    long stopAfter = killAt + Math.min(stop, p.graceMs);
    queue.after(stopAfter, () -> containerStopped(p, killed));
  }

  private void containerStopped(SimPod p, boolean killed) {
    if (p.gone) {
      return;
    }
    long now = queue.now();
    p.containerReady = false;
    condition(p, "Ready", "False", "PodCompleted", null);
    condition(p, "ContainersReady", "False", "PodCompleted", null);
    condition(p, "PodReadyToStartContainers", "False", null, null);
    if (p.containerStartedAt != null) {
      p.containerFinishedAt = now;
      if (killed) {
        p.exitCode = 137;
        p.terminatedReason = "Error";
      } else if (p.workload.spec() instanceof JobSpec) {
        p.exitCode = 143;
        p.terminatedReason = "Error";
      } else {
        p.exitCode = 0;
        p.terminatedReason = "Completed";
      }
      p.phase = p.exitCode == 0 ? "Succeeded" : "Failed";
    } else {
      p.containerWaitingReason = null;
      p.phase = "Failed";
    }
    writeStatus(p);
    publishGpus();
    nodeFreed();
    notifyOwner(p);
    queue.after(200 + random.nextInt(600), () -> remove(p));
  }

  private void remove(SimPod p) {
    if (p.gone) {
      return;
    }
    api.deletePod(p.namespace, p.name);
    p.gone = true;
    Truth t = truth.get(p.uid);
    t.deletedAt = queue.now();
    if (t.outcome == null) {
      t.outcome = (t.preemptedAt != null ? Outcome.PREEMPTED : Outcome.DELETED).wire();
    }
    publishGpus();
    nodeFreed();
    notifyOwner(p);
  }

  private void notifyOwner(SimPod p) {
    for (DeploymentController d : deployments) {
      if (d.owns(p)) {
        d.reconcile();
        d.serviceCheck(p);
      }
    }
    for (JobController j : jobs) {
      if (j.uid.equals(p.ownerUid)) {
        j.podChanged(p);
      }
    }
  }

  // ------------------------------------------------------------------ Job work

  private void startWork(SimPod p, JobSpec job) {
    long now = queue.now();
    long setup = job.setup().toMillis();
    p.productiveFrom = now + setup;
    long remaining = Math.max(0, p.workNeeded - p.progressAtStart);
    long doneAt = p.productiveFrom + remaining;
    long interval = job.checkpointInterval().toMillis();
    if (interval > 0) {
      for (long k = 1; p.productiveFrom + k * interval < doneAt; k++) {
        long at = p.productiveFrom + k * interval;
        long progress = p.progressAtStart + k * interval;
        queue.at(at, () -> checkpoint(p, progress));
      }
    }
    queue.at(p.productiveFrom, this::publishGpus);
    queue.at(doneAt, () -> completed(p));
  }

  private void checkpoint(SimPod p, long progress) {
    if (stopped(p)) {
      return;
    }
    long now = queue.now();
    p.lastCheckpointAt = now;
    p.checkpointedProgress = progress;
    p.annotations.put(CHECKPOINT_ANNOTATION, KubeTime.seconds(now));
    writeMeta(p);
  }

  private void completed(SimPod p) {
    if (stopped(p)) {
      return;
    }
    long now = queue.now();
    p.checkpointedProgress = p.workNeeded;
    p.containerFinishedAt = now;
    p.exitCode = 0;
    p.terminatedReason = "Completed";
    p.phase = "Succeeded";
    p.containerReady = false;
    condition(p, "Ready", "False", "PodCompleted", null);
    condition(p, "ContainersReady", "False", "PodCompleted", null);
    condition(p, "PodReadyToStartContainers", "False", null, null);
    truth.get(p.uid).outcome = Outcome.SUCCEEDED.wire();
    writeStatus(p);
    publishGpus();
    nodeFreed();
    notifyOwner(p);
  }

  // ------------------------------------------------------------------ controllers

  // ------------------------------------------------------------------ traffic

  private void trafficTick(DeploymentController rs) {
    if (ended) {
      return;
    }
    long now = queue.now();
    Traffic t = rs.spec.traffic();
    if (rs.desired > 0) {
      List<SimPod> ready = rs.readyPods();
      long tick = t.tick().toMillis();
      int n = poisson(t.ratePerSecond() * tick / 1000.0);
      double load =
          ready.isEmpty() ? 0 : t.ratePerSecond() / (ready.size() * t.capacityPerReplica());
      double factor = 1.0 / (1.0 - Math.min(load, 0.9));
      for (int i = 0; i < n; i++) {
        long at = now + random.nextInt((int) tick);
        if (ready.isEmpty()) {
          unserved++;
          unservedByService.merge(t.service(), 1L, Long::sum);
          continue;
        }
        SimPod p = ready.get(random.nextInt(ready.size()));
        if (down.contains(p.node)) {
          // Routed to a pod on a stopped node that is still Ready on the API: nobody answers.
          unserved++;
          unservedByService.merge(t.service(), 1L, Long::sum);
          continue;
        }
        double latency = t.latencyMedianMs() * Math.exp(t.latencySigma() * gaussian()) * factor;
        boolean error = random.nextDouble() < t.errorRate();
        int status = error ? 500 : 200;
        Truth truthOf = truth.get(p.uid);
        truthOf.requests++;
        Double slo = scenario.slos().get(t.service());
        if (slo == null && p.priorityClassName != null) {
          slo = scenario.slos().get(p.priorityClassName);
        }
        double logged = Math.round(latency * 10) / 10.0;
        if (slo != null && logged > slo) {
          truthOf.sloBreaches++;
        }
        if (error) {
          truthOf.errors++;
        } else if (p.firstOkAt == null || at < p.firstOkAt) {
          p.firstOkAt = at;
        }
        requests.request(
            at,
            p.namespace,
            p.name,
            t.service(),
            "/v1/chat/completions",
            status,
            logged,
            Math.round(latency * 0.18 * 10) / 10.0,
            "req-" + repeat + "-" + (++requestSeq));
      }
    }
    queue.after(t.tick().toMillis(), () -> trafficTick(rs));
  }

  private int poisson(double lambda) {
    if (lambda > 30) {
      return (int) Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian()));
    }
    double l = Math.exp(-lambda);
    int k = 0;
    double p = 1;
    do {
      k++;
      p *= random.nextDouble();
    } while (p > l);
    return k - 1;
  }

  private double gaussian() {
    // Box-Muller on the run's own random source (deterministic).
    double u = Math.max(1e-12, random.nextDouble());
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  // ------------------------------------------------------------------ GPUs

  private void publishGpus() {
    long now = queue.now();
    List<GpuView.Slot> slots = new ArrayList<>();
    for (SimNode n : nodes) {
      SimPod[] holder = new SimPod[n.gpus()];
      for (SimPod p : pods.values()) {
        if (n.name().equals(p.node)
            && !p.gone
            && p.containerStartedAt != null
            && p.containerFinishedAt == null) {
          for (int i : p.gpuIndices) {
            holder[i] = p;
          }
        }
      }
      for (int i = 0; i < n.gpus(); i++) {
        SimPod p = holder[i];
        if (p == null) {
          slots.add(
              new GpuView.Slot(
                  n.name(),
                  i,
                  n.gpuUuids().get(i),
                  n.gpuModel(),
                  null,
                  null,
                  null,
                  GpuView.Activity.FREE,
                  0));
          continue;
        }
        GpuView.Activity activity;
        double load = 0;
        if (p.deletionRequestedAt != null || down.contains(p.node)) {
          activity = GpuView.Activity.STOPPING;
        } else if (p.workload.spec() instanceof JobSpec) {
          activity =
              p.productiveFrom != null && now >= p.productiveFrom
                  ? GpuView.Activity.WORKING
                  : GpuView.Activity.LOADING;
        } else if (p.ready()) {
          activity = GpuView.Activity.SERVING;
          DeploymentController rs =
              deployments.stream().filter(d -> d.owns(p)).findFirst().orElse(null);
          Traffic t = p.workload.spec() instanceof ServingSpec serving ? serving.traffic() : null;
          if (rs != null && t != null && rs.desired > 0) {
            load =
                t.ratePerSecond() / (Math.max(1, rs.readyPods().size()) * t.capacityPerReplica());
          }
        } else {
          activity = GpuView.Activity.LOADING;
        }
        slots.add(
            new GpuView.Slot(
                n.name(),
                i,
                n.gpuUuids().get(i),
                n.gpuModel(),
                p.namespace,
                p.name,
                PodObjects.containerName(p),
                activity,
                load));
      }
    }
    gpuView.publish(slots);
  }

  // ------------------------------------------------------------------ the end

  /** The run is over: Deployments scale to zero, Jobs are deleted with their pods. */
  private void finish() {
    ended = true;
    for (DeploymentController d : deployments) {
      d.write();
      d.reconcile();
      d.serviceCheck(null);
    }
    for (SimPod p : List.copyOf(pods.values())) {
      if (!p.gone && p.workload.spec() instanceof JobSpec) {
        delete(p);
      }
    }
    // The run's harness deletes the Jobs still there (the next run applies them again).
    for (JobController j : jobs) {
      if (!j.finished) {
        j.finished = true;
        api.deleteObject(j.object(null));
      }
    }
    publishGpus();
  }

  /**
   * Whether a pod's kubelet work is over: its deletion was asked, it is gone, or its node is down.
   * A step of its start or its work that comes due after that does nothing.
   */
  private boolean stopped(SimPod p) {
    return p.deletionRequestedAt != null || p.gone || down.contains(p.node);
  }
}
