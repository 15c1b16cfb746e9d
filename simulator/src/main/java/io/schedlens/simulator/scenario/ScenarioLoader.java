package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.schedlens.base.Durations;
import io.schedlens.simulator.scenario.Scenario.Arm;
import io.schedlens.simulator.scenario.Scenario.ClassOverride;
import io.schedlens.simulator.scenario.Scenario.Jittered;
import io.schedlens.simulator.scenario.Scenario.JobSpec;
import io.schedlens.simulator.scenario.Scenario.NodePool;
import io.schedlens.simulator.scenario.Scenario.PodTemplate;
import io.schedlens.simulator.scenario.Scenario.PriorityClassSpec;
import io.schedlens.simulator.scenario.Scenario.ReplicaStep;
import io.schedlens.simulator.scenario.Scenario.ServingSpec;
import io.schedlens.simulator.scenario.Scenario.Taint;
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
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads a scenario YAML (see {@code simulator/src/main/resources/scenarios/day08.yaml} for every
 * field with a comment), fills in defaults and validates it. Every error names the file, the path
 * of the field ({@code workloads[1].work}) and what was expected; unknown fields are errors, so
 * that a typo does not silently fall back to a default.
 */
public final class ScenarioLoader {

  /** Scenarios bundled with schedlens, by name. */
  public static final List<String> BUNDLED =
      List.of("day08", "day08-disruptions", "node-failure", "pool", "dense");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

  private final String source;

  private ScenarioLoader(String source) {
    this.source = source;
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
    known(
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
        "scrapeInterval");
    String name = dnsName(n, "", "name", null);
    List<NodePool> nodes = new ArrayList<>();
    forEach(n, "nodes", true, (x, p) -> nodes.add(nodePool(x, p)));
    List<PriorityClassSpec> classes = new ArrayList<>();
    forEach(n, "priorityClasses", false, (x, p) -> classes.add(priorityClass(x, p)));
    List<Arm> arms = new ArrayList<>();
    forEach(n, "arms", true, (x, p) -> arms.add(arm(x, p)));
    List<Workload> workloads = new ArrayList<>();
    forEach(n, "workloads", true, (x, p) -> workloads.add(workload(x, p)));
    Scenario s =
        new Scenario(
            name,
            text(n, "", "description", ""),
            n.has("seed") ? longValue(n, "", "seed") : 1L,
            dnsName(n, "", "namespace", "default"),
            text(n, "", "experiment", name),
            intValue(n, "", "repeats", 1, 1, 100),
            duration(n, "", "duration", null),
            duration(n, "", "gap", Duration.ofMinutes(5)),
            nodes,
            classes,
            arms,
            workloads,
            slos(n),
            actions(n),
            conditions(n),
            duration(n, "", "scrapeInterval", Duration.ofSeconds(15)));
    if (s.scrapeInterval().toMillis() < 10) {
      throw fail("scrapeInterval", "must be at least 10ms, got " + s.scrapeInterval());
    }
    crossCheck(s);
    return s;
  }

  private List<Scenario.Action> actions(JsonNode n) {
    List<Scenario.Action> actions = new ArrayList<>();
    List<String> kinds = List.of("drain", "uncordon", "fail", "rejoin", "rollout");
    forEach(
        n,
        "actions",
        false,
        (x, p) -> {
          known(
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
            throw fail(
                p,
                "give exactly one of drain: NODE, uncordon: NODE, fail: NODE, rejoin: NODE or"
                    + " rollout: DEPLOYMENT");
          }
          String action = given.get(0);
          String surge = x.has("maxSurge") ? x.get("maxSurge").asText() : null;
          String unavailable = x.has("maxUnavailable") ? x.get("maxUnavailable").asText() : null;
          if (!action.equals("rollout") && (surge != null || unavailable != null)) {
            throw fail(p, "maxSurge and maxUnavailable belong to a rollout");
          }
          for (String v : Arrays.asList(surge, unavailable)) {
            if (v != null && !v.matches("\\d+%?")) {
              throw fail(
                  p, "maxSurge and maxUnavailable are a count (1) or a percentage (25%), not " + v);
            }
          }
          actions.add(
              new Scenario.Action(
                  duration(x, p, "at", null),
                  action,
                  text(x, p, action, null),
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
      throw fail(
          "conditions", "expected a mapping such as {change: ..., fixed: ..., metrics: ...}");
    }
    x.fieldNames().forEachRemaining(k -> out.put(k, text(x, "conditions", k, null).strip()));
    return out;
  }

  private Map<String, Double> slos(JsonNode n) {
    Map<String, Double> slos = new LinkedHashMap<>();
    JsonNode x = n.get("slos");
    if (x == null || x.isNull()) {
      return slos;
    }
    if (!x.isObject()) {
      throw fail("slos", "expected a mapping of service or PriorityClass name to milliseconds");
    }
    x.fieldNames().forEachRemaining(name -> slos.put(name, positive(x, "slos", name, null)));
    return slos;
  }

  private void crossCheck(Scenario s) {
    unique(s.nodes().stream().map(NodePool::name).toList(), "nodes", "name");
    Set<String> nodeNames = new TreeSet<>();
    s.nodes()
        .forEach(
            pool -> {
              for (int i = 1; i <= pool.count(); i++) {
                nodeNames.add(pool.name() + "-" + i);
              }
            });
    for (int i = 0; i < s.actions().size(); i++) {
      Scenario.Action a = s.actions().get(i);
      String p = "actions[" + i + "]." + a.action();
      if (Scenario.Action.NODE_ACTIONS.contains(a.action()) && !nodeNames.contains(a.target())) {
        throw fail(
            p,
            "no node "
                + a.target()
                + "; nodes are named POOL-1 … POOL-count: "
                + String.join(", ", nodeNames));
      }
      if (a.action().equals("rollout")
          && s.workloads().stream()
              .noneMatch(w -> w.kind().equals("Deployment") && w.name().equals(a.target()))) {
        throw fail(p, "no Deployment " + a.target() + " among the workloads");
      }
      if (a.action().equals("rollout")
          && Scenario.Action.resolve(a.maxSurge(), 1, true) == 0
          && Scenario.Action.resolve(a.maxUnavailable(), 1, false) == 0
          && a.maxSurge() != null
          && !a.maxSurge().endsWith("%")
          && a.maxUnavailable() != null
          && !a.maxUnavailable().endsWith("%")) {
        throw fail(p, "maxSurge and maxUnavailable cannot both be 0 (the rollout could not move)");
      }
      if (a.action().equals("rejoin")) {
        Scenario.Action failed = null;
        for (Scenario.Action b : s.actions()) {
          if (b.action().equals("fail")
              && b.target().equals(a.target())
              && b.at().compareTo(a.at()) < 0) {
            failed = b;
          }
        }
        if (failed == null) {
          throw fail(p, "rejoin of " + a.target() + " without an earlier fail of it");
        }
        if (a.at().minus(failed.at()).compareTo(Duration.ofSeconds(340)) <= 0) {
          throw fail(
              p,
              "re-joining within 340 s of failing is not simulated: give the taint manager its"
                  + " 40 s (node monitor grace) + 300 s (unreachable toleration) first");
        }
      }
      if (a.at().compareTo(s.duration()) >= 0) {
        throw fail("actions[" + i + "].at", "must be within the run's duration " + s.duration());
      }
    }
    unique(
        s.priorityClasses().stream().map(PriorityClassSpec::name).toList(),
        "priorityClasses",
        "name");
    unique(s.arms().stream().map(Arm::name).toList(), "arms", "name");
    unique(s.workloads().stream().map(Workload::name).toList(), "workloads", "name");
    for (int i = 0; i < s.workloads().size(); i++) {
      Workload w = s.workloads().get(i);
      if (w.priorityClass() != null && s.priorityClass(w.priorityClass()) == null) {
        throw fail(
            "workloads[" + i + "].priorityClass",
            "'" + w.priorityClass() + "' is not one of priorityClasses " + names(s));
      }
      int largest = s.nodes().stream().mapToInt(NodePool::gpus).max().orElse(0);
      if (w.template().gpus() > largest) {
        throw fail(
            "workloads[" + i + "].gpus",
            w.template().gpus() + " GPUs fit on no node (the largest has " + largest + ")");
      }
    }
    for (int i = 0; i < s.arms().size(); i++) {
      for (String c : s.arms().get(i).overrides().keySet()) {
        if (s.priorityClass(c) == null) {
          throw fail("arms[" + i + "].overrides." + c, "no such PriorityClass " + names(s));
        }
      }
    }
    if (s.duration().isZero() || s.duration().isNegative()) {
      throw fail("duration", "must be positive");
    }
  }

  private static List<String> names(Scenario s) {
    return s.priorityClasses().stream().map(PriorityClassSpec::name).toList();
  }

  private void unique(List<String> values, String list, String field) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < values.size(); i++) {
      if (!seen.add(values.get(i))) {
        throw fail(list + "[" + i + "]." + field, "'" + values.get(i) + "' appears twice");
      }
    }
  }

  private NodePool nodePool(JsonNode n, String p) {
    known(n, p, "name", "count", "gpus", "gpuModel", "labels", "taints");
    List<Taint> taints = new ArrayList<>();
    forEach(
        n,
        p,
        "taints",
        (x, q) -> {
          known(x, q, "key", "value", "effect");
          String effect = text(x, q, "effect", null);
          if (!EFFECTS.contains(effect)) {
            throw fail(q + ".effect", "must be one of " + EFFECTS + ", got '" + effect + "'");
          }
          taints.add(new Taint(text(x, q, "key", null), text(x, q, "value", ""), effect));
        });
    return new NodePool(
        dnsName(n, p, "name", null),
        intValue(n, p, "count", 1, 1, 1000),
        intValue(n, p, "gpus", null, 0, 64),
        text(n, p, "gpuModel", "NVIDIA H100 80GB HBM3"),
        stringMap(n, p, "labels"),
        taints);
  }

  private PriorityClassSpec priorityClass(JsonNode n, String p) {
    known(n, p, "name", "value", "preemptionPolicy");
    return new PriorityClassSpec(
        dnsName(n, p, "name", null),
        intValue(n, p, "value", null, -2_147_483_648, 1_000_000_000),
        preemptionPolicy(n, p));
  }

  private String preemptionPolicy(JsonNode n, String p) {
    String policy = text(n, p, "preemptionPolicy", "PreemptLowerPriority");
    if (!policy.equals("PreemptLowerPriority") && !policy.equals("Never")) {
      throw fail(
          p + ".preemptionPolicy", "must be PreemptLowerPriority or Never, got '" + policy + "'");
    }
    return policy;
  }

  private Arm arm(JsonNode n, String p) {
    known(n, p, "name", "priorityClasses", "overrides");
    Map<String, ClassOverride> overrides = new LinkedHashMap<>();
    JsonNode o = n.get("overrides");
    if (o != null && !o.isNull()) {
      if (!o.isObject()) {
        throw fail(p + ".overrides", "expected a mapping of PriorityClass name to overrides");
      }
      Iterator<Map.Entry<String, JsonNode>> it = o.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String q = p + ".overrides." + e.getKey();
        known(e.getValue(), q, "value", "preemptionPolicy");
        overrides.put(
            e.getKey(),
            new ClassOverride(
                e.getValue().has("value")
                    ? intValue(e.getValue(), q, "value", null, -2_147_483_648, 1_000_000_000)
                    : null,
                e.getValue().has("preemptionPolicy") ? preemptionPolicy(e.getValue(), q) : null));
      }
    }
    return new Arm(dnsName(n, p, "name", null), bool(n, p, "priorityClasses", true), overrides);
  }

  private Workload workload(JsonNode n, String p) {
    String kind = text(n, p, "kind", null);
    if (!List.of("Deployment", "StatefulSet", "Job").contains(kind)) {
      throw fail(p + ".kind", "must be Deployment, StatefulSet or Job, got '" + kind + "'");
    }
    boolean serving = !kind.equals("Job");
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
            "warmStart");
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
                "ttlAfterFinished");
    List<String> all = new ArrayList<>(common);
    all.addAll(own);
    known(n, p, all.toArray(String[]::new));
    List<Toleration> tolerations = new ArrayList<>();
    forEach(
        n,
        p,
        "tolerations",
        (x, q) -> {
          known(x, q, "key", "operator", "value", "effect");
          String op = text(x, q, "operator", "Equal");
          if (!op.equals("Equal") && !op.equals("Exists")) {
            throw fail(q + ".operator", "must be Equal or Exists, got '" + op + "'");
          }
          tolerations.add(
              new Toleration(
                  text(x, q, "key", ""), op, text(x, q, "value", ""), text(x, q, "effect", "")));
        });
    PodTemplate template =
        new PodTemplate(
            intValue(n, p, "gpus", 1, 0, 64),
            text(n, p, "image", "registry.example.com/" + text(n, p, "name", null) + ":1.0"),
            duration(n, p, "pull", Duration.ofSeconds(20)),
            duration(n, p, "terminationGracePeriod", Duration.ofSeconds(30)),
            duration(n, p, "stopTime", Duration.ofSeconds(3)),
            stringMap(n, p, "nodeSelector"),
            tolerations,
            bool(n, p, "warmStart", false));
    return new Workload(
        dnsName(n, p, "name", null),
        n.hasNonNull("priorityClass") ? text(n, p, "priorityClass", null) : null,
        template,
        disruptionBudget(n, p),
        serving ? servingSpec(n, p, kind) : jobSpec(n, p));
  }

  /** A Deployment's or StatefulSet's own fields. */
  private ServingSpec servingSpec(JsonNode n, String p, String kind) {
    List<ReplicaStep> replicas = new ArrayList<>();
    Traffic traffic = null;
    forEach(
        n,
        p,
        "replicas",
        (x, q) -> {
          known(x, q, "at", "jitter", "replicas");
          replicas.add(
              new ReplicaStep(
                  duration(x, q, "at", null),
                  duration(x, q, "jitter", Duration.ZERO),
                  intValue(x, q, "replicas", null, 0, 1000)));
        });
    if (replicas.isEmpty()) {
      throw fail(p + ".replicas", "a " + kind + " needs at least one {at, replicas} step");
    }
    Jittered modelLoad =
        jittered(n, p, "modelLoad", new Jittered(Duration.ofSeconds(60), Duration.ZERO));
    JsonNode t = n.get("traffic");
    if (t != null && !t.isNull()) {
      String q = p + ".traffic";
      known(
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
              text(t, q, "service", text(n, p, "name", null)),
              positive(t, q, "ratePerSecond", null),
              positive(t, q, "latencyMedianMs", 200.0),
              number(t, q, "latencySigma", 0.3, 0, 3),
              positive(t, q, "capacityPerReplica", 10.0),
              number(t, q, "errorRate", 0.0, 0, 1),
              duration(t, q, "tick", Duration.ofSeconds(1)));
      if (traffic.tick().toMillis() < 10 || traffic.tick().toMillis() > 60_000) {
        throw fail(q + ".tick", "must be between 10ms and 60s, got " + traffic.tick());
      }
    }
    return new ServingSpec(kind.equals("StatefulSet"), replicas, modelLoad, traffic);
  }

  /** A Job's own fields. */
  private JobSpec jobSpec(JsonNode n, String p) {
    return new JobSpec(
        arrival(n, p),
        intValue(n, p, "parallelism", 1, 1, 1000),
        intValue(n, p, "completions", 1, 1, 100_000),
        duration(n, p, "work", null),
        number(n, p, "workJitter", 0.0, 0, 0.9),
        duration(n, p, "setup", Duration.ofSeconds(30)),
        duration(n, p, "checkpointInterval", Duration.ZERO),
        intValue(n, p, "backoffLimit", 6, 0, 10_000),
        bool(n, p, "ignoreDisruptions", false),
        duration(n, p, "ttlAfterFinished", Duration.ofSeconds(60)));
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
    known(x, q, "minAvailable");
    return intValue(x, q, "minAvailable", null, 0, 10_000);
  }

  private Scenario.Arrival arrival(JsonNode n, String p) {
    JsonNode x = n.get("arrival");
    if (x == null || x.isNull()) {
      return new Scenario.Arrival(Duration.ZERO, Duration.ZERO, 1, Duration.ZERO);
    }
    String q = p + ".arrival";
    if (x.isTextual()) {
      return new Scenario.Arrival(duration(n, p, "arrival", null), Duration.ZERO, 1, Duration.ZERO);
    }
    known(x, q, "at", "jitter", "count", "every");
    int count = intValue(x, q, "count", 1, 1, 10_000);
    Duration every = duration(x, q, "every", Duration.ZERO);
    if (count > 1 && every.isZero()) {
      throw fail(q + ".every", "required when count is more than 1");
    }
    return new Scenario.Arrival(
        duration(x, q, "at", null), duration(x, q, "jitter", Duration.ZERO), count, every);
  }

  private Jittered jittered(JsonNode n, String p, String field, Jittered dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      return dflt;
    }
    String q = p + "." + field;
    if (x.isTextual()) {
      return new Jittered(duration(n, p, field, null), Duration.ZERO);
    }
    known(x, q, "at", "jitter");
    return new Jittered(duration(x, q, "at", null), duration(x, q, "jitter", Duration.ZERO));
  }

  // ------------------------------------------------------------------ field readers

  private interface Each {
    void accept(JsonNode item, String path);
  }

  private void forEach(JsonNode n, String field, boolean required, Each each) {
    forEach(n, "", field, required, each);
  }

  private void forEach(JsonNode n, String p, String field, Each each) {
    forEach(n, p, field, false, each);
  }

  private void forEach(JsonNode n, String p, String field, boolean required, Each each) {
    JsonNode x = n.get(field);
    String q = join(p, field);
    if (x == null || x.isNull()) {
      if (required) {
        throw fail(q, "required (a list)");
      }
      return;
    }
    if (!x.isArray()) {
      throw fail(q, "expected a list");
    }
    if (required && x.isEmpty()) {
      throw fail(q, "must not be empty");
    }
    for (int i = 0; i < x.size(); i++) {
      if (!x.get(i).isObject()) {
        throw fail(q + "[" + i + "]", "expected a mapping");
      }
      each.accept(x.get(i), q + "[" + i + "]");
    }
  }

  private void known(JsonNode n, String p, String... fields) {
    Set<String> allowed = Set.of(fields);
    Iterator<String> it = n.fieldNames();
    while (it.hasNext()) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw fail(join(p, f), "unknown field; known here: " + String.join(", ", fields));
      }
    }
  }

  private String text(JsonNode n, String p, String field, String dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isValueNode()) {
      throw fail(join(p, field), "expected a single value");
    }
    return x.asText();
  }

  private String dnsName(JsonNode n, String p, String field, String dflt) {
    String v = text(n, p, field, dflt);
    if (v.length() > 63 || !DNS_LABEL.matcher(v).matches()) {
      throw fail(
          join(p, field),
          "'" + v + "' is not a Kubernetes name (lower-case letters, digits, '-', at most 63)");
    }
    return v;
  }

  private boolean bool(JsonNode n, String p, String field, boolean dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      return dflt;
    }
    if (!x.isBoolean()) {
      throw fail(join(p, field), "expected true or false, got '" + x.asText() + "'");
    }
    return x.booleanValue();
  }

  private long longValue(JsonNode n, String p, String field) {
    JsonNode x = n.get(field);
    if (!x.canConvertToLong() || !x.isIntegralNumber()) {
      throw fail(join(p, field), "expected a whole number, got '" + x.asText() + "'");
    }
    return x.longValue();
  }

  private int intValue(JsonNode n, String p, String field, Integer dflt, int min, int max) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isIntegralNumber() || !x.canConvertToInt()) {
      throw fail(join(p, field), "expected a whole number, got '" + x.asText() + "'");
    }
    int v = x.intValue();
    if (v < min || v > max) {
      throw fail(join(p, field), "must be between " + min + " and " + max + ", got " + v);
    }
    return v;
  }

  private double number(JsonNode n, String p, String field, Double dflt, double min, double max) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isNumber()) {
      throw fail(join(p, field), "expected a number, got '" + x.asText() + "'");
    }
    double v = x.doubleValue();
    if (v < min || v > max) {
      throw fail(join(p, field), "must be between " + min + " and " + max + ", got " + v);
    }
    return v;
  }

  private double positive(JsonNode n, String p, String field, Double dflt) {
    double v = number(n, p, field, dflt, 0, Double.MAX_VALUE);
    if (v <= 0) {
      throw fail(join(p, field), "must be positive");
    }
    return v;
  }

  private Duration duration(JsonNode n, String p, String field, Duration dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required (a duration like 90s, 20m, 1h)");
      }
      return dflt;
    }
    try {
      Duration d = Durations.parse(x.asText());
      if (d.isNegative()) {
        throw fail(join(p, field), "must not be negative");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw fail(join(p, field), "expected a duration like 90s, 20m, 1h, got '" + x.asText() + "'");
    }
  }

  private Map<String, String> stringMap(JsonNode n, String p, String field) {
    JsonNode x = n.get(field);
    Map<String, String> m = new LinkedHashMap<>();
    if (x == null || x.isNull()) {
      return m;
    }
    if (!x.isObject()) {
      throw fail(join(p, field), "expected a mapping of strings");
    }
    x.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
    return m;
  }

  private static String join(String p, String field) {
    return p.isEmpty() ? field : p + "." + field;
  }

  private ScenarioException fail(String path, String what) {
    return new ScenarioException(source + ": " + path + ": " + what);
  }
}
