package io.schedlens.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.schedlens.check.Finding.Severity;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CheckTest {

  static final Path BAD = Path.of("src/test/resources/bad/gpu-workloads.yaml");
  static final Path EXPERIMENT = Path.of("../deploy/experiment");

  @Test
  void shouldFindEveryMistakeOfTheBadManifests() throws Exception {
    List<Finding> findings =
        new PreflightCheck(CheckSettings.defaults())
            .check(Manifests.load(List.of(BAD.toString()), ""));
    assertThat(findings)
        .extracting(Finding::severity, Finding::rule, Finding::object)
        .containsExactlyInAnyOrder(
            tuple(Severity.ERROR, "gpu-limits", "Deployment ai-lab/chat"),
            tuple(Severity.ERROR, "priority-class", "Deployment ai-lab/chat"),
            tuple(Severity.ERROR, "readiness-probe", "Deployment ai-lab/chat"),
            tuple(Severity.ERROR, "disruption-budget", "PodDisruptionBudget ai-lab/chat"),
            tuple(Severity.WARNING, "gpu-request", "Deployment ai-lab/log-shipper"),
            tuple(Severity.WARNING, "disruption-budget", "PodDisruptionBudget ai-lab/embedder-api"),
            tuple(Severity.ERROR, "gpu-limits", "Job ai-lab/train"),
            tuple(Severity.WARNING, "priority-class", "Job ai-lab/train"),
            tuple(Severity.WARNING, "checkpoint", "Job ai-lab/train"),
            tuple(Severity.ERROR, "checkpoint", "Job ai-lab/embed"),
            tuple(Severity.WARNING, "checkpoint", "Job ai-lab/asr"),
            tuple(Severity.WARNING, "batch-preemption-policy", "PriorityClass embedding-batch"));
    Finding limits =
        findings.stream()
            .filter(f -> f.object().equals("Job ai-lab/train"))
            .findFirst()
            .orElseThrow();
    assertThat(limits.field()).isEqualTo("spec.template.spec.containers[trainer].resources");
    assertThat(limits.why()).contains("requests (2) differ from limits (1)");
    assertThat(limits.fix()).isNotBlank();
  }

  @Test
  void shouldAcceptAClassTheClusterAlreadyHas() throws Exception {
    List<Finding> findings =
        new PreflightCheck(
                CheckSettings.defaults().withExternalPriorityClasses(Set.of("interactive-x")))
            .check(Manifests.load(List.of(BAD.toString()), ""));
    assertThat(findings)
        .noneMatch(f -> f.rule().equals("priority-class") && f.severity() == Severity.ERROR);
  }

  @Test
  void shouldPassTheExperimentManifestsAndFailTheBadOnesWithExitCodes() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int good =
        CheckCommand.run(
            List.of(
                EXPERIMENT.resolve("base").toString(), EXPERIMENT.resolve("treatment").toString()),
            InputStream.nullInputStream(),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(good).as(out.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("0 errors");

    ByteArrayOutputStream out2 = new ByteArrayOutputStream();
    int bad =
        CheckCommand.run(
            List.of("-"),
            new ByteArrayInputStream(Files.readAllBytes(BAD)),
            new PrintStream(out2, true, StandardCharsets.UTF_8));
    assertThat(bad).isEqualTo(1);
    assertThat(out2.toString(StandardCharsets.UTF_8))
        .contains("ERROR [readiness-probe] Deployment ai-lab/chat")
        .contains("why: ")
        .contains("fix: ")
        .contains("6 errors, 6 warnings");
    assertThat(
            CheckCommand.run(
                List.of(),
                InputStream.nullInputStream(),
                new PrintStream(new ByteArrayOutputStream())))
        .isEqualTo(2);
  }

  @Test
  void shouldReadGoDurations() {
    assertThat(CheckpointRules.parseDuration("5m")).hasMinutes(5);
    assertThat(CheckpointRules.parseDuration("1h30m")).hasMinutes(90);
    assertThat(CheckpointRules.parseDuration("300s")).hasSeconds(300);
    assertThat(CheckpointRules.parseDuration("5 minutes")).isNull();
    assertThat(CheckpointRules.parseDuration("")).isNull();
  }

  @Test
  void shouldSelectPodsByTheLabelsTheirControllersAdd() throws Exception {
    String yaml =
        """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, namespace: ml}
        spec:
          replicas: 3
          selector: {matchLabels: {app: db}}
          template:
            metadata: {labels: {app: db}}
            spec:
              containers: [{name: db, image: db:1, readinessProbe: {exec: {command: [ready]}}}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: db-0, namespace: ml}
        spec:
          selector: {statefulset.kubernetes.io/pod-name: db-0}
          ports: [{port: 5432}]
        ---
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: db-primary, namespace: ml}
        spec:
          minAvailable: 1
          selector: {matchLabels: {statefulset.kubernetes.io/pod-name: db-0}}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {name: embed, namespace: ml}
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: w, image: w:1}]
        ---
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: embed, namespace: ml}
        spec:
          maxUnavailable: 0
          selector: {matchLabels: {batch.kubernetes.io/job-name: embed}}
        """;
    List<Manifest> manifests = new ArrayList<>();
    Manifests.parse(yaml, null, manifests);
    List<Finding> findings = new PreflightCheck(CheckSettings.defaults()).check(manifests);
    assertThat(findings)
        .extracting(Finding::severity, Finding::rule, Finding::object)
        .containsExactlyInAnyOrder(
            tuple(Severity.ERROR, "disruption-budget", "PodDisruptionBudget ml/db-primary"),
            tuple(Severity.ERROR, "disruption-budget", "PodDisruptionBudget ml/embed"));
    assertThat(findings.get(0).why() + findings.get(1).why())
        .contains("with 1 replica(s) of StatefulSet ml/db")
        .contains("with 1 replica(s) of Job ml/embed");
  }
}
