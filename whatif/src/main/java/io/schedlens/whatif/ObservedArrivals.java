package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.ReplicaPoint;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.base.GpuShares;
import io.schedlens.report.PodFacts;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.PodTemplate;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Workload;
import io.schedlens.timeline.WorkloadContinuity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /**
   * Workload kinds replayed as a Job: pods that run to completion, their work as observed (JobSet,
   * Kubeflow TrainJob and RayJob run their pods through Jobs or a cluster of their own).
   */
  static final Set<String> JOB_LIKE = Set.of("Job", "JobSet", "TrainJob", "RayJob");

  /**
   * Of {@link #JOB_LIKE}, the kinds replayed as the simulator's JobSet: one replicated Job whose
   * pods are one gang, so that the prediction has the gang's {@code gangRunningAt} and {@code
   * gangWaitGpuSeconds}.
   */
  static final Set<String> GANG_LIKE = Set.of("JobSet");

  /**
   * Workload kinds replayed as a serving workload: replicas wanted over time, each Ready until
   * stopped (a ReplicaSet, Argo Rollout, LeaderWorkerSet group, KServe InferenceService or a
   * RayCluster of its own serves as a Deployment does).
   */
  static final Set<String> SERVING_LIKE =
      Set.of(
          "Deployment",
          "StatefulSet",
          "ReplicaSet",
          "Rollout",
          "LeaderWorkerSet",
          "InferenceService",
          "RayCluster");

  private ObservedArrivals() {}

  /** The nodes: the policy's, else every node a pod ran on with the most GPUs held at once. */
  public static List<NodePool> nodes(Policy policy, Collection<ObservedRun> runs) {
    List<NodePool> pools = new ArrayList<>();
    if (!policy.nodes().isEmpty()) {
      for (Policy.Node n : policy.nodes()) {
        pools.add(
            new NodePool(
                n.name(), n.count(), n.gpus(), n.gpuModel(), Map.of(), List.of(), n.layout()));
      }
      return pools;
    }
    for (ObservedRun run : runs) {
      for (PodTimeline t : run.pods()) {
        if (t.getGpuResource() != null && GpuShares.migProfile(t.getGpuResource()) != null) {
          throw new PolicyException(
              "policy "
                  + policy.name()
                  + ": "
                  + t.getName()
                  + " ran on "
                  + t.getGpuResource()
                  + " (MIG slices); the nodes' layout cannot be told from the timelines: describe"
                  + " them under nodes, with mig: {profile, gpus} (docs/operators/whatif.md)");
        }
      }
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
    Map<String, Integer> namespaces = new HashMap<>();
    Map<String, List<PodTimeline>> byWorkload = byWorkload(run, namespaces, skipped, assumptions);
    Map<String, WorkloadTimeline> objects = new HashMap<>();
    for (WorkloadTimeline w : run.workloads()) {
      objects.put(w.getKind() + "/" + w.getName(), w);
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
    PolicyKueue kueue = new PolicyKueue(policy);
    List<Workload> workloads = new ArrayList<>();
    for (List<PodTimeline> pods : byWorkload.values()) {
      workloads.add(
          workload(
              new Observed(run, pods, objects),
              policy,
              new Kept(applications, slos, rates, assumptions),
              kueue,
              namespace));
    }
    kueue.assumptions(assumptions);
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
            Duration.ofDays(365),
            kueue.kueue());
    return new RunScenario(scenario, applications, rates, assumptions, skipped);
  }

  /**
   * The pods of {@code runs} that held GPUs under a workload no scenario can replay (a bare pod, a
   * kind outside {@link #JOB_LIKE} and {@link #SERVING_LIKE}), each as {@code namespace/name
   * (Kind)}.
   */
  public static List<String> unmodelledGpuPods(List<ObservedRun> runs) {
    List<String> out = new ArrayList<>();
    for (ObservedRun run : runs) {
      for (PodTimeline t : run.pods()) {
        String kind = t.getWorkload() == null ? "Pod" : t.getWorkload().getKind();
        if (t.getGpus() > 0 && !JOB_LIKE.contains(kind) && !SERVING_LIKE.contains(kind)) {
          out.add(t.getNamespace() + "/" + t.getName() + " (" + kind + ")");
        }
      }
    }
    return out;
  }

  /**
   * The run's pods by workload, of the kinds a scenario can replay; the others to {@code skipped},
   * with the GPUs they held. Counts the pods of each namespace.
   */
  private static Map<String, List<PodTimeline>> byWorkload(
      ObservedRun run,
      Map<String, Integer> namespaces,
      List<String> skipped,
      List<String> assumptions) {
    Map<String, List<PodTimeline>> byWorkload = new LinkedHashMap<>();
    Map<String, Integer> asJobs = new TreeMap<>();
    for (PodTimeline t : run.pods()) {
      namespaces.merge(t.getNamespace(), 1, Integer::sum);
      String kind = t.getWorkload() == null ? "Pod" : t.getWorkload().getKind();
      if (!JOB_LIKE.contains(kind) && !SERVING_LIKE.contains(kind)) {
        skipped.add(
            t.getNamespace()
                + "/"
                + t.getName()
                + " (owned by a "
                + kind
                + (t.getGpus() > 0 ? ", held " + t.getGpus() + " GPU(s)" : "")
                + ")");
        continue;
      }
      if (JOB_LIKE.contains(kind) && !kind.equals("Job")) {
        asJobs.merge(kind, 1, Integer::sum);
      }
      byWorkload
          .computeIfAbsent(kind + "/" + t.getWorkload().getName(), k -> new ArrayList<>())
          .add(t);
    }
    asJobs.forEach(
        (kind, n) -> {
          long count = byWorkload.keySet().stream().filter(k -> k.startsWith(kind + "/")).count();
          assumptions.add(
              kind
                  + " ("
                  + count
                  + (count == 1 ? " workload, " : " workloads, ")
                  + n
                  + " pods): each runs as "
                  + (GANG_LIKE.contains(kind)
                      ? "a JobSet of one replicated Job, its pods one gang"
                      : "one Job of its pods")
                  + ", created together and scheduled one by one by kube-scheduler: no"
                  + " all-or-nothing admission");
        });
    return byWorkload;
  }

  /** A workload's observed pods, in the run, and the run's workload timelines by kind/name. */
  private record Observed(
      ObservedRun run, List<PodTimeline> pods, Map<String, WorkloadTimeline> objects) {}

  /** What the scenario of a run keeps of each workload besides the workload itself. */
  private record Kept(
      Map<String, String> applications,
      Map<String, Double> slos,
      Map<String, Double> rates,
      List<String> assumptions) {}

  /** One workload of the run, as the scenario replays it. */
  private static Workload workload(
      Observed seen, Policy policy, Kept kept, PolicyKueue kueue, String namespace) {
    ObservedRun run = seen.run();
    List<PodTimeline> pods = seen.pods();
    List<String> assumptions = kept.assumptions();
    PodTimeline first = pods.get(0);
    String kind = first.getWorkload().getKind();
    String name = first.getWorkload().getName();
    String application = PodFacts.application(first);
    Policy.WorkloadRule rule = policy.rule(application);
    String priorityClass = priorityClass(rule, pods, policy, application);
    PodTemplate template = template(pods, rule);
    kept.applications().put(name, application);
    if (JOB_LIKE.contains(kind)) {
      boolean gang = GANG_LIKE.contains(kind);
      String queue = kueue.queueOf(rule, pods, priorityClass, namespace, gang);
      return new Workload(
          name,
          priorityClass,
          template,
          null,
          ObservedJob.of(
              run,
              pods,
              rule,
              assumptions,
              application,
              gang,
              queue,
              PolicyKueue.workloadPriorityClassOf(rule, queue)));
    }
    WorkloadTimeline object = seen.objects().get(kind + "/" + name);
    List<ReplicaPoint> series;
    if (object != null && ObservedServing.covers(object.getSeries(), run)) {
      series = object.getSeries();
    } else {
      series = ObservedServing.inferredSeries(first.getNamespace(), kind, name, pods, run);
      assumptions.add(
          name
              + ": desired replicas in "
              + run.label()
              + " inferred from its pods (no workload timeline covers the run; a workload"
              + " timeline keeps its latest "
              + WorkloadContinuity.MAX_SERIES
              + " changes; give workloads.jsonl)");
    }
    ServingSpec serving = ObservedServing.of(run, kind, name, pods, series, kept.slos());
    if (serving.traffic() != null) {
      kept.rates().put(name, serving.traffic().ratePerSecond());
    }
    return new Workload(name, priorityClass, template, null, serving);
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
    String resource =
        pods.stream()
            .map(PodTimeline::getGpuResource)
            .filter(r -> r != null)
            .findFirst()
            .orElse(GpuShares.WHOLE);
    return new PodTemplate(
        gpus,
        "observed",
        Duration.ofMillis(pull),
        Duration.ofSeconds(30),
        Duration.ofMillis(stop),
        Map.of(),
        List.of(),
        warm,
        resource);
  }

  static long median(List<Long> values, long fallback) {
    if (values.isEmpty()) {
      return fallback;
    }
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(Comparator.naturalOrder());
    return sorted.get(sorted.size() / 2);
  }
}
