package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the chart's pods run, from values a platform team sets without forking the chart: a
 * PriorityClass (the tool that watches preemption may need one itself), labels and annotations (a
 * cost centre, a sidecar injector's switch), node selection, tolerations, affinity and spread.
 */
class ChartPlacementTest {

  @Test
  void shouldSpreadTheStreamsInstancesOverNodesAndZonesByDefault() throws IOException {
    PodSpec streams = streams(Manifests.chart("production")).getSpec();
    assertThat(streams.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone");
              assertThat(c.getWhenUnsatisfiable())
                  .as("a single-zone cluster still schedules them")
                  .isEqualTo("ScheduleAnyway");
              assertThat(c.getLabelSelector().getMatchLabels())
                  .containsEntry("app.kubernetes.io/name", "schedlens-streams");
            });
    assertThat(
            streams
                .getAffinity()
                .getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(
            t ->
                assertThat(t.getPodAffinityTerm().getTopologyKey())
                    .isEqualTo("kubernetes.io/hostname"));
    PodSpec collector = collector(Manifests.chart("production")).getSpec();
    assertThat(collector.getPriorityClassName()).isNull();
    assertThat(collector.getAffinity()).isNull();
    assertThat(collector.getTopologySpreadConstraints()).isEmpty();
  }

  @Test
  void shouldPlaceEachComponentsPodsAsItsValuesSay(@TempDir Path scratch) throws IOException {
    Chart.Install install =
        withValues(
            scratch,
            """
            collector:
              priorityClassName: platform-critical
              podLabels: {team: platform}
              podAnnotations: {cost-centre: "4711"}
              nodeSelector: {node-role.example.com/system: "true"}
              tolerations:
                - {key: dedicated, operator: Equal, value: system, effect: NoSchedule}
            streams:
              priorityClassName: platform-high
              podAnnotations: {sidecar.istio.io/inject: "false"}
              affinity:
                podAntiAffinity: null
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions:
                          - {key: kubernetes.io/arch, operator: In, values: [amd64]}
              topologySpreadConstraints: []
            export:
              priorityClassName: batch-low
              podLabels: {team: data}
              tolerations:
                - {key: spot, operator: Exists, effect: NoSchedule}
            """,
            "export-parquet");
    Manifests m = Manifests.render(install);

    PodTemplateSpec collector = collector(m);
    assertThat(collector.getSpec().getPriorityClassName()).isEqualTo("platform-critical");
    assertThat(collector.getMetadata().getLabels())
        .containsEntry("team", "platform")
        .containsEntry("app.kubernetes.io/name", "schedlens-collector");
    assertThat(collector.getMetadata().getAnnotations()).containsEntry("cost-centre", "4711");
    assertThat(collector.getSpec().getNodeSelector())
        .containsEntry("node-role.example.com/system", "true");
    assertThat(collector.getSpec().getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getValue()).isEqualTo("system"));

    PodTemplateSpec streams = streams(m);
    assertThat(streams.getSpec().getPriorityClassName()).isEqualTo("platform-high");
    assertThat(streams.getMetadata().getAnnotations())
        .containsEntry("sidecar.istio.io/inject", "false");
    assertThat(streams.getSpec().getAffinity().getPodAntiAffinity())
        .as("Helm merges maps: null removes the default's part")
        .isNull();
    assertThat(
            streams
                .getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .hasSize(1);
    assertThat(streams.getSpec().getTopologySpreadConstraints())
        .as("an empty list turns the spread off")
        .extracting(TopologySpreadConstraint::getTopologyKey)
        .isEmpty();

    PodTemplateSpec export =
        m.one(CronJob.class, "schedlens-export").getSpec().getJobTemplate().getSpec().getTemplate();
    ObjectMeta meta = export.getMetadata();
    assertThat(export.getSpec().getPriorityClassName()).isEqualTo("batch-low");
    assertThat(meta.getLabels())
        .containsEntry("team", "data")
        .containsEntry("app.kubernetes.io/name", "schedlens-export");
    assertThat(export.getSpec().getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getKey()).isEqualTo("spot"));
  }

  /**
   * Where the platform assigns users (OpenShift's restricted SCC), the security contexts are given
   * without runAsUser, runAsGroup and fsGroup and replace the chart's whole; the pod still passes
   * the restricted Pod Security Standard. Extra volumes and mounts come after the chart's own.
   */
  @Test
  void shouldTakeSecurityContextsAndExtraVolumesFromValues(@TempDir Path scratch)
      throws IOException {
    Chart.Install install =
        withValues(
            scratch,
            """
            collector:
              podSecurityContext:
                runAsNonRoot: true
                seccompProfile: {type: RuntimeDefault}
              extraVolumes:
                - name: corp-ca
                  configMap: {name: corp-ca-bundle}
              extraVolumeMounts:
                - {name: corp-ca, mountPath: /etc/pki/corp, readOnly: true}
            """);
    Manifests m = Manifests.render(install);
    PodSpec collector = collector(m).getSpec();
    assertThat(collector.getSecurityContext().getRunAsUser()).isNull();
    assertThat(collector.getSecurityContext().getFsGroup()).isNull();
    assertThat(collector.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(collector.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
        .as("the container's context is still the chart's")
        .isTrue();
    assertThat(PodSecurityStandard.restrictedViolations(collector)).isEmpty();
    assertThat(collector.getVolumes())
        .last()
        .satisfies(v -> assertThat(v.getName()).isEqualTo("corp-ca"));
    assertThat(collector.getContainers().get(0).getVolumeMounts())
        .last()
        .satisfies(v -> assertThat(v.getMountPath()).isEqualTo("/etc/pki/corp"));
    PodSpec streams = streams(m).getSpec();
    assertThat(streams.getSecurityContext().getRunAsUser())
        .as("the streams app keeps the chart's")
        .isEqualTo(65532L);
  }

  /**
   * A large store restores for longer than ten minutes: the startup probe's patience is a value.
   */
  @Test
  void shouldTakeProbeTimingsFromValues() throws IOException {
    PodSpec defaults = streams(Manifests.chart("production")).getSpec();
    assertThat(defaults.getContainers().get(0).getStartupProbe().getFailureThreshold())
        .isEqualTo(120);
    assertThat(defaults.getContainers().get(0).getStartupProbe().getHttpGet().getPath())
        .isEqualTo("/healthz");
    PodSpec patient =
        streams(
                Manifests.render(
                    Chart.Install.of("production")
                        .with("streams.probes.startup.failureThreshold", "360")
                        .with("streams.probes.readiness.timeoutSeconds", "3")))
            .getSpec();
    assertThat(patient.getContainers().get(0).getStartupProbe().getFailureThreshold())
        .isEqualTo(360);
    assertThat(patient.getContainers().get(0).getStartupProbe().getPeriodSeconds()).isEqualTo(5);
    assertThat(patient.getContainers().get(0).getReadinessProbe().getTimeoutSeconds()).isEqualTo(3);
    PodSpec collector = collector(Manifests.chart("production")).getSpec();
    assertThat(collector.getContainers().get(0).getLivenessProbe().getInitialDelaySeconds())
        .isEqualTo(30);
  }

  /**
   * The brokers placed as the platform places its stateful systems: racks from the nodes' zone
   * label (a partition's replicas in different zones), a PriorityClass, tolerations; the objects
   * still bind to Strimzi's v1 model.
   */
  @Test
  void shouldPlaceTheKafkaBrokersWithRacks(@TempDir Path scratch) throws IOException {
    Chart.Install install =
        withValues(
            scratch,
            """
            kafka:
              strimzi:
                rack: {topologyKey: topology.kubernetes.io/zone}
                priorityClassName: platform-high
                tolerations:
                  - {key: dedicated, operator: Equal, value: kafka, effect: NoSchedule}
            """);
    List<JsonNode> docs = Manifests.documents(Chart.template(install));
    JsonNode kafka = kind(docs, "Kafka");
    assertThat(kafka.at("/spec/kafka/rack/topologyKey").asText())
        .isEqualTo("topology.kubernetes.io/zone");
    JsonNode pool = kind(docs, "KafkaNodePool");
    assertThat(pool.at("/spec/template/pod/priorityClassName").asText()).isEqualTo("platform-high");
    assertThat(pool.at("/spec/template/pod/tolerations/0/value").asText()).isEqualTo("kafka");
    for (JsonNode d : List.of(kafka, pool)) {
      assertThat(ChartSchemas.strimzi(d.path("apiVersion").asText(), d.path("kind").asText(), d))
          .isEmpty();
    }
    JsonNode plain =
        kind(Manifests.documents(Chart.template(Chart.Install.of("production"))), "Kafka");
    assertThat(plain.at("/spec/kafka/rack").isMissingNode()).as("no racks by default").isTrue();
  }

  private static JsonNode kind(List<JsonNode> docs, String kind) {
    return docs.stream()
        .filter(d -> d.path("kind").asText().equals(kind))
        .findFirst()
        .orElseThrow();
  }

  /**
   * Workload identity: the collector runs as an existing ServiceAccount the platform's IAM binds,
   * which the chart's RBAC then binds; the streams app's carries the cloud's annotation.
   */
  @Test
  void shouldRunAsTheServiceAccountsTheValuesName(@TempDir Path scratch) throws IOException {
    Chart.Install install =
        withValues(
            scratch,
            """
            collector:
              serviceAccount: {create: false, name: gpu-observer}
            streams:
              serviceAccount:
                annotations: {iam.gke.io/gcp-service-account: schedlens@example.iam.gserviceaccount.com}
            """);
    Manifests m = Manifests.render(install);
    assertThat(collector(m).getSpec().getServiceAccountName()).isEqualTo("gpu-observer");
    assertThat(m.all(ServiceAccount.class))
        .extracting(a -> a.getMetadata().getName())
        .containsExactly("schedlens-streams");
    assertThat(m.all(ClusterRoleBinding.class))
        .isNotEmpty()
        .allSatisfy(
            b ->
                assertThat(b.getSubjects())
                    .extracting(Subject::getName)
                    .containsExactly("gpu-observer"));
    assertThat(m.all(RoleBinding.class))
        .filteredOn(b -> b.getMetadata().getName().startsWith("schedlens-collector"))
        .isNotEmpty()
        .allSatisfy(
            b ->
                assertThat(b.getSubjects())
                    .extracting(Subject::getName)
                    .containsExactly("gpu-observer"));
    assertThat(m.one(ServiceAccount.class, "schedlens-streams").getMetadata().getAnnotations())
        .containsKey("iam.gke.io/gcp-service-account");
    assertThat(streams(m).getSpec().getServiceAccountName()).isEqualTo("schedlens-streams");

    PodSpec export =
        Manifests.render(
                Chart.Install.of("production", "export-parquet")
                    .with("export.serviceAccount.create", "true")
                    .with(
                        "export.serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn",
                        "arn:aws:iam::1:role/x"))
            .one(CronJob.class, "schedlens-export")
            .getSpec()
            .getJobTemplate()
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(export.getServiceAccountName()).isEqualTo("schedlens-export");
    assertThat(export.getAutomountServiceAccountToken()).isFalse();
    assertThat(
            Manifests.chart("production", "export-parquet")
                .one(CronJob.class, "schedlens-export")
                .getSpec()
                .getJobTemplate()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getServiceAccountName())
        .as("the namespace's default unless asked")
        .isNull();
  }

  /**
   * The production example with {@code yaml} as one more values file, written to {@code scratch}.
   */
  private static Chart.Install withValues(Path scratch, String yaml, String... more)
      throws IOException {
    Path values = Files.writeString(Files.createTempFile(scratch, "values-", ".yaml"), yaml);
    List<Path> files = new ArrayList<>();
    files.add(Chart.example("production"));
    for (String e : more) {
      files.add(Chart.example(e));
    }
    files.add(values);
    return new Chart.Install("schedlens", "schedlens", files, Map.of());
  }

  private static PodTemplateSpec collector(Manifests m) {
    return m.one(Deployment.class, "schedlens-collector").getSpec().getTemplate();
  }

  private static PodTemplateSpec streams(Manifests m) {
    return m.one(StatefulSet.class, "schedlens-streams").getSpec().getTemplate();
  }
}
