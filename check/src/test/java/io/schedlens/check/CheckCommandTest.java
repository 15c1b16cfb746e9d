package io.schedlens.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command as CI runs it: formats, exit codes, lines. */
class CheckCommandTest {

  static final Path BAD = Path.of("src/test/resources/bad/gpu-workloads.yaml");
  static final Path FORGOT_GPU = Path.of("src/test/resources/bad/inference-without-gpu.yaml");
  static final Path EXPERIMENT = Path.of("../deploy/experiment");
  static final ObjectMapper JSON = new ObjectMapper();

  record Run(int exit, String out, String err) {}

  static Run run(String... args) throws Exception {
    return run(InputStream.nullInputStream(), args);
  }

  static Run run(InputStream stdin, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        CheckCommand.run(
            List.of(args),
            stdin,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The 1-based line of the first line of the file containing the text. */
  static int lineOf(Path file, String text) throws Exception {
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " not in " + file);
  }

  @Test
  void shouldFailAGpuServiceThatForgotItsGpuRequestOnEveryFaultItCarries() throws Exception {
    Run r = run("--output", "json", FORGOT_GPU.toString());
    assertThat(r.exit()).isEqualTo(CheckCommand.FOUND);
    JsonNode report = JSON.readTree(r.out());
    assertThat(report.path("findings"))
        .extracting(
            f -> f.path("severity").asText(),
            f -> f.path("rule").asText(),
            f -> f.path("object").asText())
        .containsExactlyInAnyOrder(
            tuple("error", "gpu-request", "Deployment ai-lab/chat"),
            tuple("error", "priority-class", "Deployment ai-lab/chat"),
            tuple("error", "readiness-probe", "Deployment ai-lab/chat"),
            tuple("error", "disruption-budget", "PodDisruptionBudget ai-lab/chat"),
            tuple("warning", "selector-matches-nothing", "Service ai-lab/chat-metrics"));
    JsonNode request =
        report.path("findings").findParents("rule").stream()
            .filter(f -> f.path("rule").asText().equals("gpu-request"))
            .findFirst()
            .orElseThrow();
    assertThat(request.path("why").asText())
        .contains("selects GPU nodes")
        .contains("requests no GPU");
    assertThat(request.path("file").asText()).isEqualTo(FORGOT_GPU.toString());
    assertThat(request.path("line").asInt()).isEqualTo(lineOf(FORGOT_GPU, "resources:"));
    assertThat(request.path("doc").asText()).isEqualTo("docs/operators/check-rules.md#gpu-request");
    assertThat(r.err()).contains("4 errors, 1 warnings");
  }

  @Test
  void shouldWriteSarifThatValidatesAgainstTheSarifSchemaWithTheManifestLines() throws Exception {
    Run r = run("--output", "sarif", BAD.toString());
    assertThat(r.exit()).isEqualTo(CheckCommand.FOUND);
    JsonNode sarif = JSON.readTree(r.out());

    Schema schema;
    try (InputStream in = getClass().getResourceAsStream("/sarif/sarif-2.1.0-rtm.5.json")) {
      schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4).getSchema(in);
    }
    List<Error> errors = schema.validate(sarif);
    assertThat(errors).as(r.out()).isEmpty();

    // The validator is not lenient: a result without its required message is refused.
    JsonNode broken = sarif.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            broken.path("runs").get(0).path("results").get(0))
        .remove("message");
    assertThat(schema.validate(broken)).isNotEmpty();

    JsonNode results = sarif.path("runs").get(0).path("results");
    assertThat(results).hasSize(12);
    JsonNode rules = sarif.path("runs").get(0).path("tool").path("driver").path("rules");
    assertThat(rules).hasSize(Rule.values().length);
    JsonNode priority =
        results.findParents("ruleId").stream()
            .filter(
                x ->
                    x.path("ruleId").asText().equals("priority-class")
                        && x.path("level").asText().equals("error"))
            .findFirst()
            .orElseThrow();
    assertThat(rules.get(priority.path("ruleIndex").asInt()).path("id").asText())
        .isEqualTo("priority-class");
    JsonNode physical = priority.path("locations").get(0).path("physicalLocation");
    assertThat(physical.path("artifactLocation").path("uri").asText())
        .isEqualTo("src/test/resources/bad/gpu-workloads.yaml");
    assertThat(physical.path("region").path("startLine").asInt())
        .isEqualTo(lineOf(BAD, "priorityClassName: interactive-x"));
    assertThat(priority.path("message").path("text").asText())
        .contains("interactive-x")
        .contains("Fix:");
  }

  @Test
  void shouldLocateFindingsReadFromStandardInputByLineToo() throws Exception {
    Run r = run(new ByteArrayInputStream(Files.readAllBytes(BAD)), "--output", "json", "-");
    JsonNode grace =
        JSON.readTree(r.out()).path("findings").findParents("rule").stream()
            .filter(f -> f.path("object").asText().equals("Job ai-lab/asr"))
            .findFirst()
            .orElseThrow();
    assertThat(grace.has("file")).isFalse();
    assertThat(grace.path("line").asInt())
        .isEqualTo(lineOf(BAD, "terminationGracePeriodSeconds: 600"));
    Run sarif = run(new ByteArrayInputStream(Files.readAllBytes(BAD)), "--output", "sarif", "-");
    JsonNode location =
        JSON.readTree(sarif.out())
            .path("runs")
            .get(0)
            .path("results")
            .get(0)
            .path("locations")
            .get(0);
    assertThat(location.has("physicalLocation")).isFalse();
    assertThat(location.path("logicalLocations").get(0).path("fullyQualifiedName").asText())
        .isNotBlank();
  }

  @Test
  void shouldFailOnWarningsOnlyWhenAskedTo() throws Exception {
    String base = EXPERIMENT.resolve("base").toString();
    String treatment = EXPERIMENT.resolve("treatment").toString();
    Run plain = run(base, treatment);
    assertThat(plain.exit()).as(plain.out()).isEqualTo(CheckCommand.PASSED);
    assertThat(plain.out()).contains("0 errors, 1 warnings");
    assertThat(run("--fail-on", "warning", base, treatment).exit()).isEqualTo(CheckCommand.FOUND);
    assertThat(run("--fail-on=warning", base, treatment).exit()).isEqualTo(CheckCommand.FOUND);
    String clean =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: ml}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers: [{name: web, image: web:1}]
        """;
    Run none =
        run(
            new ByteArrayInputStream(clean.getBytes(StandardCharsets.UTF_8)),
            "--fail-on",
            "warning",
            "-");
    assertThat(none.exit()).as(none.out()).isEqualTo(CheckCommand.PASSED);
  }

  @Test
  void shouldSayWhatIsWrongWithTheUsage() throws Exception {
    Run format = run("--output", "xml", BAD.toString());
    assertThat(format.exit()).isEqualTo(CheckCommand.USAGE);
    assertThat(format.err()).contains("--output must be text, json or sarif, not 'xml'");
    Run missing = run("no/such/dir");
    assertThat(missing.exit()).isEqualTo(CheckCommand.USAGE);
    assertThat(missing.err()).contains("no such file or folder: no/such/dir");
    assertThat(run().exit()).isEqualTo(CheckCommand.USAGE);
    assertThat(run("--fail-on", "info", BAD.toString()).exit()).isEqualTo(CheckCommand.USAGE);
    Run broken =
        run(new ByteArrayInputStream("a: [1, 2\nb: c".getBytes(StandardCharsets.UTF_8)), "-");
    assertThat(broken.exit()).isEqualTo(CheckCommand.USAGE);
    assertThat(broken.err()).contains("standard input is not valid YAML or JSON");
    assertThat(run("--help").out()).contains("--output text|json|sarif").contains("Exit 0");
  }

  @Test
  void shouldMapGpuResourcesAndNodeLabelsAsConfigured() throws Exception {
    String yaml =
        """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: tpu-like, namespace: ml}
        spec:
          template:
            spec:
              restartPolicy: Never
              nodeSelector: {example.com/accelerator: x1}
              containers:
                - {name: w, image: w:1, resources: {requests: {example.com/accel: 1}}}
        """;
    Run defaults = run(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "-");
    assertThat(defaults.out()).contains("0 errors, 0 warnings");
    Run configured =
        run(
            new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)),
            "--gpu-resources",
            "example.com/accel",
            "--gpu-node-labels",
            "example.com/accelerator",
            "-");
    assertThat(configured.exit()).isEqualTo(CheckCommand.FOUND);
    assertThat(configured.out())
        .contains("ERROR [gpu-limits] Job ml/tpu-like")
        .contains("example.com/accel is requested without a limit")
        .contains("WARNING [checkpoint] Job ml/tpu-like");
  }
}
