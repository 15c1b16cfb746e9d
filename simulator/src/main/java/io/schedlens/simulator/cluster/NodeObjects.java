package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.schedlens.base.GpuShares;
import io.schedlens.base.KubeTime;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A simulated node as the API server holds it: its labels with those NVIDIA's GPU feature discovery
 * adds ({@link SimNode#gpuLabels}), and its GPU resources allocatable as the device plugin offers
 * them.
 */
public final class NodeObjects {

  private NodeObjects() {}

  /** The node, created at {@code createdAt}. */
  public static Node node(SimNode n, long createdAt) {
    Map<String, String> labels = new TreeMap<>(n.labels());
    labels.put("kubernetes.io/hostname", n.name());
    labels.putAll(n.gpuLabels());
    Map<String, Quantity> allocatable = new TreeMap<>();
    allocatable.put(GpuShares.WHOLE, new Quantity(Integer.toString(n.devices(GpuShares.WHOLE))));
    String mig = n.layout().migResource();
    if (mig != null) {
      allocatable.put(mig, new Quantity(Integer.toString(n.devices(mig))));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(n.name())
        .withUid(UUID.nameUUIDFromBytes(n.name().getBytes(StandardCharsets.UTF_8)).toString())
        .withCreationTimestamp(KubeTime.seconds(createdAt))
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withAllocatable(allocatable)
        .withCapacity(allocatable)
        .endStatus()
        .build();
  }
}
