package io.schedlens.bench;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.whatif.HeliosTrace;
import io.schedlens.whatif.ObservedRun;
import io.schedlens.whatif.Policy;
import io.schedlens.whatif.PolicyLoader;
import io.schedlens.whatif.WhatIf;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How long a what-if of a week of a 1,000-GPU cluster takes: {@code java -cp ...
 * io.schedlens.bench.WhatIfLoad [days] [nodes] [load]} (defaults 7, 125 eight-GPU nodes, 0.7). The
 * observed week is synthetic batch work, one pod per Job: Poisson arrivals sized to the load, 1, 2,
 * 4 or 8 GPUs (half, a quarter, 15 %, 10 %), log-normal work (median 40 minutes, sigma 1), three
 * applications; predicted under a policy with three PriorityClasses (preemption on) and a GPU quota
 * on the lowest. Prints pods observed and predicted, inputs through the topology, and the seconds
 * the prediction took (the simulator and the collector's projections on one thread, the streams
 * app's topology on another), and a digest of the predicted timelines. With {@code --helios
 * cluster_log.csv [days] [nodes]}, the observed week is the job log of a Helios cluster instead
 * ({@link HeliosTrace}).
 */
public final class WhatIfLoad {

  private WhatIfLoad() {}

  public static void main(String[] args) throws IOException {
    if (args.length > 0 && args[0].equals("--helios")) {
      helios(args);
      return;
    }
    int days = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 125;
    double load = args.length > 2 ? Double.parseDouble(args[2]) : 0.7;
    long t0 = 1_796_000_000_000L;
    long span = Duration.ofDays(days).toMillis();
    int gpus = nodes * 8;
    SplittableRandom r = new SplittableRandom(20261203L);
    double meanGpuSeconds = 2.4 * 2400 * Math.exp(0.5);
    double perSecond = load * gpus / meanGpuSeconds;
    String[] apps = {"training-batch", "embedding-batch", "asr-batch"};
    List<PodTimeline> pods = new ArrayList<>();
    long at = t0;
    int n = 0;
    while (true) {
      at += (long) (-Math.log(1 - r.nextDouble()) / perSecond * 1000);
      if (at >= t0 + span - Duration.ofHours(1).toMillis()) {
        break;
      }
      double u = r.nextDouble();
      int g = u < 0.5 ? 1 : u < 0.75 ? 2 : u < 0.9 ? 4 : 8;
      long work = (long) (2400_000 * Math.exp(r.nextGaussian()));
      work = Math.max(60_000, Math.min(work, Duration.ofHours(12).toMillis()));
      String app = apps[r.nextInt(apps.length)];
      n++;
      pods.add(job(app + "-" + n, app, g, at, work));
    }
    Policy policy =
        PolicyLoader.parse(
            "load",
            """
            name: load
            priorityClasses:
              - {name: training, value: 10000}
              - {name: embedding, value: 1000}
              - {name: asr, value: 100}
            workloads:
              training-batch: {priorityClass: training, setup: 60s, checkpointEvery: 10m}
              embedding-batch: {priorityClass: embedding, setup: 30s, checkpointEvery: 5m}
              asr-batch: {priorityClass: asr, setup: 20s}
            quotas:
              - {name: asr-queue, priorityClasses: [asr], nominalGpus: %d}
            nodes: [{name: gpu, count: %d, gpus: 8}]
            """
                .formatted(gpus / 4, nodes));
    List<ObservedRun> runs = ObservedRun.of(pods, List.of());
    System.out.printf(
        Locale.ROOT,
        "what-if load: %d days, %d GPUs, load %.2f: %,d observed pod lives%n",
        days,
        gpus,
        load,
        pods.size());
    predict(policy, runs, Duration.ofMillis(span));
  }

  /**
   * {@code --helios cluster_log.csv [days] [nodes]}: the first {@code days} (default 7) of a Helios
   * job log ({@link HeliosTrace}) on {@code nodes} eight-GPU nodes (default 125), every job in no
   * PriorityClass (first come, first served).
   */
  private static void helios(String[] args) throws IOException {
    if (args.length < 2) {
      throw new IllegalArgumentException(
          "usage: WhatIfLoad --helios cluster_log.csv [days] [nodes]: the job log of a Helios"
              + " cluster (HeliosData, CC BY 4.0)");
    }
    Path file = Path.of(args[1]);
    int days = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    int nodes = args.length > 3 ? Integer.parseInt(args[3]) : 125;
    HeliosTrace.Read trace;
    try (Reader in = Files.newBufferedReader(file)) {
      trace = HeliosTrace.read(in, file.toString(), null, Duration.ofDays(days));
    }
    System.out.printf(
        Locale.ROOT,
        "what-if load: %s, %d days, %d GPUs: %,d jobs as %,d observed pod lives (left out: %s)%n",
        file,
        days,
        nodes * 8,
        trace.jobs(),
        trace.pods().size(),
        trace.skipped());
    Policy policy =
        PolicyLoader.parse(
            "helios",
            """
            name: helios
            priorityClasses: [{name: default, value: 0}]
            nodes: [{name: gpu, count: %d, gpus: 8}]
            """
                .formatted(nodes));
    predict(policy, ObservedRun.of(trace.pods(), List.of()), null);
  }

  private static void predict(Policy policy, List<ObservedRun> runs, Duration span) {
    long start = System.nanoTime();
    List<WhatIf.Prediction> p =
        new WhatIf(policy, TimelineSettings.defaults(), span).predict(runs, WhatIf.Progress.NONE);
    double seconds = (System.nanoTime() - start) / 1e9;
    long predicted = p.get(0).timelines().size();
    long preempted =
        p.get(0).timelines().values().stream().filter(t -> t.getPreemptedAt() != null).count();
    System.out.printf(
        Locale.ROOT,
        "predicted %,d pod lives (%,d preempted) from %,d inputs through the topology in %.1f s"
            + " (%,.0f inputs/s); timelines digest %s%n",
        predicted,
        preempted,
        p.get(0).inputs(),
        seconds,
        p.get(0).inputs() / seconds,
        digest(p.get(0).timelines().values()));
  }

  /**
   * SHA-256 of the predicted timelines in order of UID (their JSON): the same inputs must give the
   * same digest on every run and machine.
   */
  private static String digest(Collection<PodTimeline> timelines) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      timelines.stream()
          .sorted(Comparator.comparing(PodTimeline::getUid))
          .forEach(t -> sha.update(t.toString().getBytes(StandardCharsets.UTF_8)));
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An observed Job pod that ran {@code work} on {@code gpus} GPUs from its creation on. */
  private static PodTimeline job(String name, String app, int gpus, long created, long work) {
    long running = created + 20_000;
    return PodTimeline.newBuilder()
        .setUid(name)
        .setNamespace("batch")
        .setName(name + "-x")
        .setWorkload(new WorkloadRef("Job", name))
        .setApplication(app)
        .setCreatedAt(created)
        .setScheduledAt(created + 100)
        .setRunningAt(running)
        .setStartupMs(19_900L)
        .setTerminatedAt(running + work)
        .setOutcome("Succeeded")
        .setGpus(gpus)
        .setUpdatedAt(running + work)
        .setFinal$(true)
        .build();
  }
}
