package io.schedlens.simulator.cluster;

import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Traffic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each GPU of the run's nodes does, for the simulated dcgm-exporter ({@link GpuView}): free,
 * or held by a running container that loads, works, serves (with the load per replica) or stops.
 * Published again whenever that may have changed.
 */
final class GpuPublisher {

  private final ClusterState c;
  private final GpuView view;
  private final List<DeploymentController> deployments;

  GpuPublisher(ClusterState c, GpuView view, List<DeploymentController> deployments) {
    this.c = c;
    this.view = view;
    this.deployments = deployments;
  }

  void publish() {
    if (!view.watched()) {
      return;
    }
    view.publish(slots());
  }

  List<GpuView.Slot> slots() {
    long now = c.queue.now();
    List<GpuView.Slot> slots = new ArrayList<>();
    Map<String, List<SimPod>> running = new HashMap<>();
    for (SimPod p : c.live.values()) {
      if (p.node != null && p.containerStartedAt != null && p.containerFinishedAt == null) {
        running.computeIfAbsent(p.node, k -> new ArrayList<>()).add(p);
      }
    }
    for (SimNode n : c.nodes) {
      Map<SimNode.Device, SimPod> holder = new HashMap<>();
      for (SimPod p : running.getOrDefault(n.name(), List.of())) {
        for (int i : p.gpuIndices) {
          holder.put(n.device(p.gpuResource, i), p);
        }
      }
      int replicas = n.layout().replicas();
      for (int g = 0; g < n.gpus(); g++) {
        if (n.partitioned(g)) {
          // dcgm-exporter reports each MIG instance on its own (GPU_I_PROFILE, GPU_I_ID)
          for (int i = 1; i <= n.instancesPerGpu(); i++) {
            SimPod p = holder.get(new SimNode.Device(g, i, 0));
            slots.add(slot(n, g, p, now, n.layout().migProfile(), i, null));
          }
        } else if (replicas > 1) {
          // a time-sliced GPU: a slot per pod holding a replica (virtual GPUs), else the GPU's own
          int held = 0;
          for (int r = 0; r < replicas; r++) {
            SimPod p = holder.get(new SimNode.Device(g, null, r));
            if (p != null) {
              slots.add(slot(n, g, p, now, null, null, r));
              held++;
            }
          }
          if (held == 0) {
            slots.add(slot(n, g, null, now, null, null, null));
          }
        } else {
          slots.add(slot(n, g, holder.get(new SimNode.Device(g, null, 0)), now, null, null, null));
        }
      }
    }
    return slots;
  }

  /** GPU {@code g} of {@code n} (or one of its MIG instances or replicas), held by {@code p}. */
  private GpuView.Slot slot(
      SimNode n, int g, SimPod p, long now, String profile, Integer instance, Integer vgpu) {
    if (p == null) {
      return new GpuView.Slot(
          n.name(),
          g,
          n.gpuUuids().get(g),
          n.gpuModel(),
          null,
          null,
          null,
          GpuView.Activity.FREE,
          0,
          profile,
          instance,
          vgpu);
    }
    GpuView.Activity activity;
    double load = 0;
    if (p.deletionRequestedAt != null || c.down.contains(p.node)) {
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
        load = t.ratePerSecond() / (Math.max(1, rs.readyPods().size()) * t.capacityPerReplica());
      }
    } else {
      activity = GpuView.Activity.LOADING;
    }
    return new GpuView.Slot(
        n.name(),
        g,
        n.gpuUuids().get(g),
        n.gpuModel(),
        p.namespace,
        p.name,
        PodObjects.containerName(p),
        activity,
        load,
        profile,
        instance,
        vgpu);
  }
}
