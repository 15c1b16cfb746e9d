package io.schedlens.simulator.cluster;

import io.schedlens.base.KubeTime;
import io.schedlens.base.Outcome;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * The kubelets of the run's nodes, and the API server's part of a pod deletion: a bound pod's
 * sandbox, image pull, container start (core/v1 events), readiness after a server's model load (a
 * batch container at start), a Job pod's work with its checkpoints, and graceful termination
 * (SIGTERM with the Killing event; the container exits 0 for a server, 143 for a batch worker, or
 * is killed at the grace period with 137; the pod gets its terminal phase and is then removed). A
 * step that comes due after the pod stopped ({@link ClusterState#stopped}) does nothing.
 */
final class Kubelet {

  /** Where a Job pod's process writes its latest checkpoint time. */
  static final String CHECKPOINT_ANNOTATION = "schedlens.io/last-checkpoint";

  private final ClusterState c;
  private final Runnable nodeFreed;
  private final Consumer<SimPod> podChanged;
  private final Runnable gpusChanged;

  /**
   * @param nodeFreed a pod left a node (the scheduling queue wakes its waiting pods)
   * @param podChanged a pod's readiness or life changed (its controller reconciles)
   * @param gpusChanged what a GPU does changed (the GPU metrics are published again)
   */
  Kubelet(ClusterState c, Runnable nodeFreed, Consumer<SimPod> podChanged, Runnable gpusChanged) {
    this.c = c;
    this.nodeFreed = nodeFreed;
    this.podChanged = podChanged;
    this.gpusChanged = gpusChanged;
  }

  /** A pod was bound to this kubelet's node: its sandbox, image and container, in order. */
  void start(SimPod p) {
    boolean warm = p.workload.template().warmStart();
    long seen = warm ? 20 + c.random.nextInt(40) : 100 + c.random.nextInt(400);
    c.queue.after(
        seen,
        () -> {
          if (c.stopped(p)) {
            return;
          }
          p.kubeletStartedAt = c.queue.now();
          c.condition(p, "PodReadyToStartContainers", "False", null, null);
          c.condition(p, "Initialized", "True", null, null);
          c.condition(
              p,
              "Ready",
              "False",
              "ContainersNotReady",
              "containers with unready status: [" + PodObjects.containerName(p) + "]");
          c.condition(
              p,
              "ContainersReady",
              "False",
              "ContainersNotReady",
              "containers with unready status: [" + PodObjects.containerName(p) + "]");
          p.containerWaitingReason = "ContainerCreating";
          c.writeStatus(p);
        });
    long sandbox = seen + (warm ? 50 + c.random.nextInt(100) : 800 + c.random.nextInt(700));
    c.queue.after(
        sandbox,
        () -> {
          if (c.stopped(p)) {
            return;
          }
          c.condition(p, "PodReadyToStartContainers", "True", null, null);
          c.writeStatus(p);
          if (!warm) {
            event(p, "Pulling", "Pulling image \"" + p.workload.template().image() + "\"");
          }
        });
    long pull =
        warm
            ? 0
            : Math.max(
                200, p.workload.template().pull().toMillis() + c.random.nextLong(-1000, 1001));
    c.queue.after(
        sandbox + pull,
        () -> {
          if (c.stopped(p)) {
            return;
          }
          event(
              p,
              "Pulled",
              warm
                  ? "Container image \""
                      + p.workload.template().image()
                      + "\" already present on machine"
                  : String.format(
                      "Successfully pulled image \"%s\" in %.3fs (%.3fs including waiting). Image size: 8123456789 bytes.",
                      p.workload.template().image(), pull / 1000.0, pull / 1000.0));
          event(p, "Created", "Created container: " + PodObjects.containerName(p));
        });
    long started =
        sandbox + pull + (warm ? 20 + c.random.nextInt(60) : 300 + c.random.nextInt(500));
    c.queue.after(started, () -> containerStarted(p));
  }

  /** Deletes a pod as the API server does: at once when unbound or terminal, else gracefully. */
  void delete(SimPod p) {
    if (p.gone || p.deletionRequestedAt != null) {
      return;
    }
    p.deletionRequestedAt = c.queue.now();
    if (p.node == null) {
      c.failedSchedulingEnded(p);
      // No kubelet is responsible for an unbound pod: the API server marks it deleted with grace
      // period 0 and removes it at once.
      c.writeMeta(p);
      remove(p);
      return;
    }
    c.writeMeta(p); // deletionTimestamp, deletionGracePeriodSeconds
    podChanged.accept(p);
    gpusChanged.run();
    if (p.terminal()) {
      c.queue.after(200 + c.random.nextInt(300), () -> remove(p));
      return;
    }
    long killAt = 50 + c.random.nextInt(150);
    c.queue.after(
        killAt,
        () -> {
          if (p.containerStartedAt != null) {
            event(p, "Killing", "Stopping container " + PodObjects.containerName(p));
          }
        });
    long stop = p.workload.template().stopTime().toMillis();
    boolean killed = stop >= p.graceMs;
    long stopAfter = killAt + Math.min(stop, p.graceMs);
    c.queue.after(stopAfter, () -> containerStopped(p, killed));
  }

  /**
   * The node is back and its kubelet finds the pod deleted while it was away: it stops it at once
   * (its grace period ran out long ago).
   */
  void rejoined(SimPod p) {
    c.queue.after(
        500 + c.random.nextInt(1000),
        () -> {
          if (p.containerStartedAt != null && p.containerFinishedAt == null) {
            event(p, "Killing", "Stopping container " + PodObjects.containerName(p));
          }
          containerStopped(p, true);
        });
  }

  private void event(SimPod p, String reason, String message) {
    c.api.kubeletEvent(
        PodObjects.kubeletEvent(
            c.names.eventName(p.name), p, "Normal", reason, message, c.queue.now()));
  }

  private void containerStarted(SimPod p) {
    if (c.stopped(p)) {
      return;
    }
    long now = c.queue.now();
    event(p, "Started", "Started container " + PodObjects.containerName(p));
    p.containerStartedAt = now;
    p.containerWaitingReason = null;
    p.phase = "Running";
    allocateGpus(p);
    if (p.workload.spec() instanceof JobSpec job) {
      // No readiness probe: ready as soon as it runs.
      p.containerReady = true;
      c.condition(p, "ContainersReady", "True", null, null);
      c.condition(p, "Ready", "True", null, null);
      p.readyAt = now;
      c.writeStatus(p);
      startWork(p, job);
    } else if (p.workload.spec() instanceof ServingSpec serving) {
      c.writeStatus(p);
      long load =
          Math.max(
              p.workload.template().warmStart() ? 50 : 1000,
              ClusterState.jittered(
                  c.random,
                  serving.modelLoad().at().toMillis(),
                  serving.modelLoad().jitter().toMillis()));
      c.queue.after(
          load,
          () -> {
            if (c.stopped(p)) {
              return;
            }
            p.containerReady = true;
            p.readyAt = c.queue.now();
            c.condition(p, "ContainersReady", "True", null, null);
            c.condition(p, "Ready", "True", null, null);
            c.writeStatus(p);
            gpusChanged.run();
            podChanged.accept(p);
          });
    }
    gpusChanged.run();
  }

  /**
   * The device plugin's allocation: the node's lowest-numbered devices of the pod's resource no
   * running container holds.
   */
  private void allocateGpus(SimPod p) {
    SimNode node = c.node(p.node);
    boolean[] used = new boolean[node.devices(p.gpuResource)];
    for (SimPod other : c.live.values()) {
      if (other != p
          && p.node.equals(other.node)
          && other.gpuResource.equals(p.gpuResource)
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

  private void containerStopped(SimPod p, boolean killed) {
    if (p.gone) {
      return;
    }
    long now = c.queue.now();
    p.containerReady = false;
    c.condition(p, "Ready", "False", "PodCompleted", null);
    c.condition(p, "ContainersReady", "False", "PodCompleted", null);
    c.condition(p, "PodReadyToStartContainers", "False", null, null);
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
    c.writeStatus(p);
    gpusChanged.run();
    nodeFreed.run();
    podChanged.accept(p);
    c.queue.after(200 + c.random.nextInt(600), () -> remove(p));
  }

  private void remove(SimPod p) {
    if (p.gone) {
      return;
    }
    c.api.deletePod(p.namespace, p.name);
    p.gone = true;
    c.live.remove(p.uid);
    LiveTruth t = c.truth(p.uid);
    t.deletedAt = c.queue.now();
    if (t.outcome == null) {
      t.outcome = (t.preemptedAt != null ? Outcome.PREEMPTED : Outcome.DELETED).wire();
    }
    gpusChanged.run();
    nodeFreed.run();
    podChanged.accept(p);
  }

  // ------------------------------------------------------------------ a Job pod's work

  private void startWork(SimPod p, JobSpec job) {
    long now = c.queue.now();
    long setup = job.setup().toMillis();
    p.productiveFrom = now + setup;
    long remaining = Math.max(0, p.workNeeded - p.progressAtStart);
    long doneAt = p.productiveFrom + remaining;
    long interval = job.checkpointInterval().toMillis();
    if (interval > 0) {
      for (long k = 1; p.productiveFrom + k * interval < doneAt; k++) {
        long at = p.productiveFrom + k * interval;
        long progress = p.progressAtStart + k * interval;
        c.queue.at(at, () -> checkpoint(p, progress));
      }
    }
    c.queue.at(p.productiveFrom, gpusChanged);
    c.queue.at(doneAt, () -> completed(p));
  }

  private void checkpoint(SimPod p, long progress) {
    if (c.stopped(p)) {
      return;
    }
    long now = c.queue.now();
    p.lastCheckpointAt = now;
    p.checkpointedProgress = progress;
    p.annotations.put(CHECKPOINT_ANNOTATION, KubeTime.seconds(now));
    c.writeMeta(p);
  }

  private void completed(SimPod p) {
    if (c.stopped(p)) {
      return;
    }
    long now = c.queue.now();
    p.checkpointedProgress = p.workNeeded;
    p.containerFinishedAt = now;
    p.exitCode = 0;
    p.terminatedReason = "Completed";
    p.phase = "Succeeded";
    p.containerReady = false;
    c.condition(p, "Ready", "False", "PodCompleted", null);
    c.condition(p, "ContainersReady", "False", "PodCompleted", null);
    c.condition(p, "PodReadyToStartContainers", "False", null, null);
    c.truth(p.uid).outcome = Outcome.SUCCEEDED.wire();
    c.writeStatus(p);
    gpusChanged.run();
    nodeFreed.run();
    podChanged.accept(p);
  }
}
