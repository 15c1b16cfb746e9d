package io.schedlens.runs;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.common.http.LoopbackHost;
import io.schedlens.serving.pages.FilePageSource;
import io.schedlens.serving.pages.PagesAccess;
import io.schedlens.serving.pages.TimelinePages;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The timeline pages of a finished demo or replay, served from its output directory ({@code
 * timelines.jsonl}, {@code workloads.jsonl}) on loopback: the same pages the streams app serves, so
 * that a post-mortem can be looked at, and shared as a directory, after the run. Open, as nothing
 * but this machine reaches it; requests naming another host are refused ({@link LoopbackHost}).
 */
public final class PagesServer {

  /** The demo's and replay's setting names. */
  public static final String SERVE = "serve";

  public static final String SERVE_PORT = "serve.port";
  public static final int DEFAULT_PORT = 9472;

  private PagesServer() {}

  /** Adds {@code serve} and {@code serve.port} to a command's settings (demo, replay). */
  public static ConfigDef define(ConfigDef def) {
    return def.define(
            SERVE,
            Type.BOOLEAN,
            false,
            Importance.MEDIUM,
            "After the run, serve the timeline pages of its output directory on 127.0.0.1 (an index, a page per pod and per workload) until Ctrl-C.")
        .define(
            SERVE_PORT,
            Type.INT,
            DEFAULT_PORT,
            Range.between(0, 65535),
            Importance.LOW,
            "Port of the pages --serve serves (0: any free port).");
  }

  /** After a run: serves its pages when {@code --serve true}, else says how to. */
  public static void afterRun(AbstractConfig config, Path out, PrintStream progress)
      throws IOException, InterruptedException {
    if (config.getBoolean(SERVE)) {
      serveUntilInterrupted(out, config.getInt(SERVE_PORT), progress);
    } else {
      progress.printf(
          "timeline pages of this run: add --serve true (http://127.0.0.1:%d/ after the run)%n",
          config.getInt(SERVE_PORT));
    }
  }

  /** Serves the pages of {@code dir} on 127.0.0.1:{@code port} (0: any free port). */
  public static HttpEndpoint start(Path dir, int port) throws IOException {
    FilePageSource source = new FilePageSource(dir);
    TimelinePages pages = new TimelinePages(source, PagesAccess.open());
    return HttpEndpoint.start(
        "127.0.0.1",
        port,
        new PrometheusRegistry(),
        () -> HttpEndpoint.Readiness.ready("serving " + source.podCount() + " timelines"),
        4,
        new HttpEndpoint.Route("/", LoopbackHost.only(pages::handle)));
  }

  /** Serves until the process is interrupted (Ctrl-C), saying where. */
  public static void serveUntilInterrupted(Path dir, int port, PrintStream progress)
      throws IOException, InterruptedException {
    try (HttpEndpoint http = start(dir, port)) {
      progress.printf(
          "timeline pages of %s: %s/ (pods, workloads, the on-call index); Ctrl-C stops%n",
          dir, http.baseUrl());
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      stop.await();
    }
  }
}
