package io.schedlens.schemas;

import io.schedlens.avro.GpuSample;

/**
 * Which GPU a sample is of: its UUID (else node/gpu index), plus the MIG instance. The collector
 * measures a sample's interval since the previous sample of the same series; the streams app
 * de-duplicates samples by series and time.
 */
public final class GpuSeriesId {

  private GpuSeriesId() {}

  public static String of(GpuSample s) {
    String base = s.getUuid() != null ? s.getUuid() : s.getNode() + "/" + s.getGpu();
    return s.getMigInstanceId() == null ? base : base + "/mig-" + s.getMigInstanceId();
  }
}
