package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.schedlens.base.KueueNames;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The Job controller: keeps {@code parallelism} pods running until {@code completions} succeeded,
 * each a unit of work that resumes from its last checkpoint when a pod ends early; a failed pod
 * counts against {@code backoffLimit} and delays the next by the controller's backoff (not a pod
 * the scheduler preempted, with {@code ignoreDisruptions}: a podFailurePolicy that ignores
 * DisruptionTarget); {@code ttlSecondsAfterFinished} after the last success its pods and object go.
 * A JobSet's Job ({@link JobSpec#jobSet()}) is its one replicated Job, {@code NAME-workers-0},
 * owned by the JobSet {@code NAME}, its pods labelled as the JobSet controller labels them.
 *
 * <p>A Job that names a Kueue LocalQueue ({@link JobSpec#queue()}) is created suspended: it creates
 * no pod until Kueue admits its Workload ({@link #resume}); when Kueue evicts the Workload it is
 * suspended again ({@link #suspend}), its pods are deleted without counting as failures, and Kueue
 * is told once none is active.
 */
final class JobController {

  /** The Job controller's backoff after a failed pod: 10 s, doubling, at most 6 min. */
  static final long BACKOFF_MS = 10_000;

  static final long BACKOFF_MAX_MS = 6 * 60_000;

  private final ControllerContext cluster;
  final Workload w;
  private final JobSpec spec;
  final String name;
  final String uid;

  /** The JobSet above the Job, or null for a plain Job. */
  final String jobSetName;

  final String jobSetUid;
  final Deque<long[]> units = new ArrayDeque<>(); // {workNeeded, checkpointedProgress}
  final Map<SimPod, long[]> running = new LinkedHashMap<>();

  /** Every pod this Job created, in order: what its cleanup deletes (not every pod's owner). */
  private final List<SimPod> created = new ArrayList<>();

  int succeeded;
  int failures;
  long notBefore;
  boolean finished;

  /** spec.suspend: the Job creates no pod (Kueue has not admitted it, or evicted it). */
  private boolean suspended;

  /** Kueue, when the Job waits for it; else null. */
  private final KueueManager kueue;

  /** Its Kueue Workload, or null. */
  private QueuedWorkload queued;

  JobController(
      ControllerContext cluster,
      Workload w,
      JobSpec spec,
      String name,
      SplittableRandom r,
      KueueManager kueue) {
    this.cluster = cluster;
    this.jobSetUid = spec.jobSet() ? cluster.newUid() : null;
    this.uid = cluster.newUid();
    this.w = w;
    this.spec = spec;
    // The same manifest applied in every run: same name, a new UID (workloads are told apart
    // by UID, as Kubernetes does).
    this.jobSetName = spec.jobSet() ? name : null;
    this.name = spec.jobSet() ? name + "-" + WorkloadObjects.JOBSET_REPLICATED_JOB + "-0" : name;
    for (int i = 0; i < spec.completions(); i++) {
      long work =
          i < spec.unitWork().size() ? spec.unitWork().get(i).toMillis() : spec.work().toMillis();
      if (i >= spec.unitWork().size() && spec.workJitter() > 0) {
        work = (long) (work * (1 + (r.nextDouble() * 2 - 1) * spec.workJitter()));
      }
      units.add(new long[] {work, 0});
    }
    this.kueue = kueue != null && kueue.queues(spec) ? kueue : null;
    this.suspended = this.kueue != null;
    write(null);
    if (this.kueue != null) {
      queued = this.kueue.submit(this, w, spec);
    }
    reconcile();
  }

  int parallelism() {
    return spec.parallelism();
  }

  /** Kueue admitted the Workload: it un-suspends the Job, whose controller creates its pods. */
  void resume() {
    suspended = false;
    write(null);
    reconcile();
  }

  /**
   * Kueue evicted the Workload: it suspends the Job, whose controller deletes its active pods (they
   * are not failures); Kueue is told when none is active.
   */
  void suspend() {
    suspended = true;
    write(null);
    for (SimPod p : List.copyOf(running.keySet())) {
      cluster.delete(p);
    }
    stoppedCheck();
  }

  /** A suspended Job with no active pod left: Kueue may release its quota. */
  private void stoppedCheck() {
    if (suspended && queued != null && created.stream().allMatch(p -> p.gone || p.terminal())) {
      kueue.stopped(queued);
    }
  }

  void write(Long completedAt) {
    if (jobSetName != null) {
      cluster.api().applyObject(jobSetObject(completedAt));
    }
    cluster.api().applyObject(object(completedAt));
  }

  /** The JobSet above the Job, as the API shows it; null for a plain Job. */
  HasMetadata jobSetObject(Long completedAt) {
    return jobSetName == null
        ? null
        : WorkloadObjects.jobSet(
            cluster.namespace(),
            jobSetName,
            jobSetUid,
            spec.parallelism(),
            completedAt,
            cluster.experimentLabels(),
            cluster.queue().now());
  }

  /** Every pod this Job created, in order. */
  List<SimPod> pods() {
    return List.copyOf(created);
  }

  /** The Job object as the API shows it. */
  Job object(Long completedAt) {
    return WorkloadObjects.job(
        cluster.namespace(),
        name,
        uid,
        spec.parallelism(),
        spec.completions(),
        succeeded,
        completedAt,
        cluster.experimentLabels(),
        cluster.queue().now(),
        jobSetName == null ? null : WorkloadObjects.controlledBy(jobSetObject(completedAt)),
        suspended,
        spec.queue() == null ? Map.of() : queueLabels());
  }

  /** The Kueue labels its user gives the Job: its LocalQueue and WorkloadPriorityClass. */
  private Map<String, String> queueLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(KueueNames.QUEUE_LABEL, spec.queue());
    String wpc = kueue == null ? null : kueue.workloadPriorityClassOf(spec);
    if (wpc != null) {
      labels.put(KueueNames.PRIORITY_CLASS_LABEL, wpc);
    }
    return labels;
  }

  void reconcile() {
    if (cluster.ended() || finished || suspended) {
      return;
    }
    long now = cluster.queue().now();
    if (now < notBefore) {
      cluster.queue().at(notBefore, this::reconcile);
      return;
    }
    while (running.size() < spec.parallelism() && !units.isEmpty()) {
      long[] unit = units.poll();
      SimPod p = cluster.newPod(w, "Job", name, uid, name + "-");
      p.labels.put("batch.kubernetes.io/job-name", name);
      p.labels.put("job-name", name);
      p.labels.put("batch.kubernetes.io/controller-uid", uid);
      p.labels.put("controller-uid", uid);
      if (jobSetName != null) {
        p.labels.put("jobset.sigs.k8s.io/jobset-name", jobSetName);
        p.labels.put(
            "jobset.sigs.k8s.io/replicatedjob-name", WorkloadObjects.JOBSET_REPLICATED_JOB);
        p.labels.put("jobset.sigs.k8s.io/job-index", "0");
        p.labels.put("jobset.sigs.k8s.io/restart-attempt", "0");
      }
      p.workNeeded = unit[0];
      p.progressAtStart = unit[1];
      p.checkpointedProgress = unit[1];
      running.put(p, unit);
      created.add(p);
      if (queued != null) {
        kueue.podCreated(queued, p);
      }
      cluster.create(p);
    }
  }

  void podChanged(SimPod p) {
    long[] unit = running.get(p);
    if (unit == null) {
      stoppedCheck();
      return;
    }
    if ("Succeeded".equals(p.phase) && p.deletionRequestedAt == null) {
      running.remove(p);
      succeeded++;
      if (succeeded == spec.completions()) {
        finished = true;
        write(cluster.queue().now());
        if (queued != null) {
          kueue.finished(queued, true);
        }
        cluster.queue().after(spec.ttlAfterFinished().toMillis(), this::cleanUp);
      } else {
        write(null);
      }
      reconcile();
      return;
    }
    // podReplacementPolicy: Failed with a podFailurePolicy, else TerminatingOrFailed.
    boolean replace =
        spec.ignoreDisruptions()
            ? p.terminal() || p.gone
            : p.deletionRequestedAt != null || p.terminal();
    if (!replace) {
      return;
    }
    running.remove(p);
    unit[1] = Math.max(unit[1], p.checkpointedProgress);
    units.addFirst(unit);
    // A suspended Job's pods are deleted by its controller: not failures.
    boolean counted = !(spec.ignoreDisruptions() && p.preempted) && !suspended;
    if (counted) {
      failures++;
      if (failures > spec.backoffLimit()) {
        finished = true; // BackoffLimitExceeded: the Job fails, its active pods go
        running.keySet().forEach(cluster::delete);
        if (queued != null) {
          kueue.finished(queued, false);
        }
        return;
      }
      long delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MS << Math.min(10, failures - 1));
      notBefore = cluster.queue().now() + delay;
    }
    reconcile();
    stoppedCheck();
  }

  void cleanUp() {
    for (SimPod p : List.copyOf(created)) {
      if (!p.gone) {
        cluster.delete(p);
      }
    }
    deleteObjects();
  }

  /** The run's harness deletes the Job (the garbage collector its Workload). */
  void delete() {
    finished = true;
    deleteObjects();
  }

  /** The Job, its JobSet and its Workload leave the API. */
  private void deleteObjects() {
    cluster.api().deleteObject(object(null));
    if (jobSetName != null) {
      cluster.api().deleteObject(jobSetObject(null));
    }
    if (queued != null) {
      kueue.deleted(queued);
    }
  }
}
