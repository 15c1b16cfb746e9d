package io.schedlens.simulator.cluster;

import io.schedlens.base.GpuShares;
import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import io.schedlens.simulator.scenario.Scenario.Taint;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A GPU node: its GPUs, labels, taints and the GPUs' identities as dcgm-exporter reports them, and
 * the devices the device plugin offers of them ({@code layout}): whole GPUs ({@code
 * nvidia.com/gpu}, each {@code replicas} times when time-sliced) and MIG instances ({@code
 * nvidia.com/mig-<profile>}) of the first {@code migGpus} GPUs.
 */
public record SimNode(
    String name,
    int gpus,
    String gpuModel,
    Map<String, String> labels,
    List<Taint> taints,
    List<String> gpuUuids,
    GpuLayout layout) {

  /** A node of whole GPUs. */
  public SimNode(
      String name,
      int gpus,
      String gpuModel,
      Map<String, String> labels,
      List<Taint> taints,
      List<String> gpuUuids) {
    this(name, gpus, gpuModel, labels, taints, gpuUuids, GpuLayout.WHOLE);
  }

  /**
   * One device of a resource: the GPU it is on (index), its MIG instance (GPU_I_ID, or null) and
   * its replica (0 without time-slicing).
   */
  public record Device(int gpu, Integer migInstance, int replica) {}

  /** MIG instances of the layout's profile per partitioned GPU. */
  public int instancesPerGpu() {
    return layout.instancesPerGpu(gpuModel);
  }

  /** How many devices of {@code resource} the node offers (its allocatable). */
  public int devices(String resource) {
    return layout.devices(resource, gpus, gpuModel);
  }

  /**
   * The part of a physical GPU one device of {@code resource} on this node is (docs/design.md
   * "Shared GPUs"): a MIG instance's compute slices over the GPU's, a time-sliced GPU's replica
   * 1/replicas, else 1.
   */
  public double share(String resource) {
    double device = GpuShares.device(resource, null, gpuModel);
    return GpuShares.WHOLE.equals(resource) ? device / layout.replicas() : device;
  }

  /**
   * Device {@code index} of {@code resource}: the partitioned GPUs come first (GPU 0 ...), their
   * instances numbered from 1 as MIG numbers GPU instances; the whole GPUs after them, each's
   * replicas together.
   */
  public Device device(String resource, int index) {
    if (GpuShares.WHOLE.equals(resource)) {
      return new Device(
          layout.migGpus() + index / layout.replicas(), null, index % layout.replicas());
    }
    int per = instancesPerGpu();
    return new Device(index / per, index % per + 1, 0);
  }

  /** Whether GPU {@code index} is partitioned into MIG instances. */
  public boolean partitioned(int gpu) {
    return gpu < layout.migGpus();
  }

  /**
   * The labels NVIDIA's GPU feature discovery puts on the node for its resources
   * (k8s-device-plugin, internal/lm/resource.go): {@code <resource>.count}, {@code .replicas},
   * {@code .sharing-strategy} and {@code .product} (with {@code -SHARED} when time-sliced), and
   * {@code nvidia.com/gpu.product} whatever the resource.
   */
  public Map<String, String> gpuLabels() {
    Map<String, String> out = new TreeMap<>();
    String product = gpuModel.replace(' ', '-');
    int whole = gpus - layout.migGpus();
    boolean shared = layout.replicas() > 1;
    out.put(GpuShares.WHOLE + ".count", Integer.toString(whole));
    out.put(GpuShares.WHOLE + ".replicas", Integer.toString(layout.replicas()));
    out.put(GpuShares.WHOLE + ".sharing-strategy", shared ? "time-slicing" : "none");
    out.put(GpuShares.WHOLE + ".product", shared ? product + "-SHARED" : product);
    if (layout.migResource() != null) {
      String r = layout.migResource();
      out.put(r + ".count", Integer.toString(devices(r)));
      out.put(r + ".replicas", "1");
      out.put(r + ".sharing-strategy", "none");
      out.put(r + ".product", product + "-MIG-" + layout.migProfile());
    }
    return out;
  }
}
