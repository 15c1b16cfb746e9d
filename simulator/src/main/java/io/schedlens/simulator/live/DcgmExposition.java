package io.schedlens.simulator.live;

import io.schedlens.base.GpuShares;
import io.schedlens.simulator.cluster.GpuView;
import io.schedlens.simulator.cluster.GpuView.Slot;
import io.schedlens.simulator.cluster.SimNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * What dcgm-exporter would print for a simulated node: its text format and label set (gpu, UUID,
 * pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION, and container/namespace/pod
 * while a container holds the GPU), the default-counters fields, values following what each GPU's
 * holder is doing ({@link GpuView}) with noise. Served by {@link DcgmExporterServer}, written to a
 * file by {@link ClusterRecorder}.
 */
public final class DcgmExposition {

  private static final String DRIVER = "580.105.08";
  private static final double FB_TOTAL_MIB = 81559;

  private record Field(String name, String type, String help) {}

  private static final List<Field> FIELDS =
      List.of(
          new Field("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
          new Field("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz)."),
          new Field("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
          new Field("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
          new Field("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
          new Field("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."),
          new Field("DCGM_FI_DEV_FB_FREE", "gauge", "Frame buffer memory free (in MB)."),
          new Field("DCGM_FI_DEV_FB_USED", "gauge", "Frame buffer memory used (in MB)."),
          new Field(
              "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
              "gauge",
              "Ratio of time the graphics engine is active."),
          new Field(
              "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
              "gauge",
              "Ratio of cycles the tensor (HMMA) pipe is active."));

  private final GpuView gpus;

  /**
   * Seeded: the noise of a recorded scrape depends only on the scrapes before it, so a recording of
   * one scenario is the same every time (live, scrapes come when the collector asks).
   */
  private final Random noise = new Random(NOISE_SEED);

  static final long NOISE_SEED = 0x5CED_1E45L;

  public DcgmExposition(GpuView gpus) {
    this.gpus = gpus;
  }

  /**
   * The node's exposition text now; with {@code timestampMs}, every sample carries it (as a
   * recording of scrapes does).
   */
  public String text(SimNode node, Long timestampMs) {
    List<Slot> slots = gpus.slots().stream().filter(s -> s.node().equals(node.name())).toList();
    if (slots.isEmpty()) {
      slots = freeSlots(node);
    }
    StringBuilder b = new StringBuilder(4096);
    double[][] values = values(slots);
    for (int f = 0; f < FIELDS.size(); f++) {
      Field field = FIELDS.get(f);
      b.append("# HELP ").append(field.name()).append(' ').append(field.help()).append('\n');
      b.append("# TYPE ").append(field.name()).append(' ').append(field.type()).append('\n');
      for (int i = 0; i < slots.size(); i++) {
        Slot s = slots.get(i);
        if (s.migProfile() != null && NOT_FOR_MIG.contains(field.name())) {
          continue;
        }
        b.append(field.name()).append('{');
        b.append("gpu=\"").append(s.index()).append("\",");
        b.append("UUID=\"").append(s.uuid()).append("\",");
        b.append("pci_bus_id=\"00000000:").append(String.format("%02X", 0x18 + s.index() * 0x11));
        b.append(":00.0\",");
        b.append("device=\"nvidia").append(s.index()).append("\",");
        b.append("modelName=\"").append(s.model()).append("\",");
        if (s.migProfile() != null) {
          b.append("GPU_I_PROFILE=\"").append(s.migProfile()).append("\",");
          b.append("GPU_I_ID=\"").append(s.migInstance()).append("\",");
        }
        b.append("Hostname=\"").append(s.node()).append("\",");
        b.append("DCGM_FI_DRIVER_VERSION=\"").append(DRIVER).append('"');
        if (s.pod() != null) {
          b.append(",container=\"").append(s.container()).append('"');
          b.append(",namespace=\"").append(s.namespace()).append('"');
          b.append(",pod=\"").append(s.pod()).append('"');
          if (s.vgpu() != null) {
            b.append(",vgpu=\"").append(s.vgpu()).append('"');
          }
        }
        b.append("} ");
        double v = values[i][f];
        if (v == Math.rint(v)) {
          b.append((long) v);
        } else {
          b.append(String.format("%.6f", v));
        }
        if (timestampMs != null) {
          b.append(' ').append(timestampMs);
        }
        b.append('\n');
      }
    }
    return b.toString();
  }

  /**
   * DCGM does not report these for a MIG instance (docs/design.md section 4): its busy time is the
   * profiling fields'.
   */
  private static final Set<String> NOT_FOR_MIG =
      Set.of("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL");

  /** The node's devices, all free: before the simulation published what they do. */
  private static List<Slot> freeSlots(SimNode node) {
    List<Slot> slots = new ArrayList<>();
    for (int g = 0; g < node.gpus(); g++) {
      int instances = node.partitioned(g) ? node.instancesPerGpu() : 0;
      for (int i = instances == 0 ? 0 : 1; i <= instances; i++) {
        slots.add(
            new Slot(
                node.name(),
                g,
                node.gpuUuids().get(g),
                node.gpuModel(),
                null,
                null,
                null,
                GpuView.Activity.FREE,
                0,
                instances == 0 ? null : node.layout().migProfile(),
                instances == 0 ? null : i,
                null));
      }
    }
    return slots;
  }

  /**
   * Every slot's field values. Each holder's activity gives a utilisation; a time-sliced GPU's
   * utilisation is its holders' together (at most 100 %), and each holder's copy of the GPU's
   * series carries the GPU's value, as dcgm-exporter's virtual GPUs do. A MIG instance's frame
   * buffer is its part of the GPU's.
   */
  private double[][] values(List<Slot> slots) {
    double[][] values = new double[slots.size()][];
    Map<String, double[]> shared = new HashMap<>();
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      double[] own = activity(s);
      if (s.vgpu() != null) {
        double[] gpu = shared.computeIfAbsent(s.uuid(), k -> new double[2]);
        gpu[0] += own[0];
        gpu[1] += own[1];
        continue;
      }
      double part =
          s.migProfile() == null
              ? 1.0
              : 1.0 / Math.max(1, GpuShares.instancesPerGpu(s.migProfile(), s.model()));
      values[i] = vector(own[0], own[1] * part, part);
    }
    Map<String, double[]> sharedValues = new HashMap<>();
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      if (s.vgpu() != null) {
        double[] gpu = shared.get(s.uuid());
        values[i] =
            sharedValues.computeIfAbsent(
                s.uuid(),
                k -> vector(Math.min(100, gpu[0]), Math.min(FB_TOTAL_MIB - 516, gpu[1]), 1.0));
      }
    }
    return values;
  }

  /** Utilisation (%) and frame buffer used (MiB) of what the slot's holder is doing. */
  private double[] activity(Slot s) {
    return switch (s.activity()) {
      case FREE -> new double[] {0, 0};
      case LOADING -> new double[] {3 + noise.nextInt(9), 30_000 + noise.nextInt(20_000)};
      case SERVING ->
          new double[] {
            Math.max(1, Math.min(100, Math.round(8 + 85 * s.load() + noise.nextGaussian() * 4))),
            72_000 + noise.nextInt(2_000)
          };
      case WORKING -> new double[] {92 + noise.nextInt(8), 60_000 + noise.nextInt(6_000)};
      default -> new double[] {noise.nextInt(5), 20_000};
    };
  }

  /** The fields' values for a utilisation and frame buffer; {@code part} of the GPU's memory. */
  private double[] vector(double util, double fbUsed, double part) {
    double gr = Math.min(1.0, util / 100.0 * (0.88 + noise.nextDouble() * 0.08));
    return new double[] {
      util > 0 ? 1980 : 345,
      util > 0 ? 2619 : 1593,
      30 + util * 0.4 + noise.nextInt(3),
      Math.round((70 + util * 6.2) * 1000) / 1000.0,
      util,
      Math.round(util * 0.6),
      Math.round((FB_TOTAL_MIB - 516) * part - fbUsed),
      Math.round(fbUsed),
      Math.round(gr * 1e6) / 1e6,
      Math.round(gr * 0.7 * 1e6) / 1e6
    };
  }
}
