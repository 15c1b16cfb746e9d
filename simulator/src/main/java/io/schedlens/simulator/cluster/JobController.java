package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
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

  JobController(
      ControllerContext cluster, Workload w, JobSpec spec, String name, SplittableRandom r) {
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
    write(null);
    reconcile();
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
        jobSetName == null ? null : WorkloadObjects.controlledBy(jobSetObject(completedAt)));
  }

  void reconcile() {
    if (cluster.ended() || finished) {
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
      cluster.create(p);
    }
  }

  void podChanged(SimPod p) {
    long[] unit = running.get(p);
    if (unit == null) {
      return;
    }
    if ("Succeeded".equals(p.phase) && p.deletionRequestedAt == null) {
      running.remove(p);
      succeeded++;
      if (succeeded == spec.completions()) {
        finished = true;
        write(cluster.queue().now());
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
    boolean counted = !(spec.ignoreDisruptions() && p.preempted);
    if (counted) {
      failures++;
      if (failures > spec.backoffLimit()) {
        finished = true; // BackoffLimitExceeded: the Job fails, its active pods go
        running.keySet().forEach(cluster::delete);
        return;
      }
      long delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MS << Math.min(10, failures - 1));
      notBefore = cluster.queue().now() + delay;
    }
    reconcile();
  }

  void cleanUp() {
    for (SimPod p : List.copyOf(created)) {
      if (!p.gone) {
        cluster.delete(p);
      }
    }
    cluster.api().deleteObject(object(null));
    if (jobSetName != null) {
      cluster.api().deleteObject(jobSetObject(null));
    }
  }
}
