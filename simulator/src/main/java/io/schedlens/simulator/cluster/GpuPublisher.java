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
      SimPod[] holder = new SimPod[n.gpus()];
      for (SimPod p : running.getOrDefault(n.name(), List.of())) {
        for (int i : p.gpuIndices) {
          holder[i] = p;
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
    return slots;
  }
}
