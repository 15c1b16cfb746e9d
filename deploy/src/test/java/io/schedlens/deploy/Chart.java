package io.schedlens.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The schedlens Helm chart ({@code deploy/helm/schedlens}) as Helm itself renders and lints it:
 * helm-java runs Helm's own Go code, so what a test sees is what {@code helm template} and {@code
 * helm install} produce.
 */
final class Chart {

  static final String DIR = "deploy/helm/schedlens";

  /** The Kubernetes version installs are rendered for: the oldest the chart supports. */
  static final String KUBE_VERSION = "v1.30.0";

  private Chart() {}

  static Path dir() {
    return Repository.path(DIR);
  }

  /** The documented values examples, {@code examples/*.yaml}, by name. */
  static List<String> examples() {
    try (Stream<Path> files = Files.list(dir().resolve("examples"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .map(n -> n.substring(0, n.length() - ".yaml".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path example(String name) {
    return dir().resolve("examples/" + name + ".yaml");
  }

  /**
   * One {@code helm template} (or install): the release, its namespace, values files in order and
   * {@code --set} values, as a user gives them.
   */
  record Install(
      String release, String namespace, List<Path> valuesFiles, Map<String, String> sets) {

    Install {
      valuesFiles = List.copyOf(valuesFiles);
      sets = Map.copyOf(new LinkedHashMap<>(sets));
    }

    /** The chart with its defaults and the given examples' values, in release schedlens. */
    static Install of(String... examples) {
      return new Install(
          "schedlens", "schedlens", Stream.of(examples).map(Chart::example).toList(), Map.of());
    }

    /**
     * As into a cluster serving the Prometheus Operator's API: {@code helm template} has no cluster
     * to ask, so the value that GitOps renders use says it (ChartInstallTest installs into one).
     */
    Install withPrometheusOperator() {
      return with("monitoring.assumeOperator", "true");
    }

    Install with(String key, String value) {
      Map<String, String> s = new LinkedHashMap<>(sets);
      s.put(key, value);
      return new Install(release, namespace, valuesFiles, s);
    }

    @Override
    public String toString() {
      List<String> parts = new ArrayList<>();
      valuesFiles.forEach(f -> parts.add("-f " + Repository.root().relativize(f)));
      sets.forEach((k, v) -> parts.add("--set " + k + "=" + v));
      return "helm template " + release + " -n " + namespace + " " + String.join(" ", parts);
    }
  }

  /** The manifests Helm renders for the install; Helm's own error message if it fails. */
  static String template(Install install) {
    return template(dir(), install);
  }

  /** The annotation a hook's {@code helm.sh/hook} is renamed to by {@link #templateWithHooks}. */
  static final String HOOK_AS_RENDERED = "schedlens.test/helm.sh-hook";

  /**
   * The manifests with the chart's hooks among them. helm-java's template gives the release's
   * manifest only, which leaves hooks out ({@code helm template} prints them after it): a copy of
   * the chart whose hook annotations are renamed to {@link #HOOK_AS_RENDERED} renders each hook as
   * an object like any other, with the hook's kind in that annotation.
   */
  static String templateWithHooks(Install install, Path scratch) throws IOException {
    Path copy = Files.createTempDirectory(scratch, "chart").resolve("schedlens");
    copyFollowingLinks(dir(), copy);
    try (Stream<Path> templates = Files.walk(copy.resolve("templates"))) {
      for (Path t : (Iterable<Path>) templates::iterator) {
        if (Files.isRegularFile(t)) {
          String text = Files.readString(t);
          if (text.contains("helm.sh/hook:")) {
            Files.writeString(t, text.replace("helm.sh/hook:", HOOK_AS_RENDERED + ":"));
          }
        }
      }
    }
    return template(copy, install);
  }

  private static String template(Path chart, Install install) {
    TemplateCommand t =
        new Helm(chart)
            .template()
            .withName(install.release())
            .withNamespace(install.namespace())
            .withKubeVersion(KUBE_VERSION);
    for (Path f : install.valuesFiles()) {
      t = t.withValuesFile(f);
    }
    for (Map.Entry<String, String> e : install.sets().entrySet()) {
      t = t.set(e.getKey(), e.getValue());
    }
    try {
      return t.call();
    } catch (RuntimeException e) {
      throw new AssertionError(install + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@code helm lint --strict} of the chart with an example's values. helm-java's lint takes no
   * values file, so the example is merged into a copy of the chart's values.yaml (Helm merges
   * values files the same way: maps deeply, everything else replaced) and the copy is linted.
   */
  static LintResult lint(String example, Path scratch) throws IOException {
    Path copy = scratch.resolve("schedlens");
    copyFollowingLinks(dir(), copy);
    if (example != null) {
      JsonNode values = Manifests.YAML.readTree(dir().resolve("values.yaml").toFile());
      JsonNode extra = Manifests.YAML.readTree(example(example).toFile());
      Files.writeString(
          copy.resolve("values.yaml"),
          Manifests.YAML.writeValueAsString(merge((ObjectNode) values, extra)));
    }
    return new Helm(copy).lint().strict().call();
  }

  static ObjectNode merge(ObjectNode into, JsonNode from) {
    for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode old = into.get(e.getKey());
      if (old instanceof ObjectNode o && e.getValue().isObject()) {
        merge(o, e.getValue());
      } else {
        into.set(e.getKey(), e.getValue());
      }
    }
    return into;
  }

  private static void copyFollowingLinks(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from, FileVisitOption.FOLLOW_LINKS)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
