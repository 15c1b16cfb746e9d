package io.schedlens.simulator.live;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.schedlens.simulator.cluster.GpuView;
import io.schedlens.simulator.cluster.GpuView.Slot;
import io.schedlens.simulator.cluster.SimNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * dcgm-exporter for the simulated GPUs: one {@code /metrics} per node (at {@code /<node>/metrics}),
 * in the exporter's text format and label set (gpu, UUID, pci_bus_id, device, modelName, Hostname,
 * DCGM_FI_DRIVER_VERSION, and container/namespace/pod while a container holds the GPU), with the
 * default-counters fields. Values follow what each GPU's holder is doing ({@link GpuView}), with
 * noise; an unallocated GPU has no pod labels, as on a real node.
 */
public final class DcgmExporterServer implements AutoCloseable {

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

  private final HttpServer server;
  private final ExecutorService executor;
  private final GpuView gpus;
  private final List<SimNode> nodes;
  private final Random noise = new Random();

  private DcgmExporterServer(
      HttpServer server, ExecutorService executor, GpuView gpus, List<SimNode> nodes) {
    this.server = server;
    this.executor = executor;
    this.gpus = gpus;
    this.nodes = nodes;
  }

  /** Serves on 127.0.0.1 and a free port. */
  public static DcgmExporterServer start(GpuView gpus, List<SimNode> nodes) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
      ExecutorService executor =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread t = new Thread(r, "sim-dcgm-exporter");
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(executor);
      DcgmExporterServer s = new DcgmExporterServer(server, executor, gpus, nodes);
      for (SimNode n : nodes) {
        server.createContext("/" + n.name() + "/metrics", ex -> s.serve(ex, n));
      }
      server.start();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the simulated dcgm-exporter on loopback", e);
    }
  }

  /** One scrape URL per node. */
  public List<String> targets() {
    List<String> urls = new ArrayList<>();
    for (SimNode n : nodes) {
      urls.add("http://127.0.0.1:" + server.getAddress().getPort() + "/" + n.name() + "/metrics");
    }
    return urls;
  }

  private void serve(HttpExchange ex, SimNode node) throws IOException {
    byte[] body = exposition(node).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  /** The node's exposition text now. */
  String exposition(SimNode node) {
    List<Slot> slots = gpus.slots().stream().filter(s -> s.node().equals(node.name())).toList();
    if (slots.isEmpty()) {
      slots = new ArrayList<>();
      for (int i = 0; i < node.gpus(); i++) {
        slots.add(
            new Slot(
                node.name(),
                i,
                node.gpuUuids().get(i),
                node.gpuModel(),
                null,
                null,
                null,
                GpuView.Activity.FREE,
                0));
      }
    }
    StringBuilder b = new StringBuilder(4096);
    double[][] values = new double[slots.size()][];
    for (int i = 0; i < slots.size(); i++) {
      values[i] = values(slots.get(i));
    }
    for (int f = 0; f < FIELDS.size(); f++) {
      Field field = FIELDS.get(f);
      b.append("# HELP ").append(field.name()).append(' ').append(field.help()).append('\n');
      b.append("# TYPE ").append(field.name()).append(' ').append(field.type()).append('\n');
      for (int i = 0; i < slots.size(); i++) {
        Slot s = slots.get(i);
        b.append(field.name()).append('{');
        b.append("gpu=\"").append(s.index()).append("\",");
        b.append("UUID=\"").append(s.uuid()).append("\",");
        b.append("pci_bus_id=\"00000000:").append(String.format("%02X", 0x18 + s.index() * 0x11));
        b.append(":00.0\",");
        b.append("device=\"nvidia").append(s.index()).append("\",");
        b.append("modelName=\"").append(s.model()).append("\",");
        b.append("Hostname=\"").append(s.node()).append("\",");
        b.append("DCGM_FI_DRIVER_VERSION=\"").append(DRIVER).append('"');
        if (s.pod() != null) {
          b.append(",container=\"").append(s.container()).append('"');
          b.append(",namespace=\"").append(s.namespace()).append('"');
          b.append(",pod=\"").append(s.pod()).append('"');
        }
        b.append("} ");
        double v = values[i][f];
        if (v == Math.rint(v)) {
          b.append((long) v);
        } else {
          b.append(String.format("%.6f", v));
        }
        b.append('\n');
      }
    }
    return b.toString();
  }

  private double[] values(Slot s) {
    double util;
    double fbUsed;
    switch (s.activity()) {
      case FREE -> {
        util = 0;
        fbUsed = 0;
      }
      case LOADING -> {
        util = 3 + noise.nextInt(9);
        fbUsed = 30_000 + noise.nextInt(20_000);
      }
      case SERVING -> {
        util = Math.max(1, Math.min(100, Math.round(8 + 85 * s.load() + noise.nextGaussian() * 4)));
        fbUsed = 72_000 + noise.nextInt(2_000);
      }
      case WORKING -> {
        util = 92 + noise.nextInt(8);
        fbUsed = 60_000 + noise.nextInt(6_000);
      }
      default -> {
        util = noise.nextInt(5);
        fbUsed = 20_000;
      }
    }
    double gr = Math.min(1.0, util / 100.0 * (0.88 + noise.nextDouble() * 0.08));
    return new double[] {
      util > 0 ? 1980 : 345,
      util > 0 ? 2619 : 1593,
      30 + util * 0.4 + noise.nextInt(3),
      Math.round((70 + util * 6.2) * 1000) / 1000.0,
      util,
      Math.round(util * 0.6),
      Math.round(FB_TOTAL_MIB - fbUsed - 516),
      fbUsed,
      Math.round(gr * 1e6) / 1e6,
      Math.round(gr * 0.7 * 1e6) / 1e6
    };
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
