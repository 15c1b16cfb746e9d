package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The experiment's ValidatingAdmissionPolicy (deploy/experiment/base/checkpoint-rbac.yaml), its CEL
 * evaluated with cel-java as the API server evaluates it: a batch pod may set its own checkpoint
 * annotation and nothing else, on no other pod.
 */
class CheckpointPolicyTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String CHECKPOINTER = "system:serviceaccount:ai-lab:batch-checkpointer";
  static JsonNode policy;
  static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          // has(), all(), ... as Kubernetes' CEL environment has them
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("request", SimpleType.DYN)
          .build();
  static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  @BeforeAll
  static void policy() throws Exception {
    for (JsonNode d :
        Manifests.documents(
            Files.readString(Repository.path("deploy/experiment/base/checkpoint-rbac.yaml")))) {
      if (d.path("kind").asText().equals("ValidatingAdmissionPolicy")) {
        policy = d;
      }
    }
    assertThat(policy).isNotNull();
  }

  static Object eval(String expression, Map<String, Object> vars) throws Exception {
    var ast = COMPILER.compile(expression).getAst();
    return RUNTIME.createProgram(ast).eval(vars);
  }

  /** What the API server answers: the request matches and every validation holds. */
  static boolean allowed(
      Map<String, Object> request, Map<String, Object> old, Map<String, Object> now)
      throws Exception {
    Map<String, Object> vars = Map.of("request", request, "oldObject", old, "object", now);
    for (JsonNode c : policy.path("spec").path("matchConditions")) {
      if (!Boolean.TRUE.equals(eval(c.path("expression").asText(), vars))) {
        return true; // not the checkpointer: the policy does not apply
      }
    }
    for (JsonNode v : policy.path("spec").path("validations")) {
      if (!Boolean.TRUE.equals(eval(v.path("expression").asText(), vars))) {
        return false;
      }
    }
    return true;
  }

  static Map<String, Object> request(String user, String podOfToken) {
    Map<String, Object> extra = new HashMap<>();
    if (podOfToken != null) {
      extra.put("authentication.kubernetes.io/pod-name", List.of(podOfToken));
    }
    return Map.of("userInfo", Map.of("username", user, "extra", extra));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> pod(String name, String image, Map<String, String> annotations) {
    Map<String, Object> meta = new HashMap<>();
    meta.put("name", name);
    meta.put("labels", Map.of("app.kubernetes.io/name", name.replaceAll("-\\w+$", "")));
    if (annotations != null) {
      meta.put("annotations", new HashMap<>(annotations));
    }
    return Map.of(
        "metadata",
        meta,
        "spec",
        Map.of("containers", List.of(Map.of("name", "main", "image", image))));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> withLabel(Map<String, Object> pod, String k, String v) {
    Map<String, Object> meta = new HashMap<>((Map<String, Object>) pod.get("metadata"));
    Map<String, Object> labels = new HashMap<>((Map<String, Object>) meta.get("labels"));
    labels.put(k, v);
    meta.put("labels", labels);
    Map<String, Object> out = new HashMap<>(pod);
    out.put("metadata", meta);
    return out;
  }

  @Test
  void shouldLetABatchPodRecordItsOwnCheckpointAndNothingElse() throws Exception {
    Map<String, Object> before = pod("asr-batch-x7k2p", "asr:3.2", Map.of("a", "1"));
    Map<String, Object> checkpointed =
        pod(
            "asr-batch-x7k2p",
            "asr:3.2",
            Map.of("a", "1", "schedlens.io/last-checkpoint", "2026-12-01T08:00:00Z"));
    Map<String, Object> own = request(CHECKPOINTER, "asr-batch-x7k2p");

    assertThat(allowed(own, before, checkpointed)).as("its own checkpoint").isTrue();
    assertThat(
            allowed(
                own,
                pod("asr-batch-x7k2p", "asr:3.2", null),
                pod("asr-batch-x7k2p", "asr:3.2", Map.of("schedlens.io/last-checkpoint", "t"))))
        .as("the first checkpoint, on a pod without annotations")
        .isTrue();
    assertThat(
            allowed(
                request(CHECKPOINTER, "asr-batch-x7k2p"),
                pod("interactive-inference-abcde", "llm:2.4", null),
                pod(
                    "interactive-inference-abcde",
                    "llm:2.4",
                    Map.of("schedlens.io/last-checkpoint", "t"))))
        .as("another pod")
        .isFalse();
    assertThat(allowed(request(CHECKPOINTER, null), before, checkpointed))
        .as("a token bound to no pod")
        .isFalse();
    assertThat(allowed(own, before, pod("asr-batch-x7k2p", "evil:1", Map.of("a", "1"))))
        .as("its own image")
        .isFalse();
    assertThat(
            allowed(
                own, before, withLabel(before, "app.kubernetes.io/name", "interactive-inference")))
        .as("a label")
        .isFalse();
    assertThat(allowed(own, before, pod("asr-batch-x7k2p", "asr:3.2", Map.of("a", "2"))))
        .as("another annotation")
        .isFalse();
    assertThat(allowed(own, before, pod("asr-batch-x7k2p", "asr:3.2", Map.of())))
        .as("removing an annotation")
        .isFalse();
    // Anybody else is not this policy's business (RBAC decides).
    assertThat(
            allowed(
                request("system:serviceaccount:kube-system:deployment-controller", null),
                before,
                pod("asr-batch-x7k2p", "asr:3.3", null)))
        .isTrue();
  }
}
