package io.schedlens.simulator.scenario;

import io.schedlens.base.GpuShares;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A simulated experiment: a GPU cluster, its PriorityClasses, the workloads that arrive on it, and
 * the arms and repeats to run. Each run (one arm, one repeat) starts on an empty cluster; runs
 * follow one another in virtual time, separated by {@link #gap}. Loaded by {@link ScenarioLoader}.
 *
 * @param name short name, e.g. {@code day08}; also the experiment label value
 * @param description one paragraph for people
 * @param seed random seed: the same seed gives the same run
 * @param namespace namespace of every workload
 * @param experiment value of the experiment label on every pod
 * @param repeats how often every arm runs
 * @param duration virtual length of one run; what is still running at its end is deleted
 * @param gap virtual pause between runs (the previous run's pods are gone)
 * @param nodes the node pools
 * @param priorityClasses the PriorityClasses (used by arms with {@code priorityClasses: true})
 * @param arms the arms, in the order of the first repeat (later repeats rotate the order)
 * @param workloads Deployments and Jobs
 * @param slos latency SLOs in milliseconds by service or PriorityClass name (passed to the streams
 *     app in the demo)
 * @param conditions the experiment's stated conditions (change, fixed, metrics): written, with the
 *     repeats, into the experiment ConfigMap the simulated cluster carries
 * @param scrapeInterval how often dcgm-exporter is scraped, in virtual time: the interval of a
 *     recording's {@code dcgm.prom} and of the demo's scrapes (Prometheus' usual 15 s; 100 ms is a
 *     10 Hz exporter)
 */
public record Scenario(
    String name,
    String description,
    long seed,
    String namespace,
    String experiment,
    int repeats,
    Duration duration,
    Duration gap,
    List<NodePool> nodes,
    List<PriorityClassSpec> priorityClasses,
    List<Arm> arms,
    List<Workload> workloads,
    Map<String, Double> slos,
    List<Action> actions,
    Map<String, String> conditions,
    Duration scrapeInterval,
    Kueue kueue) {

  /**
   * Something done during every run, at {@code at} into it: to a node, {@code drain} (cordon it,
   * then evict its pods through the Eviction API, as {@code kubectl drain} does), {@code uncordon}
   * (it takes pods again), {@code fail} (it stops: NotReady, tainted unreachable, its pods evicted
   * by the taint manager 300 s later) or {@code rejoin} (a failed node is back); to a Deployment,
   * {@code rollout} (a new pod template, rolled out within {@code maxSurge} and {@code
   * maxUnavailable}: a count or a percentage of replicas, Kubernetes' default 25% each).
   *
   * @param target the node or the Deployment
   */
  public record Action(
      Duration at, String action, String target, String maxSurge, String maxUnavailable) {

    public static final Set<String> NODE_ACTIONS = Set.of("drain", "uncordon", "fail", "rejoin");

    /**
     * A maxSurge (rounded up) or maxUnavailable (rounded down) for {@code replicas}, as the
     * Deployment controller resolves it.
     */
    public static int resolve(String value, int replicas, boolean surge) {
      String v = value == null ? "25%" : value.strip();
      if (v.endsWith("%")) {
        double share = Integer.parseInt(v.substring(0, v.length() - 1)) / 100.0 * replicas;
        return surge ? (int) Math.ceil(share) : (int) Math.floor(share);
      }
      return Integer.parseInt(v);
    }
  }

  /**
   * {@code count} identical nodes named {@code name-1 … name-count}, their GPUs offered as {@code
   * layout} says.
   */
  public record NodePool(
      String name,
      int count,
      int gpus,
      String gpuModel,
      Map<String, String> labels,
      List<Taint> taints,
      GpuLayout layout) {

    /** Whole GPUs. */
    public NodePool(
        String name,
        int count,
        int gpus,
        String gpuModel,
        Map<String, String> labels,
        List<Taint> taints) {
      this(name, count, gpus, gpuModel, labels, taints, GpuLayout.WHOLE);
    }

    /** How many devices of {@code resource} each node offers. */
    public int devices(String resource) {
      return layout.devices(resource, gpus, gpuModel);
    }
  }

  /**
   * How a node's GPUs are offered, as the GPU Operator's MIG manager and NVIDIA's device plugin
   * configure them. The mixed MIG strategy: {@code migGpus} of the node's GPUs are partitioned into
   * instances of {@code migProfile} (all alike, as mig-parted's {@code all-1g.10gb}), offered as
   * {@code nvidia.com/mig-<profile>}; the others stay whole, {@code nvidia.com/gpu}. Time-slicing
   * (not renamed): each whole GPU is offered {@code replicas} times as {@code nvidia.com/gpu}.
   *
   * @param migProfile the partitioned GPUs' profile, e.g. 1g.10gb; null without MIG
   * @param migGpus how many of each node's GPUs are partitioned
   * @param replicas time-slicing replicas of each whole GPU; 1 without sharing
   */
  public record GpuLayout(String migProfile, int migGpus, int replicas) {
    public static final GpuLayout WHOLE = new GpuLayout(null, 0, 1);

    /** The resource the partitioned GPUs' instances are offered as, or null. */
    public String migResource() {
      return migProfile == null ? null : GpuShares.MIG_PREFIX + migProfile;
    }

    /** MIG instances per partitioned GPU of {@code model}; 0 without MIG. */
    public int instancesPerGpu(String model) {
      return migProfile == null ? 0 : GpuShares.instancesPerGpu(migProfile, model);
    }

    /** How many devices of {@code resource} a node of {@code gpus} GPUs of {@code model} offers. */
    public int devices(String resource, int gpus, String model) {
      if (GpuShares.WHOLE.equals(resource)) {
        return (gpus - migGpus) * replicas;
      }
      if (resource != null && resource.equals(migResource())) {
        return migGpus * instancesPerGpu(model);
      }
      return 0;
    }
  }

  /** A node taint; {@code effect} NoSchedule, PreferNoSchedule or NoExecute. */
  public record Taint(String key, String value, String effect) {}

  /** A toleration; {@code operator} Exists or Equal; an empty effect matches every effect. */
  public record Toleration(String key, String operator, String value, String effect) {}

  /**
   * A PriorityClass.
   *
   * @param preemptionPolicy PreemptLowerPriority (the default) or Never
   */
  public record PriorityClassSpec(String name, int value, String preemptionPolicy) {}

  /**
   * An arm of the experiment.
   *
   * @param priorityClasses whether pods get their workload's PriorityClass; without, every pod has
   *     priority 0 and no class (the control of a priority experiment)
   * @param overrides per PriorityClass name, a different value and/or preemptionPolicy in this arm
   *     (to try a policy: e.g. interactive with preemptionPolicy Never)
   */
  public record Arm(
      String name,
      boolean priorityClasses,
      Map<String, ClassOverride> overrides,
      List<GpuQuota> quotas) {

    public Arm {
      overrides = Map.copyOf(overrides);
      quotas = List.copyOf(quotas);
    }

    /** An arm without quotas. */
    public Arm(String name, boolean priorityClasses, Map<String, ClassOverride> overrides) {
      this(name, priorityClasses, overrides, List.of());
    }
  }

  /**
   * A GPU quota, after Kueue's ClusterQueue with one resource flavor and no borrowing: the pods of
   * the PriorityClasses (or namespaces) it covers hold at most {@code nominalGpus} GPUs at once. A
   * pod that would go over waits, gated, before the scheduler tries it (as Kueue's pod integration
   * holds a pod with its scheduling gate until its workload is admitted) and is tried again when a
   * pod it covers leaves its node. An empty list covers none.
   *
   * @param name the queue's name, for messages
   * @param priorityClasses the PriorityClasses whose pods it covers
   * @param namespaces the namespaces whose pods it covers
   * @param nominalGpus the GPUs its pods may hold at once
   */
  public record GpuQuota(
      String name, List<String> priorityClasses, List<String> namespaces, int nominalGpus) {

    public GpuQuota {
      priorityClasses = List.copyOf(priorityClasses);
      namespaces = List.copyOf(namespaces);
    }

    /** Whether a pod of this class and namespace is one of the queue's. */
    public boolean covers(String priorityClass, String namespace) {
      return (priorityClass != null && priorityClasses.contains(priorityClass))
          || namespaces.contains(namespace);
    }
  }

  /** A PriorityClass changed in one arm; a null field keeps the class's own. */
  public record ClassOverride(Integer value, String preemptionPolicy) {}

  /** A time with a uniform random jitter of ± {@code jitter}. */
  public record Jittered(Duration at, Duration jitter) {}

  /**
   * When a Job's instances are created: {@code count} of them, the first at {@code at}, then every
   * {@code every}, each ± {@code jitter}. With more than one, they are named {@code name-1}, {@code
   * name-2}, ...
   */
  public record Arrival(Duration at, Duration jitter, int count, Duration every) {}

  /** The replica count a Deployment wants from {@code at} (± jitter) on. */
  public record ReplicaStep(Duration at, Duration jitter, int replicas) {}

  /**
   * Request traffic to a Deployment's Ready pods while it wants replicas.
   *
   * @param service the service name on request logs
   * @param ratePerSecond mean arrivals per second (Poisson), whatever the replica count
   * @param latencyMedianMs median latency of one request on an idle replica
   * @param latencySigma log-normal shape of latency
   * @param capacityPerReplica requests per second one replica serves before queueing sets in
   * @param errorRate share of requests answered 5xx
   * @param tick how often the load balancer draws the next requests (over the tick to come) among
   *     the Ready pods: a pod Ready since the last tick serves from the next
   */
  public record Traffic(
      String service,
      double ratePerSecond,
      double latencyMedianMs,
      double latencySigma,
      double capacityPerReplica,
      double errorRate,
      Duration tick) {}

  /**
   * A Deployment, a StatefulSet or a Job: what every kind has (its name, class, pod template and
   * disruption budget) and what only its kind has ({@link #spec}).
   *
   * @param priorityClass its PriorityClass in arms that use them
   * @param template what each of its pods is
   * @param minAvailable a PodDisruptionBudget's minAvailable over its pods, or null
   * @param spec what its controller does: keep replicas ({@link ServingSpec}), or run work to
   *     completion ({@link JobSpec})
   */
  public record Workload(
      String name, String priorityClass, PodTemplate template, Integer minAvailable, Spec spec) {

    /** Deployment, StatefulSet or Job. */
    public String kind() {
      return spec.kind();
    }
  }

  /**
   * A pod of a workload, as its template says.
   *
   * @param gpus the request of {@code gpuResource}: devices (whole GPUs, MIG slices or replicas)
   * @param image container image
   * @param pull time to pull the image on a node
   * @param terminationGracePeriod terminationGracePeriodSeconds
   * @param stopTime how long the container takes to stop after SIGTERM (killed at the grace period)
   * @param nodeSelector node labels the pod requires
   * @param tolerations the pod's tolerations
   * @param warmStart the image is on the node and the model in its page cache: the kubelet reports
   *     the image present and starts the container within half a second, and a server's {@code
   *     modelLoad} may be under a second, so it can answer its first request less than a second
   *     after it is created
   * @param gpuResource the extended resource requested: nvidia.com/gpu or nvidia.com/mig-PROFILE
   */
  public record PodTemplate(
      int gpus,
      String image,
      Duration pull,
      Duration terminationGracePeriod,
      Duration stopTime,
      Map<String, String> nodeSelector,
      List<Toleration> tolerations,
      boolean warmStart,
      String gpuResource) {

    /** Requesting whole GPUs, {@code nvidia.com/gpu}. */
    public PodTemplate(
        int gpus,
        String image,
        Duration pull,
        Duration terminationGracePeriod,
        Duration stopTime,
        Map<String, String> nodeSelector,
        List<Toleration> tolerations,
        boolean warmStart) {
      this(
          gpus,
          image,
          pull,
          terminationGracePeriod,
          stopTime,
          nodeSelector,
          tolerations,
          warmStart,
          GpuShares.WHOLE);
    }
  }

  /** What a workload's controller does with its pods. */
  public sealed interface Spec permits ServingSpec, JobSpec {

    /** The Kubernetes kind of the workload object. */
    String kind();
  }

  /**
   * A Deployment, or a StatefulSet (podManagementPolicy Parallel: pods named {@code NAME-0}, {@code
   * NAME-1}, ...; a pod that goes is recreated under the same name, with a new UID, once the old
   * one is gone from the API): replicas that serve traffic.
   *
   * @param statefulSet a StatefulSet, else a Deployment
   * @param replicas desired replicas over each run
   * @param modelLoad time from container start to Ready (model loaded), ± jitter
   * @param traffic request traffic, or null
   */
  public record ServingSpec(
      boolean statefulSet, List<ReplicaStep> replicas, Jittered modelLoad, Traffic traffic)
      implements Spec {

    @Override
    public String kind() {
      return statefulSet ? "StatefulSet" : "Deployment";
    }
  }

  /**
   * A Job: pods that do a given amount of work, to completion.
   *
   * @param arrival when the Job (or each of several) is created in each run
   * @param parallelism pods running at once
   * @param completions successful pods needed
   * @param work GPU time each completion needs, productive time only
   * @param workJitter relative random spread of work, e.g. 0.1
   * @param setup time after container start before productive work (loading data)
   * @param checkpointInterval productive time between checkpoints; zero: never checkpoints
   * @param backoffLimit counted pod failures before the Job fails
   * @param ignoreDisruptions a podFailurePolicy rule {@code Ignore} on {@code DisruptionTarget}:
   *     preempted pods do not count towards the backoff limit
   * @param ttlAfterFinished ttlSecondsAfterFinished (then the Job and its pods are deleted)
   * @param unitWork the work of each completion, in order, when known (a what-if replays the work
   *     each observed completion did); empty: {@code work} with its jitter
   * @param jobSet the Job runs under a JobSet of the same name (kind JobSet: one replicated Job
   *     {@code workers} whose {@code parallelism} pods are one gang, created together, bound one by
   *     one by the scheduler); else a plain Job
   * @param queue the LocalQueue its {@code kueue.x-k8s.io/queue-name} label names, or null: with
   *     Kueue installed, the Job is created suspended and runs once Kueue admits it
   * @param workloadPriorityClass its {@code kueue.x-k8s.io/priority-class} label (in arms with
   *     {@code priorityClasses: true}), or null
   */
  public record JobSpec(
      Arrival arrival,
      int parallelism,
      int completions,
      Duration work,
      double workJitter,
      Duration setup,
      Duration checkpointInterval,
      int backoffLimit,
      boolean ignoreDisruptions,
      Duration ttlAfterFinished,
      List<Duration> unitWork,
      boolean jobSet,
      String queue,
      String workloadPriorityClass)
      implements Spec {

    public JobSpec {
      unitWork = List.copyOf(unitWork);
    }

    /** A Job whose completions each need {@code work} with its jitter. */
    public JobSpec(
        Arrival arrival,
        int parallelism,
        int completions,
        Duration work,
        double workJitter,
        Duration setup,
        Duration checkpointInterval,
        int backoffLimit,
        boolean ignoreDisruptions,
        Duration ttlAfterFinished) {
      this(
          arrival,
          parallelism,
          completions,
          work,
          workJitter,
          setup,
          checkpointInterval,
          backoffLimit,
          ignoreDisruptions,
          ttlAfterFinished,
          List.of(),
          false,
          null,
          null);
    }

    @Override
    public String kind() {
      return jobSet ? "JobSet" : "Job";
    }
  }

  /** The arm order of a repeat (1-based): rotated each repeat, so that no arm always runs first. */
  public List<Arm> armOrder(int repeat) {
    int n = arms.size();
    return IntStream.range(0, n).mapToObj(i -> arms.get((i + repeat - 1) % n)).toList();
  }

  /** The same scenario with another seed. */
  public Scenario withSeed(long otherSeed) {
    return new Scenario(
        name,
        description,
        otherSeed,
        namespace,
        experiment,
        repeats,
        duration,
        gap,
        nodes,
        priorityClasses,
        arms,
        workloads,
        slos,
        actions,
        conditions,
        scrapeInterval,
        kueue);
  }

  /** The same scenario with another number of repeats. */
  public Scenario withRepeats(int n) {
    return new Scenario(
        name,
        description,
        seed,
        namespace,
        experiment,
        n,
        duration,
        gap,
        nodes,
        priorityClasses,
        arms,
        workloads,
        slos,
        actions,
        conditions,
        scrapeInterval,
        kueue);
  }

  public PriorityClassSpec priorityClass(String name) {
    return priorityClasses.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
  }

  public int totalGpus() {
    return nodes.stream().mapToInt(n -> n.count() * n.gpus()).sum();
  }
}
