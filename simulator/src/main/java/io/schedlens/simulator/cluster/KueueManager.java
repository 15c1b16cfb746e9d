package io.schedlens.simulator.cluster;

import io.schedlens.base.DisruptionCause;
import io.schedlens.simulator.cluster.KueuePreemption.Victim;
import io.schedlens.simulator.cluster.QueuedWorkload.Stand;
import io.schedlens.simulator.scenario.Kueue;
import io.schedlens.simulator.scenario.Kueue.ClusterQueue;
import io.schedlens.simulator.scenario.Kueue.WorkloadPriorityClass;
import io.schedlens.simulator.scenario.Scenario.GpuQuota;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Kueue's controller manager (kueue-controller-manager) in the simulated cluster, beside
 * kube-scheduler: like the scheduling queue it acts on the shared {@link ClusterState}, not through
 * a workload controller's context: its Job integration (a Job that names a LocalQueue is created
 * suspended; Kueue creates its Workload, un-suspends the Job once the Workload is admitted,
 * suspends it again when the Workload is evicted, and releases the quota once its pods have
 * stopped) and its scheduler (admission in priority order, then creation, best-effort FIFO;
 * preemption by {@link KueuePreemption}). Each Workload is written as Kueue writes it, with the
 * conditions and reasons of Kueue v0.14+ ({@code QuotaReserved}, {@code Admitted}, {@code Evicted},
 * {@code Preempted}, {@code Requeued}, {@code Finished}).
 *
 * <p>An arm's GPU quota is also a ClusterQueue of the same name: what the pods it gates hold counts
 * against the ClusterQueue, and what Kueue admits to it counts at the gate ({@link QuotaLedger}).
 * The quota Kueue holds is kept as Workloads take and release it, and a cycle looks only at
 * Workloads that have not finished, so that a week of Jobs costs no more per cycle than the
 * Workloads waiting or running.
 *
 * <p>Not simulated: admission checks, PodsReady timeouts (and the {@code PodsReady} condition),
 * fair sharing, several resource flavors, LocalQueue and ClusterQueue objects themselves (their
 * names are on each Workload).
 */
final class KueueManager {

  /** The one ResourceFlavor of the simulated ClusterQueues. */
  static final String FLAVOR = "default-flavor";

  private static final Comparator<QueuedWorkload> QUEUE_ORDER =
      Comparator.<QueuedWorkload>comparingInt(w -> -w.priority)
          .thenComparingLong(w -> w.createdAt)
          .thenComparing(w -> w.uid);

  private final ClusterState state;
  private final Kueue kueue;
  private final KueuePreemption preemption;

  /** Every Workload not yet deleted, in creation order. */
  private final Set<QueuedWorkload> workloads = new LinkedHashSet<>();

  /** Those not finished (pending, admitted, evicting), in creation order: what a cycle looks at. */
  private final Set<QueuedWorkload> active = new LinkedHashSet<>();

  private boolean cycleDue;

  KueueManager(ClusterState state) {
    this.state = state;
    this.kueue = state.scenario.kueue();
    this.preemption = new KueuePreemption(kueue);
  }

  /** Whether a Job of this spec waits for Kueue: it names a queue and Kueue is installed. */
  boolean queues(JobSpec spec) {
    return kueue.installed() && spec.queue() != null;
  }

  /** Kueue's job integration sees a new suspended Job: it creates the Job's Workload. */
  QueuedWorkload submit(JobController job, Workload w, JobSpec spec) {
    String wpc = workloadPriorityClassOf(spec);
    QueuedWorkload q =
        new QueuedWorkload(
            state.names.uid(),
            "job-" + job.name + "-" + state.names.chars(5).toLowerCase(Locale.ROOT),
            job,
            spec.queue(),
            kueue.clusterQueueOf(spec.queue()),
            priority(w, wpc),
            wpc,
            spec.parallelism() * w.template().gpus(),
            state.queue.now());
    workloads.add(q);
    active.add(q);
    state.quotas.queued(job.uid);
    write(q);
    cycleSoon();
    return q;
  }

  /** The WorkloadPriorityClass a Job of this spec names in this arm, or null. */
  String workloadPriorityClassOf(JobSpec spec) {
    return state.arm.priorityClasses() ? spec.workloadPriorityClass() : null;
  }

  /**
   * A Workload's priority as Kueue takes it: its WorkloadPriorityClass's value, else its pods'
   * PriorityClass's (in this arm), else 0.
   */
  private int priority(Workload w, String wpc) {
    if (wpc != null) {
      WorkloadPriorityClass c = kueue.workloadPriorityClass(wpc);
      return c == null ? 0 : c.value();
    }
    return state.podClass(w).priority();
  }

  /** A pod of an admitted Workload's Job: the ground truth keeps the admission it came from. */
  void podCreated(QueuedWorkload q, SimPod p) {
    LiveTruth t = state.truth(p.uid);
    t.queue = q.localQueue;
    t.admittedAt = q.admittedAt;
    t.queueWaitMs = q.queueWaitMs;
  }

  /**
   * The evicted Workload's Job has no active pod left: Kueue releases its quota and re-queues it.
   */
  void stopped(QueuedWorkload q) {
    if (q.stand != Stand.EVICTING || state.ended) {
      return;
    }
    long now = state.queue.now();
    String message = q.evictionMessage();
    stand(q, Stand.PENDING);
    q.requeues++;
    if (q.requeuedAt == null) {
      q.requeuedAt = now;
    }
    q.condition("Requeued", true, "Preempted", message, now);
    q.condition("QuotaReserved", false, "Pending", message, now);
    q.condition("Admitted", false, "NoReservation", "The workload has no reservation", now);
    q.pendingTold = true;
    write(q);
    cycleSoon();
  }

  /** The Workload's Job finished: Kueue marks it Finished and releases its quota. */
  void finished(QueuedWorkload q, boolean succeeded) {
    if (q.stand == Stand.FINISHED) {
      return;
    }
    stand(q, Stand.FINISHED);
    q.condition(
        "Finished",
        true,
        succeeded ? "Succeeded" : "Failed",
        succeeded ? "Job finished successfully" : "Job failed",
        state.queue.now());
    write(q);
    cycleSoon();
  }

  /** The Workload's Job was deleted: the garbage collector deletes the Workload it owns. */
  void deleted(QueuedWorkload q) {
    if (workloads.remove(q)) {
      state.api.deleteObject(q.object(state.scenario.namespace()));
      if (q.stand != Stand.FINISHED) {
        stand(q, Stand.FINISHED); // gone: its quota is released
      }
      cycleSoon();
    }
  }

  private void cycleSoon() {
    if (!cycleDue && !state.ended) {
      cycleDue = true;
      state.queue.after(0, this::cycle);
    }
  }

  /**
   * One scheduling cycle, in queue order, in two passes. First, a Workload that fits in its
   * ClusterQueue's nominal quota is admitted; one that does not fit at all preempts what it may
   * (Kueue prefers borrowing to preempting: one that fits by borrowing waits for the second pass).
   * Then a Workload that fits by borrowing is admitted, and one that still does not fit says why it
   * waits. While a Workload waits for its victims to stop, nothing else of its ClusterQueue is
   * admitted, nor anything of its cohort that would borrow.
   */
  private void cycle() {
    cycleDue = false;
    if (state.ended) {
      return;
    }
    List<QueuedWorkload> pending = new ArrayList<>();
    List<QueuedWorkload> holding = new ArrayList<>();
    for (QueuedWorkload q : active) {
      if (q.stand == Stand.PENDING) {
        pending.add(q);
      } else if (q.holdsQuota()) {
        holding.add(q);
      }
    }
    if (pending.isEmpty()) {
      return;
    }
    pending.sort(QUEUE_ORDER);
    Set<String> blockedQueues = new HashSet<>();
    Set<String> blockedCohorts = new HashSet<>();
    Map<String, Integer> usage = usage();
    for (QueuedWorkload q : pending) {
      ClusterQueue cq = q.clusterQueue;
      if (q.stand != Stand.PENDING || blockedQueues.contains(cq.name())) {
        continue;
      }
      if (!preemption.fits(q, usage)) {
        List<Victim> victims = preemption.victims(q, holding, usage);
        if (victims != null) {
          victims.stream()
              .filter(v -> v.workload().stand == Stand.ADMITTED)
              .forEach(v -> evict(v, q));
          blockedQueues.add(cq.name());
          if (cq.cohort() != null) {
            blockedCohorts.add(cq.cohort());
          }
          // a victim with no active pod releases its quota at once
          usage = usage();
        }
      } else if (!preemption.borrows(q, usage)) {
        admit(q, usage, holding);
      }
    }
    for (QueuedWorkload q : pending) {
      ClusterQueue cq = q.clusterQueue;
      if (q.stand != Stand.PENDING || blockedQueues.contains(cq.name())) {
        continue;
      }
      if (!preemption.fits(q, usage)) {
        pendingMessage(q, usage);
      } else if (!blockedCohorts.contains(cq.cohort())) {
        admit(q, usage, holding);
      }
    }
  }

  /**
   * The GPUs each ClusterQueue holds: its admitted and evicting Workloads' (from the ledger), and
   * for an arm's quota of the same name what the pods it gates hold.
   */
  private Map<String, Integer> usage() {
    Map<String, Integer> usage = state.quotas.admittedCopy();
    for (GpuQuota q : state.arm.quotas()) {
      usage.merge(q.name(), SchedulingQueue.gatedUse(state, q), Integer::sum);
    }
    return usage;
  }

  /**
   * A pod left its node: where an arm's quota gates pods, what they hold changed, and a waiting
   * Workload of its ClusterQueue may fit now.
   */
  void podLeft() {
    if (!state.arm.quotas().isEmpty() && !cycleDue && hasPending()) {
      cycleSoon();
    }
  }

  private boolean hasPending() {
    for (QueuedWorkload q : active) {
      if (q.stand == Stand.PENDING) {
        return true;
      }
    }
    return false;
  }

  /**
   * Moves {@code q} to {@code next}, keeping the ledger: admitted, it takes its GPUs; re-queued or
   * finished while holding quota, it gives them back.
   */
  private void stand(QueuedWorkload q, Stand next) {
    boolean held = q.holdsQuota();
    q.stand = next;
    if (!held && q.holdsQuota()) {
      state.quotas.take(q.clusterQueue.name(), q.gpus);
    } else if (held && !q.holdsQuota()) {
      state.quotas.giveBack(q.clusterQueue.name(), q.gpus);
    }
    if (next == Stand.FINISHED) {
      active.remove(q);
    }
  }

  /** Admits {@code q}, adding its GPUs to {@code usage} and it to {@code holding}. */
  private void admit(QueuedWorkload q, Map<String, Integer> usage, List<QueuedWorkload> holding) {
    usage.merge(q.clusterQueue.name(), q.gpus, Integer::sum);
    holding.add(q);
    long now = state.queue.now();
    stand(q, Stand.ADMITTED);
    q.admittedAt = now;
    q.queueWaitMs = Math.max(0, now - q.waitingSince());
    q.pendingTold = false;
    q.condition(
        "QuotaReserved",
        true,
        "QuotaReserved",
        "Quota reserved in ClusterQueue " + q.clusterQueue.name(),
        now);
    q.reset("Evicted", "QuotaReserved", now);
    q.reset("Preempted", "QuotaReserved", now);
    q.condition("Admitted", true, "Admitted", "The workload is admitted", now);
    write(q);
    q.job.resume();
  }

  /** Kueue's scheduler evicts {@code v} for {@code preemptor}; the job integration suspends it. */
  private void evict(Victim v, QueuedWorkload preemptor) {
    long now = state.queue.now();
    QueuedWorkload q = v.workload();
    String message =
        "Preempted to accommodate a workload (UID: "
            + preemptor.uid
            + ", JobUID: "
            + preemptor.job.uid
            + ") due to "
            + (v.reason().equals("InClusterQueue")
                ? "prioritization in the ClusterQueue"
                : "reclamation within the cohort")
            + "; preemptor path: "
            + path(preemptor.clusterQueue)
            + "; preemptee path: "
            + path(q.clusterQueue);
    stand(q, Stand.EVICTING);
    q.condition("Evicted", true, "Preempted", message, now);
    q.condition("Preempted", true, v.reason(), message, now);
    write(q);
    for (SimPod p : q.job.pods()) {
      if (p.active() && p.containerStartedAt != null) { // running: a victim
        LiveTruth t = state.truth(p.uid);
        t.preemptedAt = now;
        t.cause = DisruptionCause.QUEUE_PREEMPTION.wire();
      }
    }
    q.job.suspend();
  }

  private static String path(ClusterQueue cq) {
    return (cq.cohort() == null ? "" : "/" + cq.cohort()) + "/" + cq.name();
  }

  private void pendingMessage(QueuedWorkload q, Map<String, Integer> usage) {
    if (q.pendingTold) {
      return;
    }
    q.pendingTold = true;
    int free =
        Math.max(0, q.clusterQueue.nominalGpus() - usage.getOrDefault(q.clusterQueue.name(), 0));
    q.condition(
        "QuotaReserved",
        false,
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in"
            + " flavor "
            + FLAVOR
            + ", "
            + Math.max(1, q.gpus - free)
            + " more needed",
        state.queue.now());
    write(q);
  }

  private void write(QueuedWorkload q) {
    state.api.applyObject(q.object(state.scenario.namespace()));
  }

  /** The run is over: the harness deletes the Jobs, and with them their Workloads. */
  void end() {
    for (QueuedWorkload q : List.copyOf(workloads)) {
      deleted(q);
    }
  }
}
