package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.schedlens.check.Finding.Severity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pre-flight check of GPU workloads: what must be consistent before a priority policy goes to a
 * cluster. Pure: objects in, findings out.
 */
public final class GpuLint {

  public static final String GPU = "nvidia.com/gpu";
  public static final String CHECKPOINT_INTERVAL = "schedlens.io/checkpoint-interval";

  /** Classes every cluster has. */
  static final Set<String> BUILT_IN_CLASSES =
      Set.of("system-cluster-critical", "system-node-critical");

  /** A workload's pod template, where it is, and how many replicas it wants. */
  record Workload(
      HasMetadata object, String kind, PodTemplateSpec template, String prefix, int replicas) {
    String ref() {
      return kind
          + " "
          + (object.getMetadata().getNamespace() == null
              ? ""
              : object.getMetadata().getNamespace() + "/")
          + object.getMetadata().getName();
    }

    PodSpec spec() {
      return template.getSpec();
    }

    boolean serving() {
      return kind.equals("Deployment") || kind.equals("StatefulSet");
    }

    boolean batch() {
      return kind.equals("Job") || kind.equals("CronJob");
    }
  }

  private final Set<String> externalClasses;

  public GpuLint(Set<String> externalClasses) {
    this.externalClasses = externalClasses;
  }

  public List<Finding> check(List<HasMetadata> objects) {
    List<Finding> out = new ArrayList<>();
    Map<String, PriorityClass> classes = new HashMap<>();
    List<PodDisruptionBudget> pdbs = new ArrayList<>();
    List<Workload> workloads = new ArrayList<>();
    for (HasMetadata o : objects) {
      if (o instanceof PriorityClass pc) {
        classes.put(pc.getMetadata().getName(), pc);
      } else if (o instanceof PodDisruptionBudget pdb) {
        pdbs.add(pdb);
      } else if (o instanceof Deployment d && d.getSpec() != null) {
        workloads.add(
            new Workload(
                d,
                "Deployment",
                d.getSpec().getTemplate(),
                "spec.template.spec",
                orOne(d.getSpec().getReplicas())));
      } else if (o instanceof StatefulSet s && s.getSpec() != null) {
        workloads.add(
            new Workload(
                s,
                "StatefulSet",
                s.getSpec().getTemplate(),
                "spec.template.spec",
                orOne(s.getSpec().getReplicas())));
      } else if (o instanceof Job j && j.getSpec() != null) {
        workloads.add(
            new Workload(
                j,
                "Job",
                j.getSpec().getTemplate(),
                "spec.template.spec",
                orOne(j.getSpec().getParallelism())));
      } else if (o instanceof CronJob c
          && c.getSpec() != null
          && c.getSpec().getJobTemplate() != null) {
        workloads.add(
            new Workload(
                c,
                "CronJob",
                c.getSpec().getJobTemplate().getSpec().getTemplate(),
                "spec.jobTemplate.spec.template.spec",
                1));
      }
    }
    for (Workload w : workloads) {
      if (w.template() == null || w.spec() == null) {
        continue;
      }
      boolean gpu = gpuLimits(w, out);
      tolerations(w, gpu, out);
      if (!gpu) {
        continue;
      }
      priorityClass(w, classes, out);
      if (w.serving()) {
        readiness(w, out);
        budget(w, pdbs, out);
      }
      if (w.batch()) {
        checkpoints(w, out);
      }
    }
    batchPreemption(workloads, classes, out);
    out.sort(
        Comparator.comparing(Finding::severity)
            .thenComparing(Finding::object)
            .thenComparing(Finding::rule));
    return out;
  }

  /** Limits set, requests equal to limits. Returns whether the workload asks for GPUs. */
  private static boolean gpuLimits(Workload w, List<Finding> out) {
    boolean gpu = false;
    List<Container> all = new ArrayList<>(w.spec().getContainers());
    if (w.spec().getInitContainers() != null) {
      all.addAll(w.spec().getInitContainers());
    }
    for (Container c : all) {
      Quantity req =
          c.getResources() == null || c.getResources().getRequests() == null
              ? null
              : c.getResources().getRequests().get(GPU);
      Quantity lim =
          c.getResources() == null || c.getResources().getLimits() == null
              ? null
              : c.getResources().getLimits().get(GPU);
      if (req == null && lim == null) {
        continue;
      }
      gpu = true;
      String field = w.prefix() + ".containers[" + c.getName() + "].resources";
      if (lim == null) {
        out.add(
            new Finding(
                Severity.ERROR,
                "gpu-limits",
                w.ref(),
                field + ".limits",
                "nvidia.com/gpu is requested without a limit; extended resources cannot be overcommitted, and the API server rejects a GPU request without an equal limit",
                "set resources.limits[\"nvidia.com/gpu\"] (requests may then be omitted; they default to the limit)"));
      } else if (req != null
          && Quantity.getAmountInBytes(req).compareTo(Quantity.getAmountInBytes(lim)) != 0) {
        out.add(
            new Finding(
                Severity.ERROR,
                "gpu-limits",
                w.ref(),
                field,
                "nvidia.com/gpu requests ("
                    + req
                    + ") differ from limits ("
                    + lim
                    + "); the API server rejects this for an extended resource",
                "make requests equal to limits, or omit requests"));
      }
    }
    return gpu;
  }

  private static void tolerations(Workload w, boolean gpu, List<Finding> out) {
    if (gpu || w.spec().getTolerations() == null) {
      return;
    }
    for (Toleration t : w.spec().getTolerations()) {
      if (t.getKey() != null && t.getKey().contains(GPU)) {
        out.add(
            new Finding(
                Severity.WARNING,
                "gpu-toleration",
                w.ref(),
                w.prefix() + ".tolerations",
                "it tolerates the GPU nodes' taint "
                    + t.getKey()
                    + " but asks for no GPU: a toleration admits a pod to those nodes, it does not attract it; this pod can land on a GPU node and hold its CPU and memory while GPU pods wait",
                "remove the toleration, or request nvidia.com/gpu if it needs one"));
      }
    }
  }

  private void priorityClass(Workload w, Map<String, PriorityClass> classes, List<Finding> out) {
    String name = w.spec().getPriorityClassName();
    String field = w.prefix() + ".priorityClassName";
    if (name == null || name.isEmpty()) {
      out.add(
          new Finding(
              Severity.WARNING,
              "priority-class",
              w.ref(),
              field,
              "a GPU workload without a PriorityClass gets priority 0 (or the global default): it is scheduled last and preempted first",
              "set priorityClassName to the class meant for this kind of work"));
    } else if (!classes.containsKey(name)
        && !externalClasses.contains(name)
        && !BUILT_IN_CLASSES.contains(name)) {
      out.add(
          new Finding(
              Severity.ERROR,
              "priority-class",
              w.ref(),
              field,
              "PriorityClass "
                  + name
                  + " is neither among these manifests nor declared external: if it does not exist on the cluster, the API server rejects every pod of this workload",
              "add the PriorityClass to the manifests, or pass --external-priority-classes "
                  + name
                  + " if the cluster already has it"));
    }
  }

  private static void readiness(Workload w, List<Finding> out) {
    for (Container c : w.spec().getContainers()) {
      if (usesGpu(c) && c.getReadinessProbe() == null) {
        out.add(
            new Finding(
                Severity.ERROR,
                "readiness-probe",
                w.ref(),
                w.prefix() + ".containers[" + c.getName() + "].readinessProbe",
                "a serving GPU container without a readiness probe is Ready as soon as it starts: requests reach a server still loading its model, and time to Ready measures nothing",
                "add a readinessProbe on the endpoint that answers only once the model is loaded (and a startupProbe for long loads)"));
      }
    }
  }

  private static void budget(Workload w, List<PodDisruptionBudget> pdbs, List<Finding> out) {
    Map<String, String> labels =
        w.template().getMetadata() == null || w.template().getMetadata().getLabels() == null
            ? Map.of()
            : w.template().getMetadata().getLabels();
    List<PodDisruptionBudget> mine = new ArrayList<>();
    for (PodDisruptionBudget p : pdbs) {
      if (p.getSpec() == null
          || p.getSpec().getSelector() == null
          || p.getSpec().getSelector().getMatchLabels() == null) {
        continue;
      }
      boolean sameNamespace =
          java.util.Objects.equals(
              p.getMetadata().getNamespace(), w.object().getMetadata().getNamespace());
      if (sameNamespace
          && labels.entrySet().containsAll(p.getSpec().getSelector().getMatchLabels().entrySet())) {
        mine.add(p);
      }
    }
    int r = w.replicas();
    if (mine.isEmpty()) {
      out.add(
          new Finding(
              Severity.WARNING,
              "disruption-budget",
              w.ref(),
              "PodDisruptionBudget",
              r < 2
                  ? "one replica and no PodDisruptionBudget: every drain, node upgrade or preemption is a service interruption until a replacement loads its model"
                  : "no PodDisruptionBudget: a drain may evict all "
                      + r
                      + " replicas at once, and users wait for every model to load again",
              r < 2
                  ? "run at least 2 replicas with a PodDisruptionBudget maxUnavailable: 1"
                  : "add a PodDisruptionBudget with maxUnavailable: 1"));
      return;
    }
    for (PodDisruptionBudget p : mine) {
      String ref =
          "PodDisruptionBudget " + p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
      Integer allowedDown = allowedDisruptions(p, r);
      if (allowedDown == null) {
        continue;
      }
      if (allowedDown <= 0) {
        out.add(
            new Finding(
                Severity.ERROR,
                "disruption-budget",
                ref,
                "spec",
                "with "
                    + r
                    + " replica(s) of "
                    + w.ref()
                    + " it allows no eviction at all: a drain never finishes and the autoscaler cannot remove the node",
                "allow at least one: maxUnavailable: 1 (with 2 or more replicas)"));
      } else if (allowedDown >= r) {
        out.add(
            new Finding(
                Severity.WARNING,
                "disruption-budget",
                ref,
                "spec",
                "it lets all "
                    + r
                    + " replica(s) of "
                    + w.ref()
                    + " be evicted at once: the interactive service can drop to zero during a drain",
                "maxUnavailable: 1, or minAvailable: " + Math.max(1, r - 1)));
      }
    }
  }

  /** How many replicas the budget lets go at once; null when it cannot be told. */
  static Integer allowedDisruptions(PodDisruptionBudget p, int replicas) {
    IntOrString min = p.getSpec().getMinAvailable();
    IntOrString max = p.getSpec().getMaxUnavailable();
    if (max != null) {
      return scaled(max, replicas);
    }
    if (min != null) {
      Integer m = scaled(min, replicas);
      return m == null ? null : replicas - m;
    }
    return null;
  }

  /** An int, or a percentage of replicas (rounded up, as the disruption controller does). */
  private static Integer scaled(IntOrString v, int replicas) {
    if (v.getIntVal() != null) {
      return v.getIntVal();
    }
    String s = v.getStrVal();
    if (s != null && s.endsWith("%")) {
      try {
        double pct = Double.parseDouble(s.substring(0, s.length() - 1));
        return (int) Math.ceil(replicas * pct / 100.0);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private static void checkpoints(Workload w, List<Finding> out) {
    Map<String, String> annotations =
        w.template().getMetadata() == null || w.template().getMetadata().getAnnotations() == null
            ? Map.of()
            : w.template().getMetadata().getAnnotations();
    long grace =
        w.spec().getTerminationGracePeriodSeconds() == null
            ? 30
            : w.spec().getTerminationGracePeriodSeconds();
    String interval = annotations.get(CHECKPOINT_INTERVAL);
    String field = "spec.template.metadata.annotations[" + CHECKPOINT_INTERVAL + "]";
    if (interval == null) {
      out.add(
          new Finding(
              Severity.WARNING,
              "checkpoint",
              w.ref(),
              field,
              "a GPU job without a declared checkpoint interval: nobody can tell how much work a preemption throws away (without checkpoints, all of it since the start)",
              "checkpoint periodically, record each in the pod annotation schedlens.io/last-checkpoint, and declare the interval here (e.g. 5m)"));
      return;
    }
    Duration d = parseDuration(interval);
    if (d == null) {
      out.add(
          new Finding(
              Severity.ERROR,
              "checkpoint",
              w.ref(),
              field,
              "'" + interval + "' is not a duration",
              "write it as 300s, 5m or 1h"));
      return;
    }
    String graceField = w.prefix() + ".terminationGracePeriodSeconds";
    if (grace < 10) {
      out.add(
          new Finding(
              Severity.WARNING,
              "checkpoint",
              w.ref(),
              graceField,
              "a grace period of "
                  + grace
                  + " s leaves no time to write a final checkpoint on SIGTERM: a preempted pod loses up to a whole interval ("
                  + interval
                  + ")",
              "give it the time one checkpoint takes (30-60 s is common)"));
    } else if (grace > d.toSeconds()) {
      out.add(
          new Finding(
              Severity.WARNING,
              "checkpoint",
              w.ref(),
              graceField,
              "a grace period of "
                  + grace
                  + " s is longer than the checkpoint interval ("
                  + interval
                  + "): a preemptor waits longer for the GPU than the work the grace period can save",
              "shorten terminationGracePeriodSeconds to what one checkpoint takes"));
    }
  }

  private static void batchPreemption(
      List<Workload> workloads, Map<String, PriorityClass> classes, List<Finding> out) {
    Map<String, Integer> batchClasses = new HashMap<>();
    for (Workload w : workloads) {
      String name = w.spec() == null ? null : w.spec().getPriorityClassName();
      if (w.batch() && name != null && classes.containsKey(name) && hasGpu(w)) {
        batchClasses.put(name, classes.get(name).getValue());
      }
    }
    for (var e : batchClasses.entrySet()) {
      PriorityClass pc = classes.get(e.getKey());
      String policy =
          pc.getPreemptionPolicy() == null ? "PreemptLowerPriority" : pc.getPreemptionPolicy();
      if (policy.equals("Never")) {
        continue;
      }
      List<String> lower =
          batchClasses.entrySet().stream()
              .filter(o -> o.getValue() < e.getValue())
              .map(Map.Entry::getKey)
              .sorted()
              .toList();
      if (!lower.isEmpty()) {
        out.add(
            new Finding(
                Severity.WARNING,
                "batch-preemption-policy",
                "PriorityClass " + e.getKey(),
                "preemptionPolicy",
                "batch jobs of this class may preempt batch jobs of "
                    + String.join(", ", lower)
                    + ", throwing away their GPU work since the last checkpoint so that one batch finishes before another",
                "preemptionPolicy: Never keeps its place ahead in the queue without killing other batch work; leave preemption to the interactive class"));
      }
    }
  }

  private static boolean hasGpu(Workload w) {
    return w.spec().getContainers().stream().anyMatch(GpuLint::usesGpu);
  }

  private static boolean usesGpu(Container c) {
    var r = c.getResources();
    return r != null
        && ((r.getLimits() != null && r.getLimits().containsKey(GPU))
            || (r.getRequests() != null && r.getRequests().containsKey(GPU)));
  }

  /** A duration as schedlens settings write them (5m, 300s, 1h30m), or null. */
  static Duration parseDuration(String s) {
    try {
      return s.isBlank() ? null : io.schedlens.common.config.Durations.parse(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static int orOne(Integer i) {
    return i == null ? 1 : i;
  }
}
