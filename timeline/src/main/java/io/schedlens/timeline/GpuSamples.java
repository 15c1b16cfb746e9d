package io.schedlens.timeline;

import io.schedlens.avro.GpuSample;
import java.util.HashMap;
import java.util.Map;

/** What the timeline takes from a GPU sample. */
public final class GpuSamples {

  private GpuSamples() {}

  /**
   * The sample with only what busy time needs (which GPU, when, how busy): a default-counters
   * scrape carries some twenty fields and labels per GPU that would otherwise travel through the
   * internal topics and be decoded again for nothing.
   */
  public static GpuSample trimmed(GpuSample s) {
    Map<String, Double> fields = new HashMap<>(2);
    Double engine = s.getFields().get(GpuBusy.ENGINE_ACTIVE);
    if (engine != null) {
      fields.put(GpuBusy.ENGINE_ACTIVE, engine);
    } else {
      Double util = s.getFields().get(GpuBusy.GPU_UTIL);
      if (util != null) {
        fields.put(GpuBusy.GPU_UTIL, util);
      }
    }
    return GpuSample.newBuilder()
        .setTime(s.getTime())
        .setNode(s.getNode())
        .setGpu(s.getGpu())
        .setUuid(s.getUuid())
        .setMigInstanceId(s.getMigInstanceId())
        .setNamespace(s.getNamespace())
        .setPod(s.getPod())
        .setFields(fields)
        .build();
  }
}
