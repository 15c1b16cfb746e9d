package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's {@code helm test} pod (templates/tests/probe.yaml) as rendered: it runs {@code
 * ./schedlens probe} against the release's own Services, with the Secret the streams app takes its
 * API token from and, with TLS on, the release's CA; both NetworkPolicies let it in. SecureKafkaIT
 * runs its command against the real apps.
 */
class HelmTestPodTest {

  @TempDir static Path scratch;

  /** The rendered objects of an install, hooks included, as trees. */
  static List<JsonNode> documents(Chart.Install install, Path scratch) throws IOException {
    return Manifests.documents(Chart.templateWithHooks(install, scratch));
  }

  private static List<JsonNode> documents(Chart.Install install) throws IOException {
    return documents(install, scratch);
  }

  /** The release's helm test pod, if the install has one. */
  static Optional<JsonNode> testPod(List<JsonNode> docs) {
    return docs.stream()
        .filter(d -> d.path("kind").asText().equals("Pod"))
        .filter(
            d ->
                d.path("metadata")
                    .path("annotations")
                    .path(Chart.HOOK_AS_RENDERED)
                    .asText()
                    .equals("test"))
        .findFirst();
  }

  /** The first container's environment variables that have a value. */
  static Map<String, String> env(JsonNode pod) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode e : pod.path("spec").path("containers").get(0).path("env")) {
      if (e.has("value")) {
        env.put(e.path("name").asText(), e.path("value").asText());
      }
    }
    return env;
  }

  private static JsonNode named(List<JsonNode> docs, String kind, String name) {
    return docs.stream()
        .filter(d -> d.path("kind").asText().equals(kind))
        .filter(d -> d.path("metadata").path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
  }

  /** The Secret and key a file of the pod's container comes from: "secret/key". */
  private static String secretOfFile(JsonNode podSpec, String file) {
    JsonNode container = podSpec.path("containers").get(0);
    for (JsonNode m : container.path("volumeMounts")) {
      String dir = m.path("mountPath").asText();
      if (!file.startsWith(dir + "/")) {
        continue;
      }
      String rest = file.substring(dir.length() + 1);
      for (JsonNode v : podSpec.path("volumes")) {
        if (!v.path("name").asText().equals(m.path("name").asText())) {
          continue;
        }
        for (JsonNode item : v.path("secret").path("items")) {
          if (item.path("path").asText().equals(rest)) {
            return v.path("secret").path("secretName").asText() + "/" + item.path("key").asText();
          }
        }
      }
    }
    return "(not from a Secret)";
  }

  @Test
  void shouldProbeTheReleasesServicesWithTheStreamsAppsTokenAndCa() throws IOException {
    for (Chart.Install install :
        List.of(
            Chart.Install.of(),
            new Chart.Install("staging", "schedlens-staging", List.of(), Map.of()),
            Chart.Install.of().with("tls.mode", "cert-manager"))) {
      List<JsonNode> docs = documents(install);
      JsonNode pod = testPod(docs).orElseThrow(() -> new AssertionError(install + ": no test pod"));
      assertThat(pod.path("metadata").path("namespace").asText()).isEqualTo(install.namespace());
      JsonNode spec = pod.path("spec");
      assertThat(spec.path("restartPolicy").asText()).isEqualTo("Never");
      assertThat(
              PodSecurityStandard.restrictedViolations(
                  Manifests.YAML.treeToValue(spec, PodSpec.class)))
          .as(install + ": the test pod under the restricted Pod Security Standard")
          .isEmpty();
      assertThat(spec.path("containers").get(0).path("args").toString()).isEqualTo("[\"probe\"]");
      assertThat(spec.path("containers").get(0).path("env"))
          .as("secrets only as mounted files")
          .allMatch(e -> e.has("value"));
      Map<String, String> env = env(pod);
      boolean tls = install.sets().containsKey("tls.mode");
      for (String app : List.of("collector", "streams")) {
        URI url = URI.create(env.get("SCHEDLENS_" + app.toUpperCase() + "_URL"));
        assertThat(url.getScheme()).as(install + " " + app).isEqualTo(tls ? "https" : "http");
        String service = url.getHost().substring(0, url.getHost().indexOf('.'));
        assertThat(url.getHost()).isEqualTo(service + "." + install.namespace() + ".svc");
        JsonNode svc = named(docs, "Service", service);
        assertThat(svc.path("spec").path("selector").path("app.kubernetes.io/name").asText())
            .isEqualTo("schedlens-" + app);
        List<Integer> ports = new ArrayList<>();
        svc.path("spec").path("ports").forEach(p -> ports.add(p.path("port").asInt()));
        assertThat(ports).as(install + " " + service).contains(url.getPort());
      }
      // the token the streams app requires, from the same Secret
      JsonNode streams =
          docs.stream()
              .filter(d -> d.path("kind").asText().equals("StatefulSet"))
              .findFirst()
              .orElseThrow();
      JsonNode streamsSpec = streams.path("spec").path("template").path("spec");
      String streamsToken =
          env(streams.path("spec").path("template")).get("SCHEDLENS_API_TOKEN_FILE");
      assertThat(secretOfFile(spec, env.get("SCHEDLENS_API_TOKEN_FILE")))
          .as(install + ": the API token")
          .isEqualTo(secretOfFile(streamsSpec, streamsToken))
          .startsWith("schedlens-api-token/");
      if (tls) {
        assertThat(secretOfFile(spec, env.get("SCHEDLENS_HTTP_TLS_CA")))
            .isEqualTo("schedlens-tls/ca.crt");
      } else {
        assertThat(env).doesNotContainKey("SCHEDLENS_HTTP_TLS_CA");
      }
    }
  }

  /** Each app's NetworkPolicy has a rule that admits the test pod on the port it calls. */
  @Test
  void shouldLetTheTestPodThroughBothNetworkPolicies() throws IOException {
    List<JsonNode> docs = documents(Chart.Install.of());
    JsonNode pod = testPod(docs).orElseThrow();
    JsonNode labels = pod.path("metadata").path("labels");
    Map<String, String> env = env(pod);
    for (String app : List.of("collector", "streams")) {
      int port = URI.create(env.get("SCHEDLENS_" + app.toUpperCase() + "_URL")).getPort();
      JsonNode policy =
          docs.stream()
              .filter(d -> d.path("kind").asText().equals("NetworkPolicy"))
              .filter(
                  d ->
                      d.path("spec")
                          .path("podSelector")
                          .path("matchLabels")
                          .path("app.kubernetes.io/name")
                          .asText()
                          .equals("schedlens-" + app))
              .findFirst()
              .orElseThrow();
      assertThat(admits(policy, labels, port)).as(app + "'s NetworkPolicy, port " + port).isTrue();
    }
    // and with no test pod, no rule for it
    List<JsonNode> without = documents(Chart.Install.of().with("testFramework.enabled", "false"));
    assertThat(testPod(without)).isEmpty();
    for (JsonNode d : without) {
      if (d.path("kind").asText().equals("NetworkPolicy")) {
        assertThat(admits(d, labels, 9470) || admits(d, labels, 9471)).isFalse();
      }
    }
  }

  /** A rule of the policy lets a pod of the same namespace with these labels in on the port. */
  private static boolean admits(JsonNode policy, JsonNode labels, int port) {
    for (JsonNode rule : policy.path("spec").path("ingress")) {
      boolean onPort = false;
      for (JsonNode p : rule.path("ports")) {
        onPort |= p.path("port").asInt() == port;
      }
      for (JsonNode peer : rule.path("from")) {
        if (!onPort || peer.has("namespaceSelector") || !peer.has("podSelector")) {
          continue;
        }
        boolean matches = true;
        var it = peer.path("podSelector").path("matchLabels").fields();
        while (it.hasNext()) {
          var e = it.next();
          matches &= labels.path(e.getKey()).asText().equals(e.getValue().asText());
        }
        if (matches) {
          return true;
        }
      }
    }
    return false;
  }
}
