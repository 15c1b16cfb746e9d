package io.schedlens.check;

import io.fabric8.kubernetes.api.model.Container;
import io.schedlens.check.Finding.Severity;
import java.util.ArrayList;
import java.util.List;

/** {@code readiness-probe}: a serving workload is Ready only when it can serve. */
final class ServingRules {

  private ServingRules() {}

  static void check(Inventory inv, List<Finding> out) {
    for (Workload w : inv.workloads) {
      if (inv.serving(w)) {
        readiness(w, inv, out);
      }
    }
  }

  /**
   * The serving containers need a readiness probe: those with a GPU, else (a GPU-intended workload
   * that forgot its request, or one without GPUs) those that declare a port, else the first.
   */
  private static void readiness(Workload w, Inventory inv, List<Finding> out) {
    boolean gpu = w.gpuIntended(inv.settings);
    List<Container> serving = new ArrayList<>();
    for (Container c : w.containers()) {
      if (Workload.usesGpu(c, inv.settings)) {
        serving.add(c);
      }
    }
    if (serving.isEmpty()) {
      for (Container c : w.containers()) {
        if (c.getPorts() != null && !c.getPorts().isEmpty()) {
          serving.add(c);
        }
      }
    }
    if (serving.isEmpty() && !w.containers().isEmpty()) {
      serving.add(w.containers().get(0));
    }
    for (Container c : serving) {
      if (c.getReadinessProbe() != null) {
        continue;
      }
      out.add(
          Finding.of(
              gpu ? Severity.ERROR : Severity.WARNING,
              Rule.READINESS_PROBE,
              w.manifest(),
              w.prefix() + ".containers[" + c.getName() + "].readinessProbe",
              gpu
                  ? "a serving GPU container without a readiness probe is Ready as soon as it starts: requests reach a server still loading its model, and time to Ready measures nothing"
                  : "a serving container without a readiness probe is Ready as soon as it starts: its Service sends requests to it before it can answer",
              gpu
                  ? "add a readinessProbe on the endpoint that answers only once the model is loaded (and a startupProbe for long loads)"
                  : "add a readinessProbe on the endpoint that answers once the server can serve"));
    }
  }
}
