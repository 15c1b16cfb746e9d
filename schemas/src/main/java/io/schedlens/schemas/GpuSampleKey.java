package io.schedlens.schemas;

import io.schedlens.avro.GpuSample;

/**
 * The key of a GPU sample on its topic: the pod's {@code namespace/name} ({@link PodName}) when
 * dcgm-exporter attributed the GPU to a pod, else {@code node/gpu} (plus the MIG instance), so that
 * an idle GPU's samples stay together and are never taken for a pod's.
 */
public final class GpuSampleKey {

  private GpuSampleKey() {}

  public static String of(GpuSample s) {
    if (s.getPod() != null && s.getNamespace() != null) {
      return new PodName(s.getNamespace(), s.getPod()).key();
    }
    String key =
        (s.getNode() == null ? "unknown-node" : s.getNode())
            + "/"
            + (s.getGpu() == null ? s.getUuid() : s.getGpu());
    return s.getMigInstanceId() == null ? key : key + "/mig-" + s.getMigInstanceId();
  }
}
