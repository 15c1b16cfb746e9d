package io.schedlens.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The objects the chart renders (or one kustomization builds), as fabric8's typed model objects.
 * Every Kubernetes kind must bind to its typed class without a single unknown field, so that a
 * misspelt or misplaced field fails here instead of being silently dropped by the API server. The
 * operators' custom resources come as {@link GenericKubernetesResource} and are validated against
 * their own published models and schemas by {@link ChartSchemas}.
 */
final class Manifests {

  /** Kinds of the operators' CRDs, checked field by field by the tests instead. */
  static final Set<String> CUSTOM_KINDS =
      Set.of(
          "Kafka",
          "KafkaNodePool",
          "KafkaTopic",
          "KafkaUser",
          "ServiceMonitor",
          "PodMonitor",
          "PrometheusRule",
          "Certificate",
          "Issuer");

  static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  final String dir;
  final List<HasMetadata> objects;

  private Manifests(String dir, List<HasMetadata> objects) {
    this.dir = dir;
    this.objects = objects;
  }

  /** The objects {@code kubectl kustomize DIR} builds. */
  static Manifests build(String relativeDir) throws IOException, InterruptedException {
    return parse(relativeDir, Tools.kustomize(Repository.path(relativeDir)));
  }

  /** The objects Helm renders for the install. */
  static Manifests render(Chart.Install install) throws IOException {
    return parse(install.toString(), Chart.template(install));
  }

  /**
   * The chart with its defaults and the given values examples, as it installs into a cluster that
   * serves the Prometheus Operator's API (the examples' clusters run kube-prometheus-stack; {@code
   * helm template} cannot ask a cluster, so {@code monitoring.assumeOperator} says it).
   */
  static Manifests chart(String... examples) throws IOException {
    return render(Chart.Install.of(examples).withPrometheusOperator());
  }

  static Manifests parse(String what, String yaml) throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    for (JsonNode doc : documents(yaml)) {
      String kind = doc.path("kind").asText();
      HasMetadata o = KUBE.unmarshal(JSON.writeValueAsString(doc));
      if (!CUSTOM_KINDS.contains(kind) && o instanceof GenericKubernetesResource) {
        throw new AssertionError(
            what
                + ": "
                + kind
                + " "
                + doc.path("metadata").path("name")
                + " is not a known Kubernetes kind (apiVersion "
                + doc.path("apiVersion").asText()
                + ")");
      }
      List<String> problems = new ArrayList<>();
      if (o instanceof GenericKubernetesResource custom) {
        problems.addAll(ChartSchemas.validate(custom.getApiVersion(), kind, doc));
      } else {
        unknownFields(o, kind + "/" + o.getMetadata().getName(), problems);
      }
      if (!problems.isEmpty()) {
        throw new AssertionError(
            what + ": " + kind + " " + doc.path("metadata").path("name") + " " + problems);
      }
      objects.add(o);
    }
    return new Manifests(what, objects);
  }

  static List<JsonNode> documents(String yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (var it =
        YAML.readerFor(JsonNode.class).<JsonNode>readValues(new YAMLFactory().createParser(yaml))) {
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isEmpty()) {
          docs.add(n);
        }
      }
    }
    return docs;
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  <T extends HasMetadata> T one(Class<T> type, String name) {
    return all(type).stream()
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(dir + " has no " + type.getSimpleName() + " " + name));
  }

  List<GenericKubernetesResource> custom(String kind) {
    return all(GenericKubernetesResource.class).stream()
        .filter(o -> kind.equals(o.getKind()))
        .toList();
  }

  /** The first container of the Deployment or StatefulSet of that name. */
  Container container(String workload) {
    for (Deployment d : all(Deployment.class)) {
      if (d.getMetadata().getName().equals(workload)) {
        return d.getSpec().getTemplate().getSpec().getContainers().get(0);
      }
    }
    return one(StatefulSet.class, workload)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0);
  }

  /** A container's environment variables that have a value (not those from a Secret). */
  static Map<String, String> env(Container c) {
    Map<String, String> env = new HashMap<>();
    c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    return env;
  }

  /** A custom resource as a JSON tree, for field checks. */
  static ObjectNode tree(GenericKubernetesResource r) {
    return JSON.valueToTree(r);
  }

  /**
   * Every field the model did not recognise (kept in additionalProperties): a misspelt or misplaced
   * field, which the API server would drop or refuse.
   */
  static void unknownFields(Object o, String at, List<String> unknown) {
    ModelWalk.walk(
        o,
        at,
        (getter, value, path) -> {
          if (getter.getName().equals("getAdditionalProperties")
              && value instanceof Map<?, ?> extra
              && !extra.isEmpty()) {
            unknown.add(path.substring(0, path.lastIndexOf('.')) + " " + extra.keySet());
          }
        });
  }
}
