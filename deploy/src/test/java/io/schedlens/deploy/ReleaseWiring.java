package io.schedlens.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How the objects Helm installed for one or more releases find each other (the objects as {@link
 * ChartCluster} stores them): which release owns each, and which selector, binding or Kafka
 * credential reaches the wrong release's object, or none.
 */
final class ReleaseWiring {

  private ReleaseWiring() {}

  /**
   * Every object stored, as {@code Kind/namespace/name} ({@code Kind/name} when cluster-scoped), to
   * the Helm release that owns it ({@code meta.helm.sh/release-name}; "" for none).
   */
  static Map<String, String> ownersByObject(List<GenericKubernetesResource> objects) {
    Map<String, String> owners = new TreeMap<>();
    for (GenericKubernetesResource o : objects) {
      String ns = o.getMetadata().getNamespace();
      String key = o.getKind() + "/" + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
      owners.put(key, o.getMetadata().getAnnotations().getOrDefault(RELEASE, ""));
    }
    return owners;
  }

  /**
   * What is wrong with how the releases' objects find each other, one line each: a Service,
   * PodDisruptionBudget or NetworkPolicy that selects pods of another release's Deployment or
   * StatefulSet, or none of its own release's; a ServiceMonitor that selects another release's
   * Service, or none of its own; a RoleBinding or ClusterRoleBinding whose role or ServiceAccount
   * is not there.
   */
  static List<String> problems(List<GenericKubernetesResource> objects) {
    List<String> problems = new ArrayList<>();
    problems.addAll(selectorProblems(objects));
    problems.addAll(bindingProblems(objects));
    problems.addAll(kafkaWiringProblems(objects));
    return problems;
  }

  /** Selectors reaching another release's pods or Services, or none of their own release's. */
  private static List<String> selectorProblems(List<GenericKubernetesResource> objects) {
    List<String> problems = new ArrayList<>();
    for (GenericKubernetesResource selector : objects) {
      Map<String, Object> labels =
          switch (selector.getKind()) {
            case "Service" -> map(selector.get("spec", "selector"));
            case "PodDisruptionBudget", "ServiceMonitor" ->
                map(selector.get("spec", "selector", "matchLabels"));
            case "NetworkPolicy" -> map(selector.get("spec", "podSelector", "matchLabels"));
            default -> null;
          };
      if (labels == null) {
        continue;
      }
      boolean selectsServices = selector.getKind().equals("ServiceMonitor");
      boolean ownFound = false;
      for (GenericKubernetesResource target : objects) {
        Map<String, Object> targetLabels =
            switch (target.getKind()) {
              case "Deployment", "StatefulSet" ->
                  selectsServices
                      ? null
                      : map(target.get("spec", "template", "metadata", "labels"));
              case "Service" ->
                  selectsServices ? new HashMap<>(target.getMetadata().getLabels()) : null;
              default -> null;
            };
        if (targetLabels != null
            && Objects.equals(
                selector.getMetadata().getNamespace(), target.getMetadata().getNamespace())
            && targetLabels.entrySet().containsAll(labels.entrySet())) {
          if (owner(selector).equals(owner(target))) {
            ownFound = true;
          } else {
            problems.add(describe(selector) + " selects " + describe(target));
          }
        }
      }
      if (!ownFound) {
        problems.add(describe(selector) + " selects nothing of its own release");
      }
    }
    return problems;
  }

  /** Bindings whose role or ServiceAccount is not there. */
  private static List<String> bindingProblems(List<GenericKubernetesResource> objects) {
    List<String> problems = new ArrayList<>();
    for (GenericKubernetesResource binding : objects) {
      if (!binding.getKind().endsWith("RoleBinding")) {
        continue;
      }
      Map<String, Object> role = map(binding.get("roleRef"));
      String roleNs =
          binding.getKind().equals("RoleBinding") ? binding.getMetadata().getNamespace() : null;
      if (!exists(objects, (String) role.get("kind"), roleNs, (String) role.get("name"))) {
        problems.add(
            describe(binding)
                + " binds "
                + role.get("kind")
                + " "
                + role.get("name")
                + ", which is not there");
      }
      List<?> subjects = (List<?>) binding.get("subjects");
      for (Object o : subjects) {
        Map<String, Object> subject = map(o);
        if ("ServiceAccount".equals(subject.get("kind"))
            && !exists(
                objects,
                "ServiceAccount",
                (String) subject.get("namespace"),
                (String) subject.get("name"))) {
          problems.add(
              describe(binding)
                  + " binds ServiceAccount "
                  + subject.get("namespace")
                  + "/"
                  + subject.get("name")
                  + ", which is not there");
        }
      }
    }
    return problems;
  }

  /**
   * The apps' Kafka credentials come from Secrets Strimzi writes: each KafkaUser's (its JAAS line)
   * and each Kafka's cluster CA ({@code <cluster>-cluster-ca-cert}). A pod that reads one whose
   * KafkaUser or Kafka is not in its namespace would never start.
   */
  private static List<String> kafkaWiringProblems(List<GenericKubernetesResource> objects) {
    List<String> problems = new ArrayList<>();
    for (GenericKubernetesResource w : objects) {
      if (!w.getKind().matches("Deployment|StatefulSet")) {
        continue;
      }
      String ns = w.getMetadata().getNamespace();
      List<String> users = new ArrayList<>();
      List<String> cas = new ArrayList<>();
      walk(w.get("spec", "template", "spec"), users, cas);
      for (String user : users) {
        if (!exists(objects, "KafkaUser", ns, user)) {
          problems.add(
              describe(w) + " reads the JAAS line of KafkaUser " + user + ", which is not there");
        }
      }
      for (String secret : cas) {
        String cluster = secret.substring(0, secret.length() - "-cluster-ca-cert".length());
        if (!exists(objects, "Kafka", ns, cluster)) {
          problems.add(
              describe(w) + " reads the cluster CA of Kafka " + cluster + ", which is not there");
        }
      }
      if (users.isEmpty() && objects.stream().anyMatch(o -> o.getKind().equals("Kafka"))) {
        problems.add(describe(w) + " reads no KafkaUser's JAAS line");
      }
    }
    return problems;
  }

  /** The KafkaUser Secrets (by their sasl.jaas.config key) and cluster CA Secrets a pod reads. */
  private static void walk(Object node, List<String> users, List<String> cas) {
    if (node instanceof Map<?, ?> m) {
      if (m.get("secretKeyRef") instanceof Map<?, ?> ref
          && "sasl.jaas.config".equals(ref.get("key"))) {
        users.add((String) ref.get("name"));
      }
      if (m.get("secretName") instanceof String name && name.endsWith("-cluster-ca-cert")) {
        cas.add(name);
      }
      m.values().forEach(v -> walk(v, users, cas));
    } else if (node instanceof List<?> l) {
      l.forEach(v -> walk(v, users, cas));
    }
  }

  private static boolean exists(
      List<GenericKubernetesResource> objects, String kind, String namespace, String name) {
    return objects.stream()
        .anyMatch(
            o ->
                o.getKind().equals(kind)
                    && Objects.equals(o.getMetadata().getNamespace(), namespace)
                    && o.getMetadata().getName().equals(name));
  }

  private static final String RELEASE = "meta.helm.sh/release-name";

  private static String owner(GenericKubernetesResource o) {
    return o.getMetadata().getAnnotations().getOrDefault(RELEASE, "");
  }

  private static String describe(GenericKubernetesResource o) {
    return o.getKind() + " " + o.getMetadata().getName() + " of release " + owner(o);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }
}
