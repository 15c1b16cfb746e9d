package io.schedlens.simulator.live;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.schedlens.simulator.cluster.GpuView;
import io.schedlens.simulator.cluster.SimNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

  private final HttpServer server;
  private final ExecutorService executor;
  private final DcgmExposition exposition;
  private final List<SimNode> nodes;

  private DcgmExporterServer(
      HttpServer server, ExecutorService executor, GpuView gpus, List<SimNode> nodes) {
    this.server = server;
    this.executor = executor;
    this.exposition = new DcgmExposition(gpus);
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
    byte[] body = exposition.text(node, null).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
