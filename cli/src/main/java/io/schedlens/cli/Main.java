package io.schedlens.cli;

import io.schedlens.check.CheckCommand;
import io.schedlens.cli.demo.DemoCommand;
import io.schedlens.cli.export.ExportCommand;
import io.schedlens.cli.probe.ProbeCommand;
import io.schedlens.cli.replay.ReplayCommand;
import io.schedlens.cli.report.ReportCommand;
import io.schedlens.cli.simulate.SimulateCommand;
import io.schedlens.cli.whatif.WhatIfCommand;
import io.schedlens.collector.CollectorMain;
import io.schedlens.common.kafka.KafkaReachability;
import io.schedlens.common.metrics.BuildInfo;
import io.schedlens.schemas.AvroLimits;
import io.schedlens.streams.StreamsMain;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.LoggerFactory;

/**
 * Entry point of {@code ./schedlens}: dispatches to one subcommand per part. Exit codes: 0 success,
 * 1 failure while running, 2 bad usage or configuration.
 */
public final class Main {

  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  private record Entry(String summary, Command command) {}

  private static Map<String, Entry> commands() {
    Map<String, Entry> c = new LinkedHashMap<>();
    c.put(
        "demo",
        new Entry(
            "run the day08 experiment end to end on an embedded broker",
            args -> DemoCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "collector",
        new Entry(
            "watch Kubernetes, scrape dcgm-exporter, take request logs, produce to Kafka",
            args -> CollectorMain.run(args, System.getenv())));
    c.put(
        "streams",
        new Entry(
            "compute per-pod timelines, preemptions and metrics (Kafka Streams)",
            args -> StreamsMain.run(args, System.getenv())));
    c.put(
        "simulate",
        new Entry(
            "run a scenario on the GPU-cluster simulator alone (what-if, from its ground truth)",
            args -> SimulateCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "whatif",
        new Entry(
            "replay observed runs under another scheduling policy, against what was observed",
            args -> WhatIfCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "replay",
        new Entry(
            "replay recorded pods, events, DCGM scrapes and request logs",
            args -> ReplayCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "export",
        new Entry(
            "export final timelines to warehouse files or JDBC",
            args -> ExportCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "report",
        new Entry(
            "compare experiment arms over repeats and give a verdict",
            args -> ReportCommand.run(args, System.getenv(), System.out, System.err)));
    c.put(
        "check",
        new Entry(
            "pre-flight check of workload manifests (and the live cluster) before a GPU launch",
            args -> CheckCommand.run(args, System.in, System.out, System.err)));
    c.put(
        "probe",
        new Entry(
            "check an installed schedlens as a client in the cluster (the chart's helm test)",
            args -> ProbeCommand.run(args, System.getenv(), System.out, System.err)));
    return c;
  }

  private Main() {}

  public static void main(String[] args) {
    // Before any record is decoded (the demo's and replay's apps, export, report): Avro reads its
    // limits once.
    AvroLimits.install();
    List<String> rest;
    try {
      // Before the first logger exists: logback reads its configuration once.
      rest = LogFormat.select(Arrays.asList(args), System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("schedlens: " + e.getMessage());
      System.exit(USAGE);
      return;
    }
    System.exit(run(rest, System.out, System.err));
  }

  static int run(List<String> args, PrintStream out, PrintStream err) {
    Map<String, Entry> commands = commands();
    if ((!args.isEmpty() && (args.get(0).equals("--version") || args.get(0).equals("version")))
        || (args.size() > 1 && args.get(1).equals("--version"))) {
      out.println("schedlens " + BuildInfo.current().describe());
      return OK;
    }
    if (args.isEmpty()
        || args.get(0).equals("--help")
        || args.get(0).equals("-h")
        || args.get(0).equals("help")) {
      usage(commands, args.isEmpty() ? err : out);
      return args.isEmpty() ? USAGE : OK;
    }
    Entry entry = commands.get(args.get(0));
    if (entry == null) {
      err.println("schedlens: unknown command '" + args.get(0) + "'");
      usage(commands, err);
      return USAGE;
    }
    try {
      return entry.command().run(args.subList(1, args.size()));
    } catch (KafkaReachability.UnreachableException e) {
      fatal(err, "schedlens " + args.get(0) + ": " + e.getMessage(), null);
      return FAILED;
    } catch (ConfigException e) {
      fatal(
          err,
          "schedlens "
              + args.get(0)
              + ": "
              + e.getMessage()
              + " (./schedlens "
              + args.get(0)
              + " --help lists the settings)",
          null);
      return USAGE;
    } catch (Exception e) {
      fatal(err, "schedlens " + args.get(0) + " failed: " + e, e);
      return FAILED;
    }
  }

  /**
   * The line that ends a command: plain text, or under {@code --log-format json} a log record like
   * every other line (logback's JSON encoder), so that a log collector sees why it ended.
   */
  private static void fatal(PrintStream err, String line, Exception e) {
    if (LogFormat.json()) {
      LoggerFactory.getLogger(Main.class).error(line, e);
      return;
    }
    err.println(line);
    if (e != null) {
      e.printStackTrace(err);
    }
  }

  private static void usage(Map<String, Entry> commands, PrintStream out) {
    out.println(
        "usage: ./schedlens [--log-format text|json] <command> [--setting value ...]"
            + "   (./schedlens <command> --help, ./schedlens --version)");
    out.println();
    commands.forEach((name, e) -> out.printf("  %-10s %s%n", name, e.summary()));
  }
}
