package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.ClassOverride;
import io.schedlens.simulator.scenario.Scenario.Jittered;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.PodTemplate;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Toleration;
import io.schedlens.simulator.scenario.Scenario.Traffic;
import io.schedlens.simulator.scenario.Scenario.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a scenario YAML (see {@code simulator/src/main/resources/scenarios/day08.yaml} for every
 * field with a comment), fills in defaults and validates it. Every error names the file, the path
 * of the field ({@code workloads[1].work}) and what was expected; unknown fields are errors, so
 * that a typo does not silently fall back to a default.
 */
public final class ScenarioLoader {

  /** Scenarios bundled with schedlens, by name. */
  public static final List<String> BUNDLED =
      List.of(
          "day08",
          "day08-disruptions",
          "node-failure",
          "pool",
          "dense",
          "gangs",
          "kueue",
          "shared");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final String source;
  private final YamlFields fields;

  private ScenarioLoader(String source) {
    this.source = source;
    this.fields = new YamlFields(source);
  }

  /** A bundled scenario by name ({@code day08}, {@code pool}) or a YAML file path. */
  public static Scenario load(String nameOrPath) {
    if (BUNDLED.contains(nameOrPath)) {
      String resource = "/scenarios/" + nameOrPath + ".yaml";
      try (InputStream in = ScenarioLoader.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new ScenarioException("bundled scenario " + resource + " is missing from the jar");
        }
        return parse(nameOrPath + ".yaml (bundled)", new String(in.readAllBytes()));
      } catch (IOException e) {
        throw new ScenarioException("cannot read bundled scenario " + resource + ": " + e, e);
      }
    }
    Path path = Path.of(nameOrPath);
    if (!Files.isRegularFile(path)) {
      throw new ScenarioException(
          "scenario '"
              + nameOrPath
              + "' is neither a bundled scenario "
              + BUNDLED
              + " nor a readable file");
    }
    try {
      return parse(path.toString(), Files.readString(path));
    } catch (IOException e) {
      throw new ScenarioException("cannot read scenario " + path + ": " + e, e);
    }
  }

  /** Parses YAML text; {@code source} names it in error messages. */
  public static Scenario parse(String source, String yaml) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new ScenarioException(source + ": not valid YAML: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new ScenarioException(source + ": expected a YAML mapping at the top");
    }
    return new ScenarioLoader(source).scenario(root);
  }

  private Scenario scenario(JsonNode n) {
    fields.known(
        n,
        "",
        "name",
        "description",
        "seed",
        "namespace",
        "experiment",
        "repeats",
        "duration",
        "gap",
        "nodes",
        "priorityClasses",
        "arms",
        "workloads",
        "slos",
        "actions",
        "conditions",
        "scrapeInterval",
        "kueue");
    String name = fields.dnsName(n, "", "name", null);
    List<NodePool> nodes = new ArrayList<>();
    fields.forEach(n, "nodes", true, (x, p) -> nodes.add(NodePoolFields.nodePool(fields, x, p)));
    List<PriorityClassSpec> classes = new ArrayList<>();
    fields.forEach(n, "priorityClasses", false, (x, p) -> classes.add(priorityClass(x, p)));
    List<Arm> arms = new ArrayList<>();
    fields.forEach(n, "arms", true, (x, p) -> arms.add(arm(x, p)));
    List<Workload> workloads = new ArrayList<>();
    fields.forEach(n, "workloads", true, (x, p) -> workloads.add(workload(x, p)));
    KueueLoader kueue = new KueueLoader(fields);
    Scenario s =
        new Scenario(
            name,
            fields.text(n, "", "description", ""),
            n.has("seed") ? fields.longValue(n, "", "seed") : 1L,
            fields.dnsName(n, "", "namespace", "default"),
            fields.text(n, "", "experiment", name),
            fields.intValue(n, "", "repeats", 1, 1, 100),
            fields.duration(n, "", "duration", null),
            fields.duration(n, "", "gap", Duration.ofMinutes(5)),
            nodes,
            classes,
            arms,
            workloads,
            slos(n),
            actions(n),
            conditions(n),
            fields.duration(n, "", "scrapeInterval", Duration.ofSeconds(15)),
            kueue.kueue(n));
    if (s.scrapeInterval().toMillis() < 10) {
      throw fields.fail("scrapeInterval", "must be at least 10ms, got " + s.scrapeInterval());
    }
    new ScenarioCrossCheck(fields).check(s);
    kueue.checkJobs(s.kueue(), s.workloads());
    return s;
  }

  private List<Scenario.Action> actions(JsonNode n) {
    List<Scenario.Action> actions = new ArrayList<>();
    List<String> kinds = List.of("drain", "uncordon", "fail", "rejoin", "rollout");
    fields.forEach(
        n,
        "actions",
        false,
        (x, p) -> {
          fields.known(
              x,
              p,
              "at",
              "drain",
              "uncordon",
              "fail",
              "rejoin",
              "rollout",
              "maxSurge",
              "maxUnavailable");
          List<String> given = kinds.stream().filter(x::has).toList();
          if (given.size() != 1) {
            throw fields.fail(
                p,
                "give exactly one of drain: NODE, uncordon: NODE, fail: NODE, rejoin: NODE or"
                    + " rollout: DEPLOYMENT");
          }
          String action = given.get(0);
          String surge = x.has("maxSurge") ? x.get("maxSurge").asText() : null;
          String unavailable = x.has("maxUnavailable") ? x.get("maxUnavailable").asText() : null;
          if (!action.equals("rollout") && (surge != null || unavailable != null)) {
            throw fields.fail(p, "maxSurge and maxUnavailable belong to a rollout");
          }
          for (String v : Arrays.asList(surge, unavailable)) {
            if (v != null && !v.matches("\\d+%?")) {
              throw fields.fail(
                  p, "maxSurge and maxUnavailable are a count (1) or a percentage (25%), not " + v);
            }
          }
          actions.add(
              new Scenario.Action(
                  fields.duration(x, p, "at", null),
                  action,
                  fields.text(x, p, action, null),
                  surge,
                  unavailable));
        });
    return actions;
  }

  /** The experiment's stated conditions (change, fixed, metrics, ...): text by key. */
  private Map<String, String> conditions(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode x = n.get("conditions");
    if (x == null || x.isNull()) {
      return out;
    }
    if (!x.isObject()) {
      throw fields.fail(
          "conditions", "expected a mapping such as {change: ..., fixed: ..., metrics: ...}");
    }
    x.fieldNames().forEachRemaining(k -> out.put(k, fields.text(x, "conditions", k, null).strip()));
    return out;
  }

  private Map<String, Double> slos(JsonNode n) {
    Map<String, Double> slos = new LinkedHashMap<>();
    JsonNode x = n.get("slos");
    if (x == null || x.isNull()) {
      return slos;
    }
    if (!x.isObject()) {
      throw fields.fail(
          "slos", "expected a mapping of service or PriorityClass name to milliseconds");
    }
    x.fieldNames().forEachRemaining(name -> slos.put(name, fields.positive(x, "slos", name, null)));
    return slos;
  }

  private PriorityClassSpec priorityClass(JsonNode n, String p) {
    fields.known(n, p, "name", "value", "preemptionPolicy");
    return new PriorityClassSpec(
        fields.dnsName(n, p, "name", null),
        fields.intValue(n, p, "value", null, -2_147_483_648, 1_000_000_000),
        preemptionPolicy(n, p));
  }

  private String preemptionPolicy(JsonNode n, String p) {
    String policy = fields.text(n, p, "preemptionPolicy", "PreemptLowerPriority");
    if (!policy.equals("PreemptLowerPriority") && !policy.equals("Never")) {
      throw fields.fail(
          p + ".preemptionPolicy", "must be PreemptLowerPriority or Never, got '" + policy + "'");
    }
    return policy;
  }

  private Arm arm(JsonNode n, String p) {
    fields.known(n, p, "name", "priorityClasses", "overrides");
    Map<String, ClassOverride> overrides = new LinkedHashMap<>();
    JsonNode o = n.get("overrides");
    if (o != null && !o.isNull()) {
      if (!o.isObject()) {
        throw fields.fail(
            p + ".overrides", "expected a mapping of PriorityClass name to overrides");
      }
      Iterator<Map.Entry<String, JsonNode>> it = o.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String q = p + ".overrides." + e.getKey();
        fields.known(e.getValue(), q, "value", "preemptionPolicy");
        overrides.put(
            e.getKey(),
            new ClassOverride(
                e.getValue().has("value")
                    ? fields.intValue(e.getValue(), q, "value", null, -2_147_483_648, 1_000_000_000)
                    : null,
                e.getValue().has("preemptionPolicy") ? preemptionPolicy(e.getValue(), q) : null));
      }
    }
    return new Arm(
        fields.dnsName(n, p, "name", null), fields.bool(n, p, "priorityClasses", true), overrides);
  }

  private Workload workload(JsonNode n, String p) {
    String kind = fields.text(n, p, "kind", null);
    if (!List.of("Deployment", "StatefulSet", "Job", "JobSet").contains(kind)) {
      throw fields.fail(
          p + ".kind", "must be Deployment, StatefulSet, Job or JobSet, got '" + kind + "'");
    }
    boolean serving = !kind.equals("Job") && !kind.equals("JobSet");
    List<String> common =
        List.of(
            "name",
            "kind",
            "priorityClass",
            "gpus",
            "image",
            "pull",
            "terminationGracePeriod",
            "stopTime",
            "nodeSelector",
            "tolerations",
            "disruptionBudget",
            "warmStart",
            "gpuResource");
    List<String> own =
        serving
            ? List.of("replicas", "modelLoad", "traffic")
            : List.of(
                "arrival",
                "parallelism",
                "completions",
                "work",
                "workJitter",
                "setup",
                "checkpointInterval",
                "backoffLimit",
                "ignoreDisruptions",
                "ttlAfterFinished",
                "queue",
                "workloadPriorityClass");
    List<String> all = new ArrayList<>(common);
    all.addAll(own);
    fields.known(n, p, all.toArray(String[]::new));
    List<Toleration> tolerations = new ArrayList<>();
    fields.forEach(
        n,
        p,
        "tolerations",
        (x, q) -> {
          fields.known(x, q, "key", "operator", "value", "effect");
          String op = fields.text(x, q, "operator", "Equal");
          if (!op.equals("Equal") && !op.equals("Exists")) {
            throw fields.fail(q + ".operator", "must be Equal or Exists, got '" + op + "'");
          }
          tolerations.add(
              new Toleration(
                  fields.text(x, q, "key", ""),
                  op,
                  fields.text(x, q, "value", ""),
                  fields.text(x, q, "effect", "")));
        });
    PodTemplate template =
        new PodTemplate(
            fields.intValue(n, p, "gpus", 1, 0, 64),
            fields.text(
                n, p, "image", "registry.example.com/" + fields.text(n, p, "name", null) + ":1.0"),
            fields.duration(n, p, "pull", Duration.ofSeconds(20)),
            fields.duration(n, p, "terminationGracePeriod", Duration.ofSeconds(30)),
            fields.duration(n, p, "stopTime", Duration.ofSeconds(3)),
            fields.stringMap(n, p, "nodeSelector"),
            tolerations,
            fields.bool(n, p, "warmStart", false),
            NodePoolFields.resource(fields, n, p));
    return new Workload(
        fields.dnsName(n, p, "name", null),
        n.hasNonNull("priorityClass") ? fields.text(n, p, "priorityClass", null) : null,
        template,
        disruptionBudget(n, p),
        serving ? servingSpec(n, p, kind) : jobSpec(n, p, kind.equals("JobSet")));
  }

  /** A Deployment's or StatefulSet's own fields. */
  private ServingSpec servingSpec(JsonNode n, String p, String kind) {
    List<ReplicaStep> replicas = new ArrayList<>();
    Traffic traffic = null;
    fields.forEach(
        n,
        p,
        "replicas",
        (x, q) -> {
          fields.known(x, q, "at", "jitter", "replicas");
          replicas.add(
              new ReplicaStep(
                  fields.duration(x, q, "at", null),
                  fields.duration(x, q, "jitter", Duration.ZERO),
                  fields.intValue(x, q, "replicas", null, 0, 1000)));
        });
    if (replicas.isEmpty()) {
      throw fields.fail(p + ".replicas", "a " + kind + " needs at least one {at, replicas} step");
    }
    Jittered modelLoad =
        jittered(n, p, "modelLoad", new Jittered(Duration.ofSeconds(60), Duration.ZERO));
    JsonNode t = n.get("traffic");
    if (t != null && !t.isNull()) {
      String q = p + ".traffic";
      fields.known(
          t,
          q,
          "service",
          "ratePerSecond",
          "latencyMedianMs",
          "latencySigma",
          "capacityPerReplica",
          "errorRate",
          "tick");
      traffic =
          new Traffic(
              fields.text(t, q, "service", fields.text(n, p, "name", null)),
              fields.positive(t, q, "ratePerSecond", null),
              fields.positive(t, q, "latencyMedianMs", 200.0),
              fields.number(t, q, "latencySigma", 0.3, 0, 3),
              fields.positive(t, q, "capacityPerReplica", 10.0),
              fields.number(t, q, "errorRate", 0.0, 0, 1),
              fields.duration(t, q, "tick", Duration.ofSeconds(1)));
      if (traffic.tick().toMillis() < 10 || traffic.tick().toMillis() > 60_000) {
        throw fields.fail(q + ".tick", "must be between 10ms and 60s, got " + traffic.tick());
      }
    }
    return new ServingSpec(kind.equals("StatefulSet"), replicas, modelLoad, traffic);
  }

  /**
   * A Job's own fields; a JobSet's are the same, its {@code parallelism} pods one gang (its
   * completions default to them).
   */
  private JobSpec jobSpec(JsonNode n, String p, boolean jobSet) {
    int parallelism = fields.intValue(n, p, "parallelism", 1, 1, 1000);
    return new JobSpec(
        arrival(n, p),
        parallelism,
        fields.intValue(n, p, "completions", jobSet ? parallelism : 1, 1, 100_000),
        fields.duration(n, p, "work", null),
        fields.number(n, p, "workJitter", 0.0, 0, 0.9),
        fields.duration(n, p, "setup", Duration.ofSeconds(30)),
        fields.duration(n, p, "checkpointInterval", Duration.ZERO),
        fields.intValue(n, p, "backoffLimit", 6, 0, 10_000),
        fields.bool(n, p, "ignoreDisruptions", false),
        fields.duration(n, p, "ttlAfterFinished", Duration.ofSeconds(60)),
        List.of(),
        jobSet,
        n.hasNonNull("queue") ? fields.dnsName(n, p, "queue", null) : null,
        n.hasNonNull("workloadPriorityClass")
            ? fields.dnsName(n, p, "workloadPriorityClass", null)
            : null);
  }

  /**
   * {@code disruptionBudget: {minAvailable: N}}: a PodDisruptionBudget over the workload's pods.
   */
  private Integer disruptionBudget(JsonNode n, String p) {
    JsonNode x = n.get("disruptionBudget");
    if (x == null || x.isNull()) {
      return null;
    }
    String q = p + ".disruptionBudget";
    fields.known(x, q, "minAvailable");
    return fields.intValue(x, q, "minAvailable", null, 0, 10_000);
  }

  private Scenario.Arrival arrival(JsonNode n, String p) {
    JsonNode x = n.get("arrival");
    if (x == null || x.isNull()) {
      return new Scenario.Arrival(Duration.ZERO, Duration.ZERO, 1, Duration.ZERO);
    }
    String q = p + ".arrival";
    if (x.isTextual()) {
      return new Scenario.Arrival(
          fields.duration(n, p, "arrival", null), Duration.ZERO, 1, Duration.ZERO);
    }
    fields.known(x, q, "at", "jitter", "count", "every");
    int count = fields.intValue(x, q, "count", 1, 1, 10_000);
    Duration every = fields.duration(x, q, "every", Duration.ZERO);
    if (count > 1 && every.isZero()) {
      throw fields.fail(q + ".every", "required when count is more than 1");
    }
    return new Scenario.Arrival(
        fields.duration(x, q, "at", null),
        fields.duration(x, q, "jitter", Duration.ZERO),
        count,
        every);
  }

  private Jittered jittered(JsonNode n, String p, String field, Jittered dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      return dflt;
    }
    String q = p + "." + field;
    if (x.isTextual()) {
      return new Jittered(fields.duration(n, p, field, null), Duration.ZERO);
    }
    fields.known(x, q, "at", "jitter");
    return new Jittered(
        fields.duration(x, q, "at", null), fields.duration(x, q, "jitter", Duration.ZERO));
  }
}
