package io.schedlens.bench;

import io.schedlens.streams.StreamsMain;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streams app instances, each in its own JVM as in a deployment, so that the app's CPU time can be
 * told from the broker's and the load generator's, and instances can be added: they share the work
 * through their application id.
 */
final class AppInstances implements AutoCloseable {

  private final List<Process> processes = new ArrayList<>();
  private final Path root;

  AppInstances(String bootstrap, String appId, int instances, String heap, List<String> extraArgs)
      throws Exception {
    this(StreamsMain.class, bootstrap, appId, instances, heap, extraArgs);
  }

  /**
   * Instances of another main class that takes the streams app's command line ({@link FloorApp}),
   * started exactly as the app's.
   */
  AppInstances(
      Class<?> main,
      String bootstrap,
      String appId,
      int instances,
      String heap,
      List<String> extraArgs)
      throws Exception {
    this.root = Files.createTempDirectory("schedlens-load-");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 0; i < instances; i++) {
      Path state = root.resolve("instance-" + i);
      Files.createDirectories(state);
      // The JVM settings of the chart's StatefulSet (deploy/helm/schedlens), the heap fixed from
      // the start so that its resizing does not show in the first windows.
      List<String> cmd =
          new ArrayList<>(List.of(java, "-Xmx" + heap, "-Xms" + heap, "-XX:+UseG1GC"));
      // e.g. a flight recording of each JVM:
      // SCHEDLENS_LOAD_JAVA_OPTS=-XX:StartFlightRecording=filename=%i.jfr,settings=profile
      // (%i: the main class and the instance, StreamsMain-0, FloorApp-0)
      String opts = System.getenv("SCHEDLENS_LOAD_JAVA_OPTS");
      if (opts != null && !opts.isBlank()) {
        String instance = main.getSimpleName() + "-" + i;
        cmd.addAll(List.of(opts.trim().replace("%i", instance).split("\\s+")));
      }
      cmd.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              main.getName(),
              "--application-id",
              appId,
              "--state-dir",
              state.toString(),
              "--http-port",
              "0",
              "--slo",
              "chat=800",
              "--api-auth",
              "none"));
      cmd.addAll(extraArgs);
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.environment().put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
      File log = state.resolve("app.log").toFile();
      pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
      processes.add(pb.start());
    }
  }

  /** CPU time the instances have used so far, in seconds. */
  double cpuSeconds() {
    double s = 0;
    for (Process p : processes) {
      s += p.info().totalCpuDuration().orElse(Duration.ZERO).toNanos() / 1e9;
    }
    return s;
  }

  /**
   * CPU time the instances' JIT compiler threads have used so far, in seconds, from Linux's
   * per-thread accounting ({@code /proc/PID/task/TID/stat}: user and system clock ticks, 100 a
   * second); 0 where there is no {@code /proc}. A large share in a measured window says the JVM was
   * still compiling the app's code then: the window measured its warm-up, not its steady rate.
   */
  double compilerCpuSeconds() {
    double s = 0;
    for (Process p : processes) {
      Path tasks = Path.of("/proc", Long.toString(p.pid()), "task");
      if (!Files.isDirectory(tasks)) {
        continue;
      }
      try (var threads = Files.list(tasks)) {
        for (Path t : threads.toList()) {
          s += compilerTicks(t.resolve("stat")) / 100.0;
        }
      } catch (IOException e) {
        // the process ended meanwhile: its compilers count no more
      }
    }
    return s;
  }

  /** A thread's user and system ticks when it is a JIT compiler thread ("C1/C2 CompilerThre"). */
  private static long compilerTicks(Path stat) {
    String line;
    try {
      line = Files.readString(stat);
    } catch (IOException e) {
      return 0; // the thread ended
    }
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open || !line.substring(open + 1, close).contains("Compiler")) {
      return 0;
    }
    // after the name: state (field 3) ... utime (14) and stime (15)
    String[] f = line.substring(close + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /**
   * Per instance, the heap in use right after a full collection, MiB: what the app keeps, as
   * opposed to the garbage a young-collection log shows growing until the old generation is
   * collected. Asks each JVM through {@code jcmd} (GC.run, then GC.heap_info).
   */
  List<Long> liveHeapMb() throws Exception {
    List<Long> mb = new ArrayList<>();
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    for (Process p : processes) {
      String pid = Long.toString(p.pid());
      new ProcessBuilder(jcmd, pid, "GC.run").redirectErrorStream(true).start().waitFor();
      Process info =
          new ProcessBuilder(jcmd, pid, "GC.heap_info").redirectErrorStream(true).start();
      String out = new String(info.getInputStream().readAllBytes());
      info.waitFor();
      // G1 prints "garbage-first heap   total 786432K, used 51234K [...]" first.
      Matcher m = Pattern.compile("heap\\s+total \\d+K, used (\\d+)K").matcher(out);
      long usedKb = m.find() ? Long.parseLong(m.group(1)) : -1;
      mb.add(usedKb / 1024);
    }
    return mb;
  }

  /** Whether every instance is still running (none died, of an OutOfMemoryError say). */
  boolean allAlive() {
    return processes.stream().allMatch(Process::isAlive);
  }

  int count() {
    return processes.size();
  }

  @Override
  public void close() throws Exception {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      p.waitFor();
    }
    try (var walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
