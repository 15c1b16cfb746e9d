package io.schedlens.whatif;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.base.DisruptionCause;
import io.schedlens.base.Outcome;
import io.schedlens.report.PodFacts;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.Arrival;
import io.schedlens.simulator.scenario.Scenario.Jittered;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.PodTemplate;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Traffic;
import io.schedlens.simulator.scenario.Scenario.Workload;
import io.schedlens.timeline.WorkloadContinuity;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What an observed run asked of the cluster, as the simulator's scenario of one run under a policy:
 * each Job at its observed creation with the GPU work its pods did (the work of the pod that
 * finished plus what earlier pods saved at checkpoints), each Deployment or StatefulSet with its
 * observed desired replicas over time, start-up, model load and traffic (rate over the time it had
 * a Ready replica, latency median and spread, errors), on the nodes the policy names or the
 * observed ones. A pure function of the timelines and the policy. What no timeline shows (a Job's
 * setup time and checkpoint interval) comes from the policy's {@code workloads} and is listed in
 * {@link #assumptions}.
 */
public final class ObservedArrivals {

  /** Kubelet's time from binding to a started container besides the image pull (sandbox etc.). */
  static final long START_OVERHEAD_MS = 2_000;

  /** After the run, time for every pod to go (longer than any grace period modelled). */
  static final Duration DRAIN = Duration.ofMinutes(15);

  /**
   * The scenario of one run.
   *
   * @param applications per simulated workload name, the application its pods belong to
   * @param requestRates per serving workload name, its observed requests per second while it had a
   *     Ready replica
   * @param assumptions what the prediction assumes that the observation does not say
   * @param skipped pods not modelled, with why
   */
  public record RunScenario(
      Scenario scenario,
      Map<String, String> applications,
      Map<String, Double> requestRates,
      List<String> assumptions,
      List<String> skipped) {}

  private ObservedArrivals() {}

  /** The nodes: the policy's, else every node a pod ran on with the most GPUs held at once. */
  public static List<NodePool> nodes(Policy policy, Collection<ObservedRun> runs) {
    List<NodePool> pools = new ArrayList<>();
    if (!policy.nodes().isEmpty()) {
      for (Policy.Node n : policy.nodes()) {
        pools.add(new NodePool(n.name(), n.count(), n.gpus(), "", Map.of(), List.of()));
      }
      return pools;
    }
    Map<String, Integer> peak = new TreeMap<>();
    for (ObservedRun run : runs) {
      Map<String, TreeMap<Long, Integer>> deltas = new HashMap<>();
      for (PodTimeline t : run.pods()) {
        if (t.getNode() == null || t.getScheduledAt() == null || t.getGpus() <= 0) {
          continue;
        }
        long from = t.getScheduledAt();
        long to = t.getTerminatedAt() != null ? t.getTerminatedAt() : run.end();
        TreeMap<Long, Integer> d = deltas.computeIfAbsent(t.getNode(), k -> new TreeMap<>());
        d.merge(from, t.getGpus(), Integer::sum);
        d.merge(Math.max(to, from + 1), -t.getGpus(), Integer::sum);
      }
      deltas.forEach(
          (node, d) -> {
            int held = 0;
            int max = 0;
            for (int delta : d.values()) {
              held += delta;
              max = Math.max(max, held);
            }
            peak.merge(node, max, Math::max);
          });
    }
    // node-1 … node-n of the same size are one pool named node, as the simulator names them
    Map<String, List<String>> byPrefix = new TreeMap<>();
    peak.keySet().forEach(n -> byPrefix.computeIfAbsent(prefix(n), k -> new ArrayList<>()).add(n));
    for (Map.Entry<String, List<String>> e : byPrefix.entrySet()) {
      List<String> names = e.getValue();
      boolean numbered = true;
      TreeSet<Integer> gpus = new TreeSet<>();
      for (String n : names) {
        gpus.add(peak.get(n));
      }
      for (int i = 1; i <= names.size(); i++) {
        numbered &= names.contains(e.getKey() + "-" + i);
      }
      if (numbered && gpus.size() == 1 && !e.getKey().equals(names.get(0))) {
        pools.add(new NodePool(e.getKey(), names.size(), gpus.first(), "", Map.of(), List.of()));
      } else {
        for (String n : names) {
          pools.add(new NodePool(n, 1, peak.get(n), "", Map.of(), List.of()));
        }
      }
    }
    return pools;
  }

  private static String prefix(String node) {
    int dash = node.lastIndexOf('-');
    if (dash > 0 && node.substring(dash + 1).chars().allMatch(Character::isDigit)) {
      return node.substring(0, dash);
    }
    return node;
  }

  /**
   * The scenario of {@code run} under {@code policy} on {@code nodes}.
   *
   * @param runLength how long the run lasts from its first pod's creation (what is still there then
   *     is deleted, as the observed run's end deleted it); null: until its last observed pod ended
   */
  public static RunScenario of(
      ObservedRun run, Policy policy, List<NodePool> nodes, Duration runLength) {
    List<String> assumptions = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    Map<String, String> applications = new LinkedHashMap<>();
    Map<String, Double> slos = new TreeMap<>();
    Map<String, Double> rates = new TreeMap<>();
    Map<String, List<PodTimeline>> byWorkload = new LinkedHashMap<>();
    Map<String, Integer> namespaces = new HashMap<>();
    for (PodTimeline t : run.pods()) {
      namespaces.merge(t.getNamespace(), 1, Integer::sum);
      String kind = t.getWorkload() == null ? "Pod" : t.getWorkload().getKind();
      if (!kind.equals("Job") && !kind.equals("Deployment") && !kind.equals("StatefulSet")) {
        skipped.add(t.getNamespace() + "/" + t.getName() + " (owned by a " + kind + ")");
        continue;
      }
      byWorkload
          .computeIfAbsent(kind + "/" + t.getWorkload().getName(), k -> new ArrayList<>())
          .add(t);
    }
    Map<String, WorkloadTimeline> objects = new HashMap<>();
    for (WorkloadTimeline w : run.workloads()) {
      objects.put(w.getKind() + "/" + w.getName(), w);
    }
    List<Workload> workloads = new ArrayList<>();
    for (Map.Entry<String, List<PodTimeline>> e : byWorkload.entrySet()) {
      List<PodTimeline> pods = e.getValue();
      PodTimeline first = pods.get(0);
      String kind = first.getWorkload().getKind();
      String name = first.getWorkload().getName();
      String application = PodFacts.application(first);
      Policy.WorkloadRule rule = policy.rule(application);
      String priorityClass = priorityClass(rule, pods, policy, application);
      PodTemplate template = template(pods, rule);
      if (kind.equals("Job")) {
        workloads.add(
            new Workload(
                name,
                priorityClass,
                template,
                null,
                job(run, pods, rule, assumptions, application)));
      } else {
        WorkloadTimeline object = objects.get(kind + "/" + name);
        List<ReplicaPoint> series;
        if (object != null && covers(object.getSeries(), run)) {
          series = object.getSeries();
        } else {
          series = inferredSeries(first.getNamespace(), kind, name, pods, run);
          assumptions.add(
              name
                  + ": desired replicas in "
                  + run.label()
                  + " inferred from its pods (no workload timeline covers the run; a workload"
                  + " timeline keeps its latest "
                  + WorkloadContinuity.MAX_SERIES
                  + " changes; give workloads.jsonl)");
        }
        ServingSpec serving = serving(run, kind, name, pods, series, slos);
        if (serving.traffic() != null) {
          rates.put(name, serving.traffic().ratePerSecond());
        }
        workloads.add(new Workload(name, priorityClass, template, null, serving));
      }
      applications.put(name, application);
    }
    String namespace =
        namespaces.entrySet().stream()
            .max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry::getKey))
            .map(Map.Entry::getKey)
            .orElse("default");
    if (namespaces.size() > 1) {
      assumptions.add(
          "every pod runs in namespace "
              + namespace
              + " (the simulator has one; the run had "
              + namespaces.keySet()
              + ")");
    }
    Scenario scenario =
        new Scenario(
            "whatif",
            "observed " + run.label() + " under policy " + policy.name(),
            policy.seed(),
            namespace,
            run.experiment() == null ? "whatif" : run.experiment(),
            1,
            runLength != null ? runLength : Duration.ofMillis(run.end() - run.start() + 1),
            DRAIN,
            nodes,
            policy.priorityClasses(),
            List.of(new Arm(policy.name(), true, Map.of(), policy.quotas())),
            workloads,
            slos,
            List.of(),
            Map.of(),
            Duration.ofDays(365));
    return new RunScenario(scenario, applications, rates, assumptions, skipped);
  }

  /**
   * The class under the policy: its rule's, else the one it ran with (which the policy must have).
   */
  private static String priorityClass(
      Policy.WorkloadRule rule, List<PodTimeline> pods, Policy policy, String application) {
    if (rule.priorityClass() != null) {
      return rule.priorityClass().equals(Policy.NO_CLASS) ? null : rule.priorityClass();
    }
    String observed = pods.get(0).getPriorityClass();
    if (observed == null) {
      return null;
    }
    PriorityClassSpec spec = policy.priorityClass(observed);
    if (spec == null) {
      throw new PolicyException(
          "policy "
              + policy.name()
              + ": "
              + application
              + " ran with PriorityClass "
              + observed
              + ", which the policy does not define; add it to priorityClasses or give "
              + application
              + " a priorityClass under workloads");
    }
    return observed;
  }

  private static PodTemplate template(List<PodTimeline> pods, Policy.WorkloadRule rule) {
    int gpus = pods.stream().mapToInt(PodTimeline::getGpus).max().orElse(0);
    List<Long> startups = new ArrayList<>();
    List<Long> stops = new ArrayList<>();
    for (PodTimeline t : pods) {
      if (t.getStartupMs() != null) {
        startups.add(t.getStartupMs());
      }
      if (t.getDisruption() != null
          && t.getDisruption().getAt() != null
          && t.getTerminatedAt() != null
          && t.getRunningAt() != null) {
        stops.add(t.getTerminatedAt() - t.getDisruption().getAt());
      }
    }
    long startup = median(startups, START_OVERHEAD_MS + 10_000);
    boolean warm = startup < START_OVERHEAD_MS;
    long pull = warm ? 0 : Math.max(200, startup - START_OVERHEAD_MS);
    long stop = Math.max(0, Math.min(30_000, median(stops, 2_000) - 150));
    return new PodTemplate(
        gpus,
        "observed",
        Duration.ofMillis(pull),
        Duration.ofSeconds(30),
        Duration.ofMillis(stop),
        Map.of(),
        List.of(),
        warm);
  }

  /**
   * A Job as its pods show it. Each completion is a unit of work that a replacement pod resumes
   * from the last checkpoint, as the Job controller gives a pod that ended early's unit to the next
   * pod it creates: the units are followed from pod to pod in order of creation. A unit's work is
   * what its pods did productively (each pod's run less its setup, less the work lost since its
   * last checkpoint for a pod that ended early); a unit the run's end cut off needed at least what
   * it did, and is taken as the Job's typical unit (the median of its finished ones) if that is
   * more.
   */
  private static JobSpec job(
      ObservedRun run,
      List<PodTimeline> pods,
      Policy.WorkloadRule rule,
      List<String> assumptions,
      String application) {
    long setup = rule.setup().toMillis();
    long arrival = pods.stream().mapToLong(PodTimeline::getCreatedAt).min().orElse(run.start());
    List<long[]> units = new ArrayList<>(); // {work so far, 1 when finished or cut}
    List<PodTimeline> byCreation = new ArrayList<>(pods);
    byCreation.sort(Comparator.comparingLong(PodTimeline::getCreatedAt));
    List<PodTimeline> endedEarly = new ArrayList<>();
    ArrayDeque<long[]> resumable = new ArrayDeque<>();
    List<long[]> cut = new ArrayList<>();
    Map<String, long[]> unitOf = new HashMap<>();
    for (PodTimeline t : byCreation) {
      // units of pods that ended early before this one was created go back first
      endedEarly.sort(Comparator.comparingLong(PodTimeline::getTerminatedAt));
      for (var it = endedEarly.iterator(); it.hasNext(); ) {
        PodTimeline e = it.next();
        if (e.getTerminatedAt() <= t.getCreatedAt()) {
          resumable.addFirst(unitOf.get(e.getUid()));
          it.remove();
        }
      }
      long[] unit = resumable.isEmpty() ? new long[] {0, 0} : resumable.pollFirst();
      if (!units.contains(unit)) {
        units.add(unit);
      }
      unitOf.put(t.getUid(), unit);
      long ran =
          t.getRunningAt() == null
              ? 0
              : (t.getTerminatedAt() != null ? t.getTerminatedAt() : run.end()) - t.getRunningAt();
      boolean cutOff =
          t.getTerminatedAt() == null
              || (t.getDisruption() != null && "deletion".equals(t.getDisruption().getCause()));
      if (Outcome.SUCCEEDED.wire().equals(t.getOutcome())) {
        unit[0] += Math.max(0, ran - setup);
        unit[1] = 1;
      } else if (cutOff) {
        unit[0] += Math.max(0, ran - setup);
        unit[1] = 1;
        cut.add(unit);
      } else {
        long lost =
            t.getWastedGpuSeconds() == null || t.getGpus() == 0
                ? ran
                : Math.round(t.getWastedGpuSeconds() * 1000 / t.getGpus());
        unit[0] += Math.max(0, ran - lost - setup);
        endedEarly.add(t);
      }
    }
    List<Long> finished = new ArrayList<>();
    for (long[] u : units) {
      if (u[1] == 1 && !cut.contains(u)) {
        finished.add(u[0]);
      }
    }
    long typical = median(finished, 0);
    for (long[] u : cut) {
      u[0] = Math.max(u[0], typical);
    }
    List<Duration> work = new ArrayList<>();
    for (long[] u : units) {
      if (u[1] == 1) {
        work.add(Duration.ofMillis(Math.max(1000, u[0])));
      }
    }
    if (work.isEmpty()) {
      // every pod ended early and none was replaced: the work it needed is more than it did
      units.forEach(u -> work.add(Duration.ofMillis(Math.max(1000, Math.max(u[0], typical)))));
    }
    if (finished.isEmpty()) {
      assumptions.add(
          application
              + ": a Job of it never completed in "
              + run.label()
              + "; its work is taken as what its pods did (a lower bound)");
    }
    if (rule.checkpointEvery() == null) {
      assumptions.add(application + " never checkpoints (say checkpointEvery in the policy)");
    }
    int completions = work.size();
    return new JobSpec(
        new Arrival(Duration.ofMillis(arrival - run.start()), Duration.ZERO, 1, Duration.ZERO),
        Math.min(completions, concurrent(pods)),
        completions,
        work.get(0),
        0,
        rule.setup(),
        rule.checkpointEvery() == null ? Duration.ZERO : rule.checkpointEvery(),
        6,
        true,
        Duration.ofSeconds(60),
        work);
  }

  /** The most pods of the list that existed at once. */
  private static int concurrent(List<PodTimeline> pods) {
    TreeMap<Long, Integer> d = new TreeMap<>();
    for (PodTimeline t : pods) {
      d.merge(t.getCreatedAt(), 1, Integer::sum);
      long end = t.getTerminatedAt() != null ? t.getTerminatedAt() : Long.MAX_VALUE - 1;
      d.merge(end, -1, Integer::sum);
    }
    int n = 0;
    int max = 1;
    for (int delta : d.values()) {
      n += delta;
      max = Math.max(max, n);
    }
    return max;
  }

  /**
   * Whether the series tells the replicas over the run: it is whole (a series is cut to its latest
   * {@link WorkloadContinuity#MAX_SERIES} changes), or it began before the run.
   */
  private static boolean covers(List<ReplicaPoint> series, ObservedRun run) {
    return !series.isEmpty()
        && (series.size() < WorkloadContinuity.MAX_SERIES || series.get(0).getAt() <= run.start());
  }

  /**
   * Desired and Ready replicas from the run's pods, by the pipeline's own inference for a workload
   * whose object it never saw ({@link WorkloadContinuity#view} without desired steps): a pod is
   * wanted from its creation until its deletion is asked for (a scale-down, the run's end), a pod
   * disrupted otherwise (preempted, evicted) until its replacement is created; Ready from its first
   * Ready until it was disrupted, deleted or ended.
   */
  static List<ReplicaPoint> inferredSeries(
      String namespace, String kind, String name, List<PodTimeline> pods, ObservedRun run) {
    List<WorkloadMember> members = new ArrayList<>();
    for (PodTimeline t : pods) {
      Disruption d = t.getDisruption();
      Long disruptedAt = d == null ? null : d.getAt();
      // a timeline shows a deletion request only as the disruption of a deleted pod
      Long stopped =
          d != null && DisruptionCause.DELETION.wire().equals(d.getCause())
              ? disruptedAt
              : t.getTerminatedAt();
      Long readyEnd =
          t.getReadyAt() == null
              ? null
              : earliest(stopped, earliest(disruptedAt, t.getTerminatedAt()));
      members.add(
          WorkloadMember.newBuilder()
              .setUid(t.getUid())
              .setName(t.getName())
              .setCreatedAt(t.getCreatedAt())
              .setScheduledAt(t.getScheduledAt())
              .setReadyAt(t.getReadyAt())
              .setReadyEndAt(readyEnd)
              .setStoppedAt(stopped)
              .setOutcome(t.getOutcome())
              .setDisruptionCause(d == null ? null : d.getCause())
              .setDisruptionAt(disruptedAt)
              .build());
    }
    return WorkloadContinuity.view(
            WorkloadKey.of(namespace, kind, name),
            members,
            List.of(),
            List.of(),
            List.of(),
            run.end())
        .getSeries();
  }

  private static Long earliest(Long a, Long b) {
    return a == null ? b : b == null ? a : Math.min(a, b);
  }

  private static ServingSpec serving(
      ObservedRun run,
      String kind,
      String name,
      List<PodTimeline> pods,
      List<ReplicaPoint> series,
      Map<String, Double> slos) {
    // the series within the run: the state at its start, then every change in it
    List<ReplicaStep> steps = new ArrayList<>();
    int desired = 0;
    int ready = 0;
    for (var p : series) {
      if (p.getAt() <= run.start()) {
        desired = p.getDesired();
        ready = p.getReady();
      }
    }
    steps.add(new ReplicaStep(Duration.ZERO, Duration.ZERO, desired));
    long readySince = ready > 0 ? run.start() : -1;
    long servedMs = 0;
    for (var p : series) {
      if (p.getAt() <= run.start() || p.getAt() > run.end()) {
        continue;
      }
      if (p.getDesired() != desired) {
        steps.add(
            new ReplicaStep(
                Duration.ofMillis(p.getAt() - run.start()), Duration.ZERO, p.getDesired()));
        desired = p.getDesired();
      }
      if (p.getReady() > 0 && readySince < 0) {
        readySince = p.getAt();
      } else if (p.getReady() == 0 && readySince >= 0) {
        servedMs += p.getAt() - readySince;
        readySince = -1;
      }
    }
    if (readySince >= 0) {
      servedMs += run.end() - readySince;
    }
    List<Long> loads = new ArrayList<>();
    long requests = 0;
    long errors = 0;
    double p50 = 0;
    double p95 = 0;
    Double slo = null;
    for (PodTimeline t : pods) {
      if (t.getModelLoadMs() != null) {
        loads.add(t.getModelLoadMs());
      }
      requests += t.getRequests();
      errors += t.getErrors();
      if (t.getLatencyP50Ms() != null && t.getLatencyP95Ms() != null) {
        p50 += t.getLatencyP50Ms() * t.getRequests();
        p95 += t.getLatencyP95Ms() * t.getRequests();
      }
      if (t.getSeries() != null && t.getSeries().getSloMs() != null) {
        slo = t.getSeries().getSloMs();
      }
    }
    Traffic traffic = null;
    if (requests > 0 && servedMs > 0) {
      double median = p50 / requests;
      double spread = p95 > 0 && median > 0 ? Math.log((p95 / requests) / median) / 1.645 : 0.3;
      traffic =
          new Traffic(
              name,
              requests * 1000.0 / servedMs,
              median,
              Math.max(0.01, spread),
              1e9, // the observed latency is already the latency at the observed load
              (double) errors / requests,
              Duration.ofSeconds(1));
      if (slo != null) {
        slos.put(name, slo);
      }
    }
    return new ServingSpec(
        kind.equals("StatefulSet"),
        steps,
        new Jittered(Duration.ofMillis(median(loads, 0)), Duration.ZERO),
        traffic);
  }

  private static long median(List<Long> values, long fallback) {
    if (values.isEmpty()) {
      return fallback;
    }
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(Comparator.naturalOrder());
    return sorted.get(sorted.size() / 2);
  }
}
