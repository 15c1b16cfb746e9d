package io.schedlens.whatif;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.schedlens.base.Durations;
import io.schedlens.base.GpuShares;
import io.schedlens.simulator.scenario.Kueue;
import io.schedlens.simulator.scenario.Scenario.GpuLayout;
import io.schedlens.simulator.scenario.Scenario.GpuQuota;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.ScenarioException;
import io.schedlens.whatif.Policy.Node;
import io.schedlens.whatif.Policy.Unserved;
import io.schedlens.whatif.Policy.WorkloadRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and validates a policy YAML file. Every error names the file, the field's path ({@code
 * quotas[0].nominalGpus}) and what was expected; unknown fields are errors, so that a typo never
 * falls back to a default silently.
 */
public final class PolicyLoader {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern DNS_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  /** kube-apiserver's bound on a user-defined PriorityClass value. */
  static final int MAX_USER_PRIORITY = 1_000_000_000;

  private final String source;

  private PolicyLoader(String source) {
    this.source = source;
  }

  /** Reads the policy file at {@code path}. */
  public static Policy load(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new PolicyException(
          "policy file " + path + " does not exist or is not a file; see docs/operators/whatif.md");
    }
    try {
      return parse(path.toString(), Files.readString(path));
    } catch (IOException e) {
      throw new PolicyException("cannot read policy file " + path + ": " + e.getMessage(), e);
    }
  }

  /** Parses policy YAML; {@code source} names it in messages. */
  public static Policy parse(String source, String yaml) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new PolicyException(source + ": not valid YAML: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new PolicyException(source + ": expected a YAML mapping at the top");
    }
    return new PolicyLoader(source).policy(root);
  }

  private Policy policy(JsonNode n) {
    known(
        n,
        "",
        "name",
        "priorityClasses",
        "workloads",
        "quotas",
        "kueue",
        "unservedRequests",
        "nodes",
        "seed");
    String name = name(n, "", "name");
    List<PriorityClassSpec> classes = priorityClasses(n);
    Set<String> classNames = new HashSet<>();
    classes.forEach(c -> classNames.add(c.name()));
    Kueue kueue;
    try {
      kueue = Kueue.parse(source, n);
    } catch (ScenarioException e) {
      throw new PolicyException(e.getMessage(), e);
    }
    Map<String, WorkloadRule> workloads = workloads(n, classNames, kueue);
    List<GpuQuota> quotas = quotas(n, classNames);
    for (int i = 0; i < quotas.size(); i++) {
      String q = quotas.get(i).name();
      if (kueue.clusterQueues().stream().anyMatch(c -> c.name().equals(q))
          || kueue.localQueue(q) != null) {
        throw fail(
            "quotas[" + i + "].name",
            "'"
                + q
                + "' is also a ClusterQueue or LocalQueue of kueue; a quota is a queue of its own");
      }
    }
    String unserved = text(n, "", "unservedRequests", "failed");
    Unserved u;
    try {
      u = Unserved.valueOf(unserved.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw fail("unservedRequests", "must be failed or queued, got '" + unserved + "'");
    }
    List<Node> nodes = new ArrayList<>();
    JsonNode ns = list(n, "nodes");
    for (int i = 0; i < ns.size(); i++) {
      String p = "nodes[" + i + "]";
      JsonNode x = ns.get(i);
      known(x, p, "name", "count", "gpus", "gpuModel", "mig", "timeSlicing");
      int gpus = positive(x, p, "gpus", null);
      String model = text(x, p, "gpuModel", "");
      nodes.add(
          new Node(
              name(x, p, "name"),
              positive(x, p, "count", 1),
              gpus,
              model,
              layout(x, p, gpus, model)));
    }
    JsonNode seed = n.get("seed");
    if (seed != null && !seed.canConvertToLong()) {
      throw fail("seed", "expected an integer");
    }
    return new Policy(
        name, classes, workloads, quotas, kueue, u, nodes, seed == null ? 1L : seed.asLong());
  }

  /**
   * A node entry's {@code mig} ({@code gpus} of each node's GPUs partitioned into instances of
   * {@code profile}, the GPU Operator's mixed strategy) and {@code timeSlicing} ({@code replicas}
   * of each whole GPU), as a scenario's node pools say them.
   */
  private GpuLayout layout(JsonNode x, String p, int gpus, String model) {
    String profile = null;
    int migGpus = 0;
    JsonNode mig = x.get("mig");
    if (mig != null && !mig.isNull()) {
      known(mig, p + ".mig", "profile", "gpus");
      profile = text(mig, p + ".mig", "profile", null);
      if (GpuShares.instancesPerGpu(profile, model) < 1) {
        throw fail(p + ".mig.profile", "'" + profile + "' is not a MIG profile (e.g. 1g.10gb)");
      }
      migGpus = positive(mig, p + ".mig", "gpus", gpus);
      if (migGpus > gpus) {
        throw fail(p + ".mig.gpus", "more GPUs partitioned than the node has (" + gpus + ")");
      }
    }
    int replicas = 1;
    JsonNode slicing = x.get("timeSlicing");
    if (slicing != null && !slicing.isNull()) {
      known(slicing, p + ".timeSlicing", "replicas");
      replicas = positive(slicing, p + ".timeSlicing", "replicas", null);
    }
    return new GpuLayout(profile, migGpus, replicas);
  }

  private List<PriorityClassSpec> priorityClasses(JsonNode n) {
    List<PriorityClassSpec> classes = new ArrayList<>();
    Set<String> classNames = new HashSet<>();
    JsonNode pcs = list(n, "priorityClasses");
    for (int i = 0; i < pcs.size(); i++) {
      String p = "priorityClasses[" + i + "]";
      JsonNode c = pcs.get(i);
      known(c, p, "name", "value", "preemptionPolicy");
      String cn = name(c, p, "name");
      if (cn.equals(Policy.NO_CLASS)) {
        throw fail(p + ".name", "'" + Policy.NO_CLASS + "' means no class; choose another name");
      }
      if (!classNames.add(cn)) {
        throw fail(p + ".name", "PriorityClass '" + cn + "' is defined twice");
      }
      JsonNode v = c.get("value");
      if (v == null || !v.canConvertToInt()) {
        throw fail(p + ".value", "expected an integer PriorityClass value");
      }
      if (v.asInt() > MAX_USER_PRIORITY) {
        throw fail(
            p + ".value",
            "at most "
                + MAX_USER_PRIORITY
                + " (larger values are kept for system-cluster-critical and system-node-critical)");
      }
      String policy = text(c, p, "preemptionPolicy", "PreemptLowerPriority");
      if (!policy.equals("PreemptLowerPriority") && !policy.equals("Never")) {
        throw fail(
            p + ".preemptionPolicy", "must be PreemptLowerPriority or Never, got '" + policy + "'");
      }
      classes.add(new PriorityClassSpec(cn, v.asInt(), policy));
    }
    return classes;
  }

  private Map<String, WorkloadRule> workloads(JsonNode n, Set<String> classNames, Kueue kueue) {
    Map<String, WorkloadRule> workloads = new LinkedHashMap<>();
    JsonNode w = n.get("workloads");
    if (w != null && !w.isNull()) {
      if (!w.isObject()) {
        throw fail("workloads", "expected a mapping of application name to its rule");
      }
      Iterator<Map.Entry<String, JsonNode>> it = w.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = "workloads." + e.getKey();
        JsonNode r = e.getValue();
        known(r, p, "priorityClass", "setup", "checkpointEvery", "queue", "workloadPriorityClass");
        String pc = r.has("priorityClass") ? text(r, p, "priorityClass", null) : null;
        if (pc != null && !pc.equals(Policy.NO_CLASS) && !classNames.contains(pc)) {
          throw fail(
              p + ".priorityClass",
              "'"
                  + pc
                  + "' is not one of priorityClasses "
                  + classNames
                  + " (or '"
                  + Policy.NO_CLASS
                  + "' for none)");
        }
        Duration setup = duration(r, p, "setup", Duration.ZERO);
        Duration every = r.has("checkpointEvery") ? duration(r, p, "checkpointEvery", null) : null;
        if (every != null && every.isZero()) {
          every = null;
        }
        String queue = r.has("queue") ? text(r, p, "queue", null) : null;
        if (queue != null && !queue.equals(Policy.NO_CLASS) && kueue.localQueue(queue) == null) {
          throw fail(
              p + ".queue",
              "'"
                  + queue
                  + "' is not one of kueue.localQueues "
                  + kueue.localQueues().stream().map(Kueue.LocalQueue::name).toList()
                  + " (or '"
                  + Policy.NO_CLASS
                  + "' for none)");
        }
        String wpc =
            r.has("workloadPriorityClass") ? text(r, p, "workloadPriorityClass", null) : null;
        if (wpc != null && kueue.workloadPriorityClass(wpc) == null) {
          throw fail(
              p + ".workloadPriorityClass",
              "'"
                  + wpc
                  + "' is not one of kueue.workloadPriorityClasses "
                  + kueue.workloadPriorityClasses().stream()
                      .map(Kueue.WorkloadPriorityClass::name)
                      .toList());
        }
        workloads.put(e.getKey(), new WorkloadRule(pc, setup, every, queue, wpc));
      }
    }
    return workloads;
  }

  private List<GpuQuota> quotas(JsonNode n, Set<String> classNames) {
    List<GpuQuota> quotas = new ArrayList<>();
    JsonNode qs = list(n, "quotas");
    for (int i = 0; i < qs.size(); i++) {
      String p = "quotas[" + i + "]";
      JsonNode q = qs.get(i);
      known(q, p, "name", "priorityClasses", "namespaces", "nominalGpus");
      List<String> qc = strings(q, p, "priorityClasses");
      for (String c : qc) {
        if (!classNames.contains(c)) {
          throw fail(p + ".priorityClasses", "'" + c + "' is not one of " + classNames);
        }
      }
      List<String> qn = strings(q, p, "namespaces");
      if (qc.isEmpty() && qn.isEmpty()) {
        throw fail(p, "a quota covers priorityClasses, namespaces or both; it names neither");
      }
      JsonNode g = q.get("nominalGpus");
      if (g == null || !g.canConvertToInt() || g.asInt() < 0) {
        throw fail(p + ".nominalGpus", "expected a number of GPUs, 0 or more");
      }
      quotas.add(new GpuQuota(name(q, p, "name"), qc, qn, g.asInt()));
    }
    return quotas;
  }

  private JsonNode list(JsonNode n, String field) {
    JsonNode l = n.get(field);
    if (l == null || l.isNull()) {
      return YAML.createArrayNode();
    }
    if (!l.isArray()) {
      throw fail(field, "expected a list");
    }
    return l;
  }

  private List<String> strings(JsonNode n, String p, String field) {
    List<String> out = new ArrayList<>();
    JsonNode l = n.get(field);
    if (l == null || l.isNull()) {
      return out;
    }
    if (!l.isArray()) {
      throw fail(p + "." + field, "expected a list of names");
    }
    l.forEach(x -> out.add(x.asText()));
    return out;
  }

  private String name(JsonNode n, String p, String field) {
    String v = text(n, p, field, null);
    if (v == null) {
      throw fail(path(p, field), "required");
    }
    if (!DNS_NAME.matcher(v).matches() || v.length() > 253) {
      throw fail(
          path(p, field),
          "'" + v + "' is not a Kubernetes name (lower-case letters, digits, '-' and '.')");
    }
    return v;
  }

  private String text(JsonNode n, String p, String field, String fallback) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isValueNode()) {
      throw fail(path(p, field), "expected a single value");
    }
    return v.asText();
  }

  private Duration duration(JsonNode n, String p, String field, Duration fallback) {
    String v = text(n, p, field, null);
    if (v == null) {
      return fallback;
    }
    try {
      Duration d = Durations.parse(v);
      if (d.isNegative()) {
        throw fail(path(p, field), "must not be negative");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw fail(path(p, field), e.getMessage());
    }
  }

  private int positive(JsonNode n, String p, String field, Integer fallback) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (fallback == null) {
        throw fail(path(p, field), "required");
      }
      return fallback;
    }
    if (!v.canConvertToInt() || v.asInt() < 1) {
      throw fail(path(p, field), "expected a whole number, 1 or more");
    }
    return v.asInt();
  }

  private void known(JsonNode n, String p, String... fields) {
    if (n == null || !n.isObject()) {
      throw fail(p.isEmpty() ? "(top)" : p, "expected a mapping");
    }
    Set<String> allowed = Set.of(fields);
    Iterator<String> it = n.fieldNames();
    while (it.hasNext()) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw fail(path(p, f), "unknown field; known here: " + String.join(", ", fields));
      }
    }
  }

  private static String path(String p, String field) {
    return p.isEmpty() ? field : p + "." + field;
  }

  private PolicyException fail(String path, String message) {
    return new PolicyException(source + ": " + path + ": " + message);
  }
}
