package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.base.GpuShares;
import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A scenario's node pools: name, count, GPUs and their model, labels, taints, and how the GPUs are
 * offered (MIG slices, time-sliced replicas); and a workload's GPU resource.
 */
final class NodePoolFields {

  private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

  private NodePoolFields() {}

  static NodePool nodePool(YamlFields fields, JsonNode n, String p) {
    fields.known(
        n, p, "name", "count", "gpus", "gpuModel", "labels", "taints", "mig", "timeSlicing");
    List<Taint> taints = new ArrayList<>();
    fields.forEach(
        n,
        p,
        "taints",
        (x, q) -> {
          fields.known(x, q, "key", "value", "effect");
          String effect = fields.text(x, q, "effect", null);
          if (!EFFECTS.contains(effect)) {
            throw fields.fail(
                q + ".effect", "must be one of " + EFFECTS + ", got '" + effect + "'");
          }
          taints.add(
              new Taint(fields.text(x, q, "key", null), fields.text(x, q, "value", ""), effect));
        });
    int gpus = fields.intValue(n, p, "gpus", null, 0, 64);
    String model = fields.text(n, p, "gpuModel", "NVIDIA H100 80GB HBM3");
    return new NodePool(
        fields.dnsName(n, p, "name", null),
        fields.intValue(n, p, "count", 1, 1, 1000),
        gpus,
        model,
        fields.stringMap(n, p, "labels"),
        taints,
        layout(fields, n, p, gpus, model));
  }

  /**
   * A pool's {@code mig} (the mixed strategy: {@code gpus} of each node's GPUs partitioned into
   * instances of {@code profile}) and {@code timeSlicing} ({@code replicas} of each whole GPU).
   */
  static GpuLayout layout(YamlFields fields, JsonNode n, String p, int gpus, String model) {
    String profile = null;
    int migGpus = 0;
    JsonNode mig = n.get("mig");
    if (mig != null && !mig.isNull()) {
      String q = p + ".mig";
      fields.known(mig, q, "profile", "gpus");
      profile = fields.text(mig, q, "profile", null);
      if (GpuShares.instancesPerGpu(profile, model) < 1) {
        throw fields.fail(
            q + ".profile",
            "'" + profile + "' is not a MIG profile of " + model + " (e.g. 1g.10gb, 3g.40gb)");
      }
      migGpus = fields.intValue(mig, q, "gpus", gpus, 1, gpus);
    }
    int replicas = 1;
    JsonNode slicing = n.get("timeSlicing");
    if (slicing != null && !slicing.isNull()) {
      String q = p + ".timeSlicing";
      fields.known(slicing, q, "replicas");
      replicas = fields.intValue(slicing, q, "replicas", null, 2, 64);
      if (migGpus == gpus) {
        throw fields.fail(q, "every GPU of the pool is partitioned (mig.gpus): none to time-slice");
      }
    }
    return new GpuLayout(profile, migGpus, replicas);
  }

  /** A workload's {@code gpuResource}: nvidia.com/gpu (the default) or nvidia.com/mig-PROFILE. */
  static String resource(YamlFields fields, JsonNode n, String p) {
    String r = fields.text(n, p, "gpuResource", GpuShares.WHOLE);
    if (!r.equals(GpuShares.WHOLE) && GpuShares.migProfile(r) == null) {
      throw fields.fail(
          p + ".gpuResource",
          "must be nvidia.com/gpu or a MIG profile's nvidia.com/mig-<profile>, got '" + r + "'");
    }
    return r;
  }
}
