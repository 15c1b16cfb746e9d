package io.schedlens.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.crdgenerator.annotations.PresentInVersions;
import io.strimzi.crdgenerator.annotations.RequiredInVersions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validates the operators' custom resources against the versions the chart claims to support:
 *
 * <ul>
 *   <li>Strimzi ({@code kafka.strimzi.io}): only {@code v1} (Strimzi 1.x serves no other), bound to
 *       Strimzi's own API model ({@code io.strimzi:api}) with no unknown field, every field the
 *       model requires in v1 present and none that v1 no longer has ({@code RequiredInVersions} and
 *       {@code PresentInVersions}, the annotations Strimzi generates its CRDs from).
 *   <li>Prometheus Operator ({@code monitoring.coreos.com/v1}): the {@code openAPIV3Schema} of the
 *       CRDs it publishes, with unknown fields refused as {@code kubectl apply}'s strict field
 *       validation refuses them.
 * </ul>
 *
 * cert-manager's Certificate and Issuer are checked by the tests that render them (fields, issuer
 * reference): its CRD schemas are not vendored here.
 */
final class ChartSchemas {

  static final String STRIMZI_VERSION = "v1";
  static final String PROMETHEUS_OPERATOR_CRDS = "/schemas/prometheus-operator-v0.93.0/";

  private static final ObjectMapper STRIMZI =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private static final Map<String, Class<?>> STRIMZI_KINDS =
      Map.of(
          "Kafka", Kafka.class,
          "KafkaNodePool", KafkaNodePool.class,
          "KafkaTopic", KafkaTopic.class,
          "KafkaUser", KafkaUser.class);

  private static final Map<String, String> MONITORING_CRDS =
      Map.of(
          "ServiceMonitor", "monitoring.coreos.com_servicemonitors.yaml",
          "PodMonitor", "monitoring.coreos.com_podmonitors.yaml",
          "PrometheusRule", "monitoring.coreos.com_prometheusrules.yaml");

  private static final Pattern API_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

  private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

  private ChartSchemas() {}

  /** What is wrong with the custom resource; empty when it is valid. */
  static List<String> validate(String apiVersion, String kind, JsonNode doc) {
    if (STRIMZI_KINDS.containsKey(kind)) {
      return strimzi(apiVersion, kind, doc);
    }
    if (MONITORING_CRDS.containsKey(kind)) {
      return monitoring(apiVersion, kind, doc);
    }
    if (apiVersion.equals("cert-manager.io/v1")) {
      return List.of();
    }
    return List.of("no schema to validate " + apiVersion + " " + kind + " against");
  }

  static List<String> strimzi(String apiVersion, String kind, JsonNode doc) {
    List<String> problems = new ArrayList<>();
    if (!apiVersion.equals("kafka.strimzi.io/" + STRIMZI_VERSION)) {
      problems.add(
          apiVersion
              + ": Strimzi 1.x serves only kafka.strimzi.io/"
              + STRIMZI_VERSION
              + " (v1beta2 and older were removed)");
      return problems;
    }
    Object model;
    try {
      model = STRIMZI.treeToValue(doc, STRIMZI_KINDS.get(kind));
    } catch (IOException e) {
      problems.add("does not bind to Strimzi's " + kind + " model: " + e.getMessage());
      return problems;
    }
    Manifests.unknownFields(model, kind, problems);
    versionedFields(model, kind, problems);
    return problems;
  }

  /**
   * Fields Strimzi requires in v1 that are missing, and fields present that v1 does not have.
   * Version ranges are Strimzi's: {@code v1+}, {@code v1beta2+}, {@code v1beta2} or {@code
   * v1alpha1-v1beta2}.
   */
  private static void versionedFields(Object model, String at, List<String> problems) {
    ModelWalk.walk(
        model,
        at,
        (getter, value, field) -> {
          RequiredInVersions required = getter.getAnnotation(RequiredInVersions.class);
          if (required != null && inRange(required.value(), STRIMZI_VERSION) && value == null) {
            problems.add(field + " is required in " + STRIMZI_VERSION);
          }
          PresentInVersions present = getter.getAnnotation(PresentInVersions.class);
          if (present != null && !inRange(present.value(), STRIMZI_VERSION) && value != null) {
            problems.add(
                field + " is not in " + STRIMZI_VERSION + " (only " + present.value() + ")");
          }
        });
  }

  /** Whether {@code version} lies in a Strimzi version range. */
  static boolean inRange(String range, String version) {
    for (String part : range.split(",")) {
      String r = part.strip();
      if (r.endsWith("+")) {
        if (rank(version) >= rank(r.substring(0, r.length() - 1))) {
          return true;
        }
      } else if (r.contains("-")) {
        String[] ends = r.split("-", 2);
        if (rank(version) >= rank(ends[0]) && rank(version) <= rank(ends[1])) {
          return true;
        }
      } else if (r.equals(version)) {
        return true;
      }
    }
    return false;
  }

  /** Kubernetes' API version order: v1alpha1 < v1beta1 < v1beta2 < v1 < v2alpha1 < v2. */
  static int rank(String v) {
    Matcher m = API_VERSION.matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException("not an API version: " + v);
    }
    int major = Integer.parseInt(m.group(1));
    int stage = m.group(2) == null ? 2 : m.group(2).equals("beta") ? 1 : 0;
    int minor = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
    return major * 10_000 + stage * 1_000 + minor;
  }

  static List<String> monitoring(String apiVersion, String kind, JsonNode doc) {
    if (!apiVersion.equals("monitoring.coreos.com/v1")) {
      return List.of(apiVersion + ": the Prometheus Operator serves " + kind + " as v1");
    }
    Schema schema = SCHEMAS.computeIfAbsent(kind, k -> schema(MONITORING_CRDS.get(k)));
    try {
      return schema.validate(Manifests.YAML.writeValueAsString(doc), InputFormat.YAML).stream()
          .map(e -> e.toString())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Schema schema(String file) {
    try (InputStream in = ChartSchemas.class.getResourceAsStream(PROMETHEUS_OPERATOR_CRDS + file)) {
      JsonNode crd = Manifests.YAML.readTree(in);
      JsonNode v1 = null;
      for (JsonNode v : crd.path("spec").path("versions")) {
        if (v.path("name").asText().equals("v1")) {
          v1 = v;
        }
      }
      ObjectNode schema = (ObjectNode) v1.path("schema").path("openAPIV3Schema").deepCopy();
      strict(schema);
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
          .getSchema(Manifests.YAML.writeValueAsString(schema), InputFormat.YAML);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * An object schema with properties and no other word on extra fields refuses them, as the API
   * server's strict field validation does (structural schemas prune unknown fields unless {@code
   * x-kubernetes-preserve-unknown-fields}).
   */
  private static void strict(JsonNode node) {
    if (node instanceof ObjectNode o) {
      if (o.has("properties")
          && !o.has("additionalProperties")
          && !o.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
        o.put("additionalProperties", false);
      }
      // metadata is validated by the API server itself, not by the CRD's schema.
      o.fields().forEachRemaining(e -> strict(e.getValue()));
    } else if (node != null && node.isArray()) {
      node.forEach(ChartSchemas::strict);
    }
  }
}
