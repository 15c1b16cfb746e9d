package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Anything that makes pods: its pod template, where the template's spec is ({@code prefix}, for
 * field paths), and how many pods it runs at once.
 */
record Workload(Manifest manifest, PodTemplateSpec template, String prefix, int replicas) {

  /** The workload an object is, if it makes pods and has a pod spec. */
  static Optional<Workload> of(Manifest m) {
    Object o = m.object();
    Workload w = null;
    if (o instanceof Deployment d && d.getSpec() != null) {
      w =
          new Workload(
              m, d.getSpec().getTemplate(), "spec.template.spec", or(d.getSpec().getReplicas(), 1));
    } else if (o instanceof StatefulSet s && s.getSpec() != null) {
      w =
          new Workload(
              m, s.getSpec().getTemplate(), "spec.template.spec", or(s.getSpec().getReplicas(), 1));
    } else if (o instanceof ReplicaSet r && r.getSpec() != null) {
      w =
          new Workload(
              m, r.getSpec().getTemplate(), "spec.template.spec", or(r.getSpec().getReplicas(), 1));
    } else if (o instanceof DaemonSet d && d.getSpec() != null) {
      w = new Workload(m, d.getSpec().getTemplate(), "spec.template.spec", 1);
    } else if (o instanceof Job j && j.getSpec() != null) {
      w =
          new Workload(
              m,
              j.getSpec().getTemplate(),
              "spec.template.spec",
              or(j.getSpec().getParallelism(), 1));
    } else if (o instanceof CronJob c
        && c.getSpec() != null
        && c.getSpec().getJobTemplate() != null
        && c.getSpec().getJobTemplate().getSpec() != null) {
      var job = c.getSpec().getJobTemplate().getSpec();
      w =
          new Workload(
              m,
              job.getTemplate(),
              "spec.jobTemplate.spec.template.spec",
              or(job.getParallelism(), 1));
    } else if (o instanceof Pod p && p.getSpec() != null) {
      ObjectMeta meta = p.getMetadata();
      w = new Workload(m, new PodTemplateSpec(meta, p.getSpec()), "spec", 1);
    }
    return w == null || w.template() == null || w.template().getSpec() == null
        ? Optional.empty()
        : Optional.of(w);
  }

  String kind() {
    return manifest.kind();
  }

  String ref() {
    return manifest.ref();
  }

  PodSpec spec() {
    return template.getSpec();
  }

  /** The labels its pods carry. */
  Map<String, String> podLabels() {
    return template.getMetadata() == null || template.getMetadata().getLabels() == null
        ? Map.of()
        : template.getMetadata().getLabels();
  }

  /**
   * The labels of each distinct pod it makes, with those its controller adds: a Job's pods carry
   * {@code job-name} and {@code batch.kubernetes.io/job-name}, each pod of a StatefulSet its {@code
   * statefulset.kubernetes.io/pod-name} and {@code apps.kubernetes.io/pod-index}. One map stands
   * for all pods of other kinds.
   */
  List<Map<String, String>> podLabelSets() {
    String name = manifest.name();
    if (kind().equals("Job")) {
      Map<String, String> l = new TreeMap<>(podLabels());
      l.putIfAbsent("job-name", name);
      l.putIfAbsent("batch.kubernetes.io/job-name", name);
      return List.of(l);
    }
    if (kind().equals("StatefulSet")) {
      List<Map<String, String>> out = new ArrayList<>();
      for (int i = 0; i < Math.min(Math.max(replicas, 1), 1000); i++) {
        Map<String, String> l = new TreeMap<>(podLabels());
        l.put("statefulset.kubernetes.io/pod-name", name + "-" + i);
        l.put("apps.kubernetes.io/pod-index", Integer.toString(i));
        out.add(l);
      }
      return out;
    }
    return List.of(podLabels());
  }

  /** How many of its pods a selector of pod labels selects. */
  int podsSelected(Predicate<Map<String, String>> selector) {
    List<Map<String, String>> sets = podLabelSets();
    long matching = sets.stream().filter(selector).count();
    return sets.size() == 1 ? (matching > 0 ? replicas : 0) : (int) matching;
  }

  Map<String, String> podAnnotations() {
    return template.getMetadata() == null || template.getMetadata().getAnnotations() == null
        ? Map.of()
        : template.getMetadata().getAnnotations();
  }

  /** Deployments and StatefulSets: the kinds that serve (when a Service selects them). */
  boolean replicated() {
    return kind().equals("Deployment") || kind().equals("StatefulSet");
  }

  boolean batch() {
    return kind().equals("Job") || kind().equals("CronJob");
  }

  boolean daemonSet() {
    return kind().equals("DaemonSet");
  }

  List<Container> containers() {
    return spec().getContainers() == null ? List.of() : spec().getContainers();
  }

  /** Containers and init containers, each with its field path. */
  Map<String, Container> allContainers() {
    Map<String, Container> out = new LinkedHashMap<>();
    for (Container c : containers()) {
      out.put(prefix + ".containers[" + c.getName() + "]", c);
    }
    if (spec().getInitContainers() != null) {
      for (Container c : spec().getInitContainers()) {
        out.put(prefix + ".initContainers[" + c.getName() + "]", c);
      }
    }
    return out;
  }

  /** Whether a container asks for (request or limit) any GPU resource. */
  static boolean usesGpu(Container c, CheckSettings s) {
    var r = c.getResources();
    if (r == null) {
      return false;
    }
    return (r.getLimits() != null && r.getLimits().keySet().stream().anyMatch(s::isGpuResource))
        || (r.getRequests() != null
            && r.getRequests().keySet().stream().anyMatch(s::isGpuResource));
  }

  boolean requestsGpu(CheckSettings s) {
    return allContainers().values().stream().anyMatch(c -> usesGpu(c, s));
  }

  /**
   * The GPUs one pod needs, per resource, as the scheduler counts them: the larger of the sum over
   * the containers and the largest init container (limits stand in for absent requests).
   */
  Map<String, BigDecimal> gpusPerPod(CheckSettings s) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Container c : containers()) {
      gpus(c, s).forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
    }
    if (spec().getInitContainers() != null) {
      for (Container c : spec().getInitContainers()) {
        gpus(c, s).forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
      }
    }
    return sum;
  }

  /** One container's GPUs per resource: its requests, else its limits (the request's default). */
  private static Map<String, BigDecimal> gpus(Container c, CheckSettings s) {
    Map<String, BigDecimal> out = new TreeMap<>();
    var r = c.getResources();
    if (r == null) {
      return out;
    }
    for (Map<String, Quantity> amounts : Arrays.asList(r.getLimits(), r.getRequests())) {
      if (amounts != null) {
        amounts.forEach(
            (k, v) -> {
              if (s.isGpuResource(k)) {
                out.put(k, Quantity.getAmountInBytes(v));
              }
            });
      }
    }
    return out;
  }

  /** The GPU taint keys its pods tolerate by name. */
  List<Toleration> gpuTolerations(CheckSettings s) {
    List<Toleration> out = new ArrayList<>();
    if (spec().getTolerations() != null) {
      for (Toleration t : spec().getTolerations()) {
        if (t.getKey() != null && s.gpuTaints().contains(t.getKey())) {
          out.add(t);
        }
      }
    }
    return out;
  }

  /** The GPU node labels its node selector or required node affinity asks for. */
  List<String> gpuNodeSelection(CheckSettings s) {
    List<String> out = new ArrayList<>();
    if (spec().getNodeSelector() != null) {
      spec()
          .getNodeSelector()
          .forEach(
              (k, v) -> {
                if (s.gpuNodeLabels().contains(k)) {
                  out.add("nodeSelector " + k + "=" + v);
                }
              });
    }
    for (NodeSelectorTerm t : requiredNodeTerms()) {
      if (t.getMatchExpressions() == null) {
        continue;
      }
      for (NodeSelectorRequirement r : t.getMatchExpressions()) {
        String op = r.getOperator() == null ? "" : r.getOperator();
        if (s.gpuNodeLabels().contains(r.getKey())
            && (op.equals("In") || op.equals("Exists") || op.equals("Gt"))) {
          out.add("node affinity " + r.getKey() + " " + op);
        }
      }
    }
    return out;
  }

  /** Required node affinity terms (ORed), empty when there are none. */
  List<NodeSelectorTerm> requiredNodeTerms() {
    var a = spec().getAffinity();
    if (a == null
        || a.getNodeAffinity() == null
        || a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null
        || a.getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
            == null) {
      return List.of();
    }
    return a.getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms();
  }

  /**
   * GPU-intended: it asks for a GPU, tolerates a GPU taint, or selects GPU nodes. Such a workload
   * gets the GPU rules even when it forgot its GPU request.
   */
  boolean gpuIntended(CheckSettings s) {
    return requestsGpu(s) || !gpuTolerations(s).isEmpty() || !gpuNodeSelection(s).isEmpty();
  }

  private static int or(Integer i, int otherwise) {
    return i == null ? otherwise : i;
  }
}
