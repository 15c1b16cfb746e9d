package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.schedlens.check.Finding.Severity;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** {@code gpu-limits} and {@code gpu-request}: what a workload asks of the GPUs. */
final class ResourceRules {

  private ResourceRules() {}

  static void check(Inventory inv, List<Finding> out) {
    for (Workload w : inv.workloads) {
      limits(w, inv.settings, out);
      request(w, inv, out);
    }
  }

  /** Every GPU resource has a limit, and requests (if given) equal it. */
  private static void limits(Workload w, CheckSettings s, List<Finding> out) {
    for (Map.Entry<String, Container> e : w.allContainers().entrySet()) {
      var res = e.getValue().getResources();
      if (res == null) {
        continue;
      }
      Map<String, Quantity> requests = res.getRequests() == null ? Map.of() : res.getRequests();
      Map<String, Quantity> limits = res.getLimits() == null ? Map.of() : res.getLimits();
      TreeSet<String> gpus = new TreeSet<>();
      requests.keySet().stream().filter(s::isGpuResource).forEach(gpus::add);
      limits.keySet().stream().filter(s::isGpuResource).forEach(gpus::add);
      String field = e.getKey() + ".resources";
      for (String gpu : gpus) {
        Quantity req = requests.get(gpu);
        Quantity lim = limits.get(gpu);
        if (lim == null) {
          out.add(
              Finding.of(
                  Severity.ERROR,
                  Rule.GPU_LIMITS,
                  w.manifest(),
                  field + ".limits",
                  gpu
                      + " is requested without a limit; extended resources cannot be overcommitted, and the API server rejects a GPU request without an equal limit",
                  "set resources.limits[\""
                      + gpu
                      + "\"] (requests may then be omitted; they default to the limit)"));
        } else if (req != null
            && Quantity.getAmountInBytes(req).compareTo(Quantity.getAmountInBytes(lim)) != 0) {
          out.add(
              Finding.of(
                  Severity.ERROR,
                  Rule.GPU_LIMITS,
                  w.manifest(),
                  field,
                  gpu
                      + " requests ("
                      + req
                      + ") differ from limits ("
                      + lim
                      + "); the API server rejects this for an extended resource",
                  "make requests equal to limits, or omit requests"));
        }
      }
    }
  }

  /**
   * A GPU-intended workload (tolerates a GPU taint or selects GPU nodes) that requests no GPU.
   * DaemonSets are node agents (the device plugin, dcgm-exporter): they run on GPU nodes on purpose
   * without a GPU of their own.
   */
  private static void request(Workload w, Inventory inv, List<Finding> out) {
    CheckSettings s = inv.settings;
    if (w.daemonSet() || w.requestsGpu(s) || !w.gpuIntended(s)) {
      return;
    }
    List<String> selection = w.gpuNodeSelection(s);
    List<Toleration> tolerations = w.gpuTolerations(s);
    boolean serving = inv.serving(w);
    String intent =
        selection.isEmpty()
            ? "it tolerates the GPU nodes' taint "
                + tolerations.get(0).getKey()
                + " (a toleration admits a pod to those nodes, it does not attract it)"
            : "it selects GPU nodes (" + String.join(", ", selection) + ")";
    String field =
        serving && !w.containers().isEmpty()
            ? w.prefix() + ".containers[" + w.containers().get(0).getName() + "].resources"
            : selection.isEmpty()
                ? w.prefix() + ".tolerations"
                : (w.spec().getNodeSelector() != null
                    ? w.prefix() + ".nodeSelector"
                    : w.prefix() + ".affinity");
    Severity severity = serving || !selection.isEmpty() ? Severity.ERROR : Severity.WARNING;
    out.add(
        Finding.of(
            severity,
            Rule.GPU_REQUEST,
            w.manifest(),
            field,
            intent
                + " but requests no GPU: "
                + (serving ? "this serving workload " : "it ")
                + "will hold a GPU node's CPU and memory without a GPU while GPU pods wait, and its process sees no GPU (or, with the NVIDIA runtime's defaults, every GPU of the node, unaccounted)",
            serving || !selection.isEmpty()
                ? "request the GPU it needs (resources.limits[\"nvidia.com/gpu\"]: 1), or drop the GPU node selection and toleration"
                : "remove the toleration, or request nvidia.com/gpu if it needs one"));
  }
}
