package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The README's install block, run: every line is a command form this test knows how to carry out
 * against the chart, and any other line fails it, so that no step the README names goes untested.
 * The namespace is created and labelled, the Secrets are created, and the chart is rendered exactly
 * as the {@code helm upgrade --install} line says; then what the rendered pods need must be there.
 */
class InstallDocsTest {

  /** Namespaces the README's prerequisites create (the GPU Operator's), not the block itself. */
  static final Set<String> PREREQUISITE_NAMESPACES = Set.of("gpu-operator");

  /** The block's commands, continuation lines joined, comments and blank lines left out. */
  static List<String> installBlock() throws Exception {
    String readme = Files.readString(Repository.path("README.md"));
    int begin = readme.indexOf("<!-- install:begin");
    int end = readme.indexOf("<!-- install:end -->");
    assertThat(begin).as("README marks its install block").isPositive();
    assertThat(end).isGreaterThan(begin);
    String block = readme.substring(readme.indexOf('\n', begin) + 1, end);
    List<String> commands = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String line : block.split("\n")) {
      String l = line.strip();
      if (l.startsWith("```") || l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (l.endsWith("\\")) {
        cur.append(l, 0, l.length() - 1).append(' ');
        continue;
      }
      commands.add(cur.append(l).toString().strip());
      cur.setLength(0);
    }
    return commands;
  }

  /** What the steps before the chart leave in the cluster. */
  static final class Cluster {
    final Set<String> namespaces = new HashSet<>(PREREQUISITE_NAMESPACES);
    final Map<String, Map<String, String>> namespaceLabels = new HashMap<>();
    final Map<String, Set<String>> secretKeys = new HashMap<>();
    final List<Manifests> installs = new ArrayList<>();
    final List<String> installNamespaces = new ArrayList<>();
  }

  @Test
  void shouldRunEveryStepOfTheReadmesInstallBlock() throws Exception {
    List<String> commands = installBlock();
    assertThat(commands).isNotEmpty();
    Cluster cluster = new Cluster();
    for (String command : commands) {
      run(command, cluster);
    }
    assertThat(cluster.installs).as("the block installs the chart").isNotEmpty();
    for (int i = 0; i < cluster.installs.size(); i++) {
      check(cluster.installs.get(i), cluster.installNamespaces.get(i), cluster);
    }
  }

  static void run(String command, Cluster cluster) throws Exception {
    List<String> args = words(command);
    if (args.size() < 4) {
      throw new AssertionError("unknown command, would go untested: " + command);
    }
    if (args.subList(0, 3).equals(List.of("kubectl", "create", "namespace"))) {
      cluster.namespaces.add(args.get(3));
      return;
    }
    if (args.subList(0, 3).equals(List.of("kubectl", "label", "namespace"))) {
      String ns = args.get(3);
      assertThat(cluster.namespaces)
          .as("labels a namespace created before: " + command)
          .contains(ns);
      for (String kv : args.subList(4, args.size())) {
        String[] p = kv.split("=", 2);
        cluster.namespaceLabels.computeIfAbsent(ns, k -> new HashMap<>()).put(p[0], p[1]);
      }
      return;
    }
    if (args.get(0).equals("kubectl")
        && args.get(1).equals("-n")
        && args.subList(3, 6).equals(List.of("create", "secret", "generic"))) {
      String ns = args.get(2);
      assertThat(cluster.namespaces).as("a Secret in a namespace created before").contains(ns);
      Set<String> keys = new HashSet<>();
      for (String a : args.subList(7, args.size())) {
        assertThat(a).as(command).startsWith("--from-literal=");
        keys.add(a.substring("--from-literal=".length()).split("=", 2)[0]);
      }
      cluster.secretKeys.put(ns + "/" + args.get(6), keys);
      return;
    }
    if (args.subList(0, 3).equals(List.of("helm", "upgrade", "--install"))) {
      String release = args.get(3);
      assertThat(Repository.path(args.get(4)))
          .as("installs the repository's chart: " + command)
          .isEqualTo(Chart.dir());
      String namespace = null;
      List<Path> values = new ArrayList<>();
      Map<String, String> sets = new LinkedHashMap<>();
      for (int i = 5; i < args.size(); i += 2) {
        String flag = args.get(i);
        String value = args.get(i + 1);
        switch (flag) {
          case "--namespace", "-n" -> namespace = value;
          case "--values", "-f" -> values.add(Repository.path(value));
          case "--set" -> {
            String[] p = value.split("=", 2);
            sets.put(p[0], p[1]);
          }
          default -> throw new AssertionError("a helm flag this test does not run: " + flag);
        }
      }
      assertThat(namespace).as("helm installs into a namespace: " + command).isNotNull();
      assertThat(cluster.namespaces).as("created before the chart").contains(namespace);
      cluster.installs.add(Manifests.render(new Chart.Install(release, namespace, values, sets)));
      cluster.installNamespaces.add(namespace);
      return;
    }
    throw new AssertionError(
        "the README's install block has a command this test does not know how to run, so it"
            + " would go untested: "
            + command);
  }

  static void check(Manifests m, String namespace, Cluster cluster) {
    assertThat(cluster.namespaceLabels.getOrDefault(namespace, Map.of()))
        .as("the namespace enforces the restricted Pod Security Standard")
        .containsEntry("pod-security.kubernetes.io/enforce", "restricted");
    ChartTest.podSpecs(m)
        .forEach(
            (what, pod) ->
                assertThat(PodSecurityStandard.restrictedViolations(pod))
                    .as(what + " is admitted in " + namespace)
                    .isEmpty());

    // Every Secret a pod reads exists: made by a step, or written by Strimzi (a KafkaUser's and
    // the cluster CA's) or cert-manager (a Certificate's).
    Set<String> made = new HashSet<>();
    for (GenericKubernetesResource u : m.custom("KafkaUser")) {
      made.add(u.getMetadata().getName());
    }
    for (GenericKubernetesResource k : m.custom("Kafka")) {
      made.add(k.getMetadata().getName() + "-cluster-ca-cert");
    }
    for (GenericKubernetesResource c : m.custom("Certificate")) {
      made.add(Manifests.tree(c).path("spec").path("secretName").asText());
    }
    ChartTest.podSpecs(m)
        .forEach(
            (what, pod) -> {
              if (what.startsWith("Kafka")) {
                return; // Strimzi's own pods: their Secrets are Strimzi's
              }
              for (String secret : secretsRead(pod)) {
                String[] nameKey = secret.split("/", 2);
                boolean byStep =
                    cluster
                        .secretKeys
                        .getOrDefault(namespace + "/" + nameKey[0], Set.of())
                        .contains(nameKey[1]);
                assertThat(byStep || made.contains(nameKey[0]))
                    .as(
                        what
                            + " reads Secret "
                            + secret
                            + ", which no step creates and nothing in the install writes")
                    .isTrue();
              }
            });

    // A volume claimed by name (not a StatefulSet's claim template) must be made by a step.
    ChartTest.podSpecs(m)
        .forEach(
            (what, pod) -> {
              for (Volume v : pod.getVolumes() == null ? List.<Volume>of() : pod.getVolumes()) {
                if (v.getPersistentVolumeClaim() != null && !what.startsWith("Kafka")) {
                  throw new AssertionError(
                      what
                          + " mounts the PersistentVolumeClaim "
                          + v.getPersistentVolumeClaim().getClaimName()
                          + ", which no step creates");
                }
              }
            });

    // Roles and bindings only in namespaces that exist.
    List<HasMetadata> namespaced = new ArrayList<>(m.all(Role.class));
    namespaced.addAll(m.all(RoleBinding.class));
    for (HasMetadata o : namespaced) {
      assertThat(cluster.namespaces)
          .as(o.getKind() + " " + o.getMetadata().getName() + "'s namespace exists")
          .contains(o.getMetadata().getNamespace());
    }
    for (HasMetadata o : m.objects) {
      if (o.getMetadata().getNamespace() != null) {
        assertThat(cluster.namespaces).contains(o.getMetadata().getNamespace());
      }
    }
  }

  /** name/key of every Secret the pod's containers and volumes read. */
  static Set<String> secretsRead(PodSpec pod) {
    Set<String> out = new HashSet<>();
    pod.getContainers()
        .forEach(
            c -> {
              for (EnvVar e : c.getEnv()) {
                if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                  var ref = e.getValueFrom().getSecretKeyRef();
                  out.add(ref.getName() + "/" + ref.getKey());
                }
              }
            });
    if (pod.getVolumes() != null) {
      for (Volume v : pod.getVolumes()) {
        if (v.getSecret() != null) {
          if (v.getSecret().getItems() == null || v.getSecret().getItems().isEmpty()) {
            out.add(v.getSecret().getSecretName() + "/*");
          } else {
            v.getSecret()
                .getItems()
                .forEach(i -> out.add(v.getSecret().getSecretName() + "/" + i.getKey()));
          }
        }
      }
    }
    return out;
  }

  /** The command's words as a POSIX shell splits them (quotes kept together, then removed). */
  static List<String> words(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    int depth = 0;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (quote != 0) {
        if (c == '(' && i > 0 && command.charAt(i - 1) == '$') depth++;
        if (c == ')' && depth > 0) depth--;
        if (c == quote && depth == 0) {
          quote = 0;
        } else {
          w.append(c);
        }
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else {
        w.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }

  @Test
  void shouldSplitCommandsAsTheShellDoes() {
    assertThat(
            words(
                "kubectl -n s create secret generic t --from-literal=token=\"$(openssl rand -hex 32)\""))
        .containsExactly(
            "kubectl",
            "-n",
            "s",
            "create",
            "secret",
            "generic",
            "t",
            "--from-literal=token=$(openssl rand -hex 32)");
  }

  @Test
  void shouldRefuseAStepItCannotRun() {
    assertThatThrownBy(() -> run("kubectl apply -f https://example.com/crd.yaml", new Cluster()))
        .hasMessageContaining("would go untested");
  }
}
