package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Helm chart, as Helm renders it: it lints, every rendered object validates against the
 * versions the chart claims (Kubernetes 1.30 through fabric8's model, Strimzi v1 through Strimzi's
 * model, the Prometheus Operator's CRD schemas), every pod passes the restricted Pod Security
 * Standard, and the values do what docs/operators/install.md says they do.
 */
class ChartTest {

  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  /**
   * The defaults, each documented example (as into a cluster with the Prometheus Operator), and the
   * TLS modes a cluster can have.
   */
  static Stream<Arguments> installs() {
    List<Arguments> all = new ArrayList<>();
    all.add(Arguments.of(Chart.Install.of()));
    all.add(Arguments.of(Chart.Install.of().withPrometheusOperator()));
    for (String e : Chart.examples()) {
      all.add(Arguments.of(Chart.Install.of(e).withPrometheusOperator()));
    }
    all.add(Arguments.of(Chart.Install.of("production").with("tls.mode", "cert-manager")));
    all.add(
        Arguments.of(
            Chart.Install.of("small")
                .with("tls.mode", "secret")
                .with("tls.secretName", "my-tls")
                .with("pagesIngress.enabled", "true")));
    return all.stream();
  }

  static Stream<String> lintedValues() {
    List<String> all = new ArrayList<>();
    all.add(null);
    all.addAll(Chart.examples());
    return all.stream();
  }

  /**
   * values.schema.json: Helm itself refuses a key the chart does not know (a typo would otherwise
   * install silently with the defaults), a value outside its choices and one of the wrong type.
   */
  @Test
  void shouldRefuseATypoAWrongChoiceAndAWrongTypeThroughTheValuesSchema(@TempDir Path scratch)
      throws IOException {
    Path typo = scratch.resolve("typo.yaml");
    Files.writeString(typo, "stream:\n  replicas: 5\n");
    assertThatThrownBy(
            () ->
                Chart.template(
                    new Chart.Install("schedlens", "schedlens", List.of(typo), Map.of())))
        .hasMessageContaining("schema")
        .hasMessageContaining("stream");
    Path nested = scratch.resolve("nested.yaml");
    Files.writeString(nested, "streams:\n  replica: 5\n");
    assertThatThrownBy(
            () ->
                Chart.template(
                    new Chart.Install("schedlens", "schedlens", List.of(nested), Map.of())))
        .hasMessageContaining("replica");
    assertThatThrownBy(() -> Chart.template(Chart.Install.of().with("tls.mode", "automatic")))
        .hasMessageContaining("schema")
        .hasMessageContaining("tls");
    assertThatThrownBy(() -> Chart.template(Chart.Install.of().with("export.format", "csv")))
        .hasMessageContaining("format");
    assertThatThrownBy(() -> Chart.template(Chart.Install.of().with("streams.replicas", "three")))
        .hasMessageContaining("replicas");
    assertThatThrownBy(
            () ->
                Chart.template(
                    Chart.Install.of().with("collector.ownerKinds[0]", "jobsets.jobset.x-k8s.io")))
        .hasMessageContaining("ownerKinds");
  }

  @ParameterizedTest(name = "values: {0}")
  @MethodSource("lintedValues")
  void shouldLintStrictly(String example, @TempDir Path scratch) throws IOException {
    LintResult lint = Chart.lint(example, scratch);
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    assertThat(lint.getMessages())
        .as("no warnings either")
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }

  @Test
  void shouldDocumentEveryExampleThatItRenders() {
    assertThat(Chart.examples())
        .contains("small", "production", "external-kafka", "pages-ingress", "export-parquet");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("installs")
  void shouldRenderObjectsThatValidateAndPassTheRestrictedStandard(Chart.Install install)
      throws IOException {
    Manifests m = Manifests.render(install);
    assertThat(m.objects).isNotEmpty();
    Map<String, PodSpec> pods = podSpecs(m);
    assertThat(pods)
        .containsKeys("Deployment/schedlens-collector", "StatefulSet/schedlens-streams");
    pods.forEach(
        (what, spec) ->
            assertThat(PodSecurityStandard.restrictedViolations(spec))
                .as(install + ": " + what + " under the restricted Pod Security Standard")
                .isEmpty());
    for (HasMetadata o : m.objects) {
      assertThat(o.getMetadata().getLabels())
          .as(o.getKind() + "/" + o.getMetadata().getName() + " is labelled as part of schedlens")
          .containsEntry("app.kubernetes.io/part-of", "schedlens")
          .containsKey("helm.sh/chart");
    }
  }

  /**
   * Every pod the install makes: the workloads' templates, and the pods Strimzi makes from the
   * Kafka custom resources (brokers, entity operator, Kafka exporter), built from their templates
   * as Strimzi does: the template's security contexts and Strimzi's volume types (PVC, ConfigMap,
   * Secret, emptyDir).
   */
  static Map<String, PodSpec> podSpecs(Manifests m) {
    Map<String, PodSpec> pods = new HashMap<>();
    m.all(Deployment.class)
        .forEach(d -> pods.put("Deployment/" + name(d), d.getSpec().getTemplate().getSpec()));
    m.all(StatefulSet.class)
        .forEach(d -> pods.put("StatefulSet/" + name(d), d.getSpec().getTemplate().getSpec()));
    m.all(CronJob.class)
        .forEach(
            d ->
                pods.put(
                    "CronJob/" + name(d),
                    d.getSpec().getJobTemplate().getSpec().getTemplate().getSpec()));
    for (GenericKubernetesResource pool : m.custom("KafkaNodePool")) {
      JsonNode t = Manifests.tree(pool).path("spec").path("template");
      pods.put(
          "KafkaNodePool/" + name(pool) + " (broker pods)",
          strimziPod(t.path("pod"), Map.of("kafka", t.path("kafkaContainer"))));
    }
    for (GenericKubernetesResource kafka : m.custom("Kafka")) {
      JsonNode spec = Manifests.tree(kafka).path("spec");
      JsonNode eo = spec.path("entityOperator").path("template");
      pods.put(
          "Kafka/" + name(kafka) + " (entity operator)",
          strimziPod(
              eo.path("pod"),
              Map.of(
                  "topic-operator", eo.path("topicOperatorContainer"),
                  "user-operator", eo.path("userOperatorContainer"))));
      if (spec.has("kafkaExporter")) {
        JsonNode ke = spec.path("kafkaExporter").path("template");
        pods.put(
            "Kafka/" + name(kafka) + " (Kafka exporter)",
            strimziPod(ke.path("pod"), Map.of("kafka-exporter", ke.path("container"))));
      }
    }
    return pods;
  }

  private static PodSpec strimziPod(JsonNode pod, Map<String, JsonNode> containers) {
    PodSpecBuilder b = new PodSpecBuilder();
    if (pod.has("securityContext")) {
      b.withSecurityContext(
          KUBE.unmarshal(pod.path("securityContext").toString(), PodSecurityContext.class));
    }
    containers.forEach(
        (name, c) ->
            b.addToContainers(
                new ContainerBuilder()
                    .withName(name)
                    .withSecurityContext(
                        c.has("securityContext")
                            ? KUBE.unmarshal(
                                c.path("securityContext").toString(), SecurityContext.class)
                            : null)
                    .build()));
    return b.addNewVolume()
        .withName("data")
        .withNewPersistentVolumeClaim("data", false)
        .endVolume()
        .addNewVolume()
        .withName("config")
        .withNewConfigMap()
        .withName("config")
        .endConfigMap()
        .endVolume()
        .addNewVolume()
        .withName("certs")
        .withNewSecret()
        .withSecretName("certs")
        .endSecret()
        .endVolume()
        .addNewVolume()
        .withName("tmp")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .build();
  }

  private static String name(HasMetadata o) {
    return o.getMetadata().getName();
  }

  static List<Container> schedlensContainers(Manifests m) {
    List<Container> all = new ArrayList<>();
    podSpecs(m).values().stream()
        .flatMap(p -> p.getContainers().stream())
        .filter(c -> c.getImage() != null && c.getImage().startsWith("ghcr.io/schedlens/schedlens"))
        .forEach(all::add);
    return all;
  }

  @Test
  void shouldShipOneVersionForChartImageAndBuild() throws IOException {
    JsonNode chart = Manifests.YAML.readTree(Chart.dir().resolve("Chart.yaml").toFile());
    String version = chart.path("version").asText();
    assertThat(chart.path("appVersion").asText()).isEqualTo(version);
    assertThat(version).doesNotContain("SNAPSHOT").matches("\\d+\\.\\d+\\.\\d+");
    Matcher pom =
        Pattern.compile("<artifactId>schedlens-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Repository.path("pom.xml")));
    assertThat(pom.find()).isTrue();
    assertThat(pom.group(1)).as("the Maven project version, the image's tag").isEqualTo(version);
    assertThat(Files.readString(Repository.path("CHANGELOG.md")))
        .as("CHANGELOG.md says what changed for an operator in " + version)
        .contains("## " + version);
    for (Container c : schedlensContainers(Manifests.chart())) {
      assertThat(c.getImage()).isEqualTo("ghcr.io/schedlens/schedlens:" + version);
    }
    for (Container c :
        schedlensContainers(
            Manifests.render(
                Chart.Install.of().with("image.digest", "sha256:" + "a".repeat(64))))) {
      assertThat(c.getImage()).isEqualTo("ghcr.io/schedlens/schedlens@sha256:" + "a".repeat(64));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("installs")
  void shouldKeepTheImagesJvmOptionsAndAddTheHeap(Chart.Install install) throws IOException {
    for (Container c : schedlensContainers(Manifests.render(install))) {
      // A variable set on the container replaces the image's: the chart repeats what matters.
      assertThat(Manifests.env(c).get("JAVA_TOOL_OPTIONS"))
          .as(install + " " + c.getName())
          .contains("-XX:+ExitOnOutOfMemoryError")
          .containsPattern("-Xmx\\d+[mg]");
      assertThat(c.getCommand()).as(c.getName() + " keeps the image's entrypoint").isNullOrEmpty();
    }
  }

  @Test
  void shouldFindTheGpuOperatorsAndTheChartsExporterWithTheDefaults() throws IOException {
    Manifests m = Manifests.chart();
    Container c = m.container("schedlens-collector");
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : c.getEnv()) {
      // The token's file is mounted in the pod, not here: the test gives the token itself.
      if (e.getName().startsWith("SCHEDLENS_")
          && e.getValue() != null
          && !e.getName().endsWith("_FILE")) {
        env.put(e.getName(), e.getValue());
      }
    }
    // The collector reads the rendered settings as it would in the pod.
    CollectorConfig config =
        CollectorConfig.from(
            CommandLineSettings.load(
                CollectorConfig.DEF, List.of("--intake-token", "t".repeat(32)), env));
    assertThat(config.dcgmServiceSelectors())
        .contains("app=nvidia-dcgm-exporter", "app.kubernetes.io/name=dcgm-exporter");
    assertThat(config.getList(CollectorConfig.DCGM_PORT_NAME)).contains("gpu-metrics", "metrics");
    assertThat(config.getList(CollectorConfig.DCGM_NAMESPACES)).containsExactly("gpu-operator");
    Role discovery = m.one(Role.class, "schedlens-collector-dcgm-discovery");
    assertThat(discovery.getMetadata().getNamespace()).isEqualTo("gpu-operator");
    assertThat(discovery.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("endpointslices");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
            });
  }

  @Test
  void shouldShipTheDashboardsAsConfigMapsForKubePrometheusStacksGrafana() throws IOException {
    Manifests m = Manifests.chart();
    try (Stream<Path> files = Files.list(Repository.path("grafana/dashboards"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        String file = f.getFileName().toString();
        ConfigMap cm = m.one(ConfigMap.class, "schedlens-dashboard-" + file.replace(".json", ""));
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        // unchanged but for the API link's default: the pages' address (a port-forward here)
        assertThat(Manifests.YAML.readTree(cm.getData().get(file)))
            .as(file + " unchanged")
            .isEqualTo(
                Manifests.YAML.readTree(
                    Files.readString(f)
                        .replace(
                            "\"http://schedlens-streams.schedlens:9471\"",
                            "\"http://localhost:9471\"")));
      }
    }
    assertThat(
            m.one(ConfigMap.class, "schedlens-dashboard-pipeline-health")
                .getMetadata()
                .getAnnotations())
        .containsEntry("grafana_folder", "schedlens");
    ConfigMap moved =
        Manifests.render(
                Chart.Install.of()
                    .with("dashboards.namespace", "monitoring")
                    .with("dashboards.annotations.grafana_folder", "null")
                    .with(
                        "dashboards.annotations.k8s-sidecar-target-directory",
                        "/tmp/dashboards/gpu"))
            .one(ConfigMap.class, "schedlens-dashboard-pipeline-health");
    assertThat(moved.getMetadata().getNamespace()).isEqualTo("monitoring");
    assertThat(moved.getMetadata().getAnnotations())
        .as("the folder under the key the sidecar reads")
        .containsExactly(Map.entry("k8s-sidecar-target-directory", "/tmp/dashboards/gpu"));
  }

  /**
   * The dashboards' data links open where a browser reaches the pages: the pages Ingress's host, a
   * port-forward (https when TLS is on), or the values' addresses.
   */
  @Test
  void shouldPointTheDashboardsLinksWhereABrowserReachesThePages() throws IOException {
    assertThat(links(Chart.Install.of()))
        .containsExactly("http://localhost:9471", "http://localhost:9471");
    assertThat(links(Chart.Install.of().with("tls.mode", "cert-manager")))
        .containsExactly("https://localhost:9471", "https://localhost:9471");
    assertThat(links(Chart.Install.of("small", "pages-ingress")))
        .containsExactly("https://schedlens.example.com", "https://schedlens.example.com");
    assertThat(
            links(
                Chart.Install.of("pages-ingress")
                    .with("dashboards.pagesUrl", "https://gpu.example.org/schedlens")
                    .with("dashboards.apiUrl", "https://proxy.example.org/schedlens")))
        .containsExactly(
            "https://proxy.example.org/schedlens", "https://gpu.example.org/schedlens");
  }

  /**
   * The pipeline dashboard's Kafka panels show this release's Strimzi cluster: its hidden
   * kafka_cluster variable is the chart's clusterName, matched by the label the PodMonitor copies
   * from the brokers' pods; nothing else of the dashboard changes.
   */
  @Test
  void shouldScopeTheKafkaPanelsToTheReleasesCluster() throws IOException {
    Manifests m =
        Manifests.render(
            Chart.Install.of()
                .withPrometheusOperator()
                .with("kafka.strimzi.clusterName", "gpu-kafka"));
    JsonNode board =
        Manifests.YAML.readTree(
            m.one(ConfigMap.class, "schedlens-dashboard-pipeline-health")
                .getData()
                .get("pipeline-health.json"));
    JsonNode file =
        Manifests.YAML.readTree(
            Files.readString(Repository.path("grafana/dashboards/pipeline-health.json"))
                .replace(
                    "\"http://schedlens-streams.schedlens:9471\"", "\"http://localhost:9471\""));
    for (JsonNode v : file.path("templating").path("list")) {
      if (v.path("name").asText().equals("kafka_cluster")) {
        ((ObjectNode) v).put("query", "gpu-kafka");
        ((ObjectNode) v.path("current")).put("text", "gpu-kafka").put("value", "gpu-kafka");
      }
    }
    assertThat(board).isEqualTo(file);
    assertThat(board.toString()).contains("strimzi_io_cluster=\\\"$kafka_cluster\\\"");
    GenericKubernetesResource monitor = m.custom("PodMonitor").get(0);
    assertThat(KUBE.asJson(monitor))
        .contains("__meta_kubernetes_pod_label_strimzi_io_cluster")
        .contains("\"targetLabel\":\"strimzi_io_cluster\"");
  }

  /**
   * Every dashboard has the cluster variable kube-prometheus-stack's have: hidden by default, shown
   * with dashboards.multicluster, and matched by every panel query.
   */
  @Test
  void shouldGiveEveryDashboardTheClusterVariable() throws IOException {
    for (String multicluster : List.of("false", "true")) {
      Manifests m =
          Manifests.render(Chart.Install.of().with("dashboards.multicluster", multicluster));
      for (String name : List.of("gpu-priority-preemption", "experiment", "pipeline-health")) {
        JsonNode board =
            Manifests.YAML.readTree(
                m.one(ConfigMap.class, "schedlens-dashboard-" + name)
                    .getData()
                    .get(name + ".json"));
        List<JsonNode> cluster = new ArrayList<>();
        board
            .path("templating")
            .path("list")
            .forEach(
                v -> {
                  if (v.path("name").asText().equals("cluster")) {
                    cluster.add(v);
                  }
                });
        assertThat(cluster).as(name).hasSize(1);
        assertThat(cluster.get(0).path("hide").asInt())
            .as(name + " with multicluster " + multicluster)
            .isEqualTo(multicluster.equals("true") ? 0 : 2);
        for (Dashboards.Query q : Dashboards.queries(board)) {
          assertThat(q.expr()).as(q.toString()).contains("cluster=\"$cluster\"");
        }
      }
    }
  }

  /** The on-call dashboard's api_url and schedlens_url: their query, current text and value. */
  private static List<String> links(Chart.Install install) throws IOException {
    ConfigMap cm =
        Manifests.render(install)
            .one(ConfigMap.class, "schedlens-dashboard-gpu-priority-preemption");
    JsonNode board = Manifests.YAML.readTree(cm.getData().get("gpu-priority-preemption.json"));
    List<String> out = new ArrayList<>();
    for (String name : List.of("api_url", "schedlens_url")) {
      JsonNode v = null;
      for (JsonNode x : board.path("templating").path("list")) {
        if (x.path("name").asText().equals(name)) {
          v = x;
        }
      }
      assertThat(v).as(name).isNotNull();
      String query = v.path("query").asText();
      assertThat(v.path("current").path("text").asText()).as(name).isEqualTo(query);
      assertThat(v.path("current").path("value").asText()).as(name).isEqualTo(query);
      out.add(query);
    }
    return out;
  }

  @Test
  void shouldSpellThePrometheusReleaseLabelOnce() throws IOException {
    Manifests m =
        Manifests.render(
            Chart.Install.of().withPrometheusOperator().with("prometheusRelease", "prom"));
    List<GenericKubernetesResource> monitoring = new ArrayList<>();
    for (String kind : List.of("ServiceMonitor", "PodMonitor", "PrometheusRule")) {
      monitoring.addAll(m.custom(kind));
    }
    assertThat(monitoring).hasSize(4);
    assertThat(monitoring)
        .allSatisfy(o -> assertThat(o.getMetadata().getLabels()).containsEntry("release", "prom"));
  }

  @Test
  void shouldServeTheIntakeAndApiOverTlsFromCertManager() throws IOException {
    Manifests m = Manifests.render(Chart.Install.of().with("tls.mode", "cert-manager"));
    GenericKubernetesResource cert =
        m.custom("Certificate").stream()
            .filter(c -> name(c).equals("schedlens-tls"))
            .findFirst()
            .orElseThrow();
    JsonNode spec = Manifests.tree(cert).path("spec");
    List<String> names = new ArrayList<>();
    spec.path("dnsNames").forEach(n -> names.add(n.asText()));
    assertThat(names)
        .contains(
            "schedlens-collector.schedlens.svc",
            "schedlens-streams.schedlens.svc",
            "*.schedlens-streams-headless.schedlens.svc");
    assertThat(spec.path("privateKey").path("encoding").asText()).isEqualTo("PKCS8");
    // No issuer given: the chart bootstraps its own CA, and the serving certificate comes from it.
    assertThat(spec.path("issuerRef").path("name").asText()).isEqualTo("schedlens-ca");
    assertThat(m.custom("Issuer")).extracting(ChartTest::name).contains("schedlens-ca");
    String secret = spec.path("secretName").asText();

    StatefulSet sts = m.one(StatefulSet.class, "schedlens-streams");
    Container streams = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = Manifests.env(streams);
    assertThat(env.get("SCHEDLENS_APPLICATION_SERVER"))
        .as("the instances call each other by the name the certificate covers")
        .isEqualTo("$(POD_NAME).schedlens-streams-headless.schedlens.svc:9471");
    assertThat(env)
        .containsKeys("SCHEDLENS_HTTP_TLS_CERT", "SCHEDLENS_HTTP_TLS_KEY", "SCHEDLENS_HTTP_TLS_CA");
    Container collector = m.container("schedlens-collector");
    for (var pod :
        List.of(
            sts.getSpec().getTemplate().getSpec(),
            m.one(Deployment.class, "schedlens-collector").getSpec().getTemplate().getSpec())) {
      assertThat(pod.getVolumes())
          .anyMatch(v -> v.getSecret() != null && secret.equals(v.getSecret().getSecretName()));
    }
    for (Container c : List.of(streams, collector)) {
      String cert1 = Manifests.env(c).get("SCHEDLENS_HTTP_TLS_CERT");
      assertThat(c.getVolumeMounts()).anyMatch(v -> cert1.startsWith(v.getMountPath() + "/"));
      // The probes' own port serves plain HTTP whatever the main port does (HttpEndpoint).
      assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("probes");
      assertThat(c.getReadinessProbe().getHttpGet().getScheme()).isNotEqualTo("HTTPS");
    }
    for (GenericKubernetesResource sm : m.custom("ServiceMonitor")) {
      JsonNode endpoint = Manifests.tree(sm).path("spec").path("endpoints").get(0);
      assertThat(endpoint.path("scheme").asText()).isEqualTo("https");
      JsonNode tls = endpoint.path("tlsConfig");
      assertThat(tls.has("insecureSkipVerify")).as("Prometheus verifies the certificate").isFalse();
      assertThat(names).contains(tls.path("serverName").asText());
      assertThat(tls.path("ca").path("secret").path("name").asText()).isEqualTo(secret);
    }

    // With an issuer of the cluster's, no CA of its own.
    Manifests given =
        Manifests.render(
            Chart.Install.of()
                .with("tls.mode", "cert-manager")
                .with("tls.issuer.kind", "ClusterIssuer")
                .with("tls.issuer.name", "corp-ca"));
    assertThat(given.custom("Issuer")).isEmpty();
    assertThat(
            Manifests.tree(given.custom("Certificate").get(0))
                .path("spec")
                .path("issuerRef")
                .path("name")
                .asText())
        .isEqualTo("corp-ca");
  }

  @Test
  void shouldLeaveTlsOffWhereTheClusterHasNoCertManager() throws IOException {
    // helm template knows no cluster: auto finds no cert-manager.io/v1 and stays plain.
    Manifests m = Manifests.chart();
    assertThat(m.custom("Certificate")).isEmpty();
    for (Container c : schedlensContainers(m)) {
      assertThat(Manifests.env(c)).doesNotContainKey("SCHEDLENS_HTTP_TLS_CERT");
    }
  }

  @Test
  void shouldRunTheExportHourlyAsItsOwnKafkaUser() throws IOException {
    Manifests m = Manifests.chart("production", "export-parquet");
    CronJob job = m.one(CronJob.class, "schedlens-export");
    assertThat(job.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
    PodSpec pod = job.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    assertThat(c.getArgs()).containsExactly("export");
    assertThat(Manifests.env(c)).containsEntry("SCHEDLENS_STOP_AT_END", "true");
    EnvVar jaas =
        c.getEnv().stream()
            .filter(e -> e.getName().equals("KAFKA_SASL_JAAS_CONFIG"))
            .findFirst()
            .orElseThrow();
    assertThat(jaas.getValueFrom().getSecretKeyRef().getName()).isEqualTo("schedlens-export");
    String to = Manifests.env(c).get("SCHEDLENS_TO");
    assertThat(c.getVolumeMounts()).anyMatch(v -> v.getMountPath().equals(to));
    assertThat(pod.getVolumes())
        .anyMatch(
            v ->
                v.getPersistentVolumeClaim() != null
                    && v.getPersistentVolumeClaim().getClaimName().equals("schedlens-warehouse"));
  }

  @Test
  void shouldUseAnExistingKafkaWithoutStrimziObjects() throws IOException {
    Manifests m = Manifests.chart("external-kafka");
    for (String kind : List.of("Kafka", "KafkaNodePool", "KafkaTopic", "KafkaUser", "PodMonitor")) {
      assertThat(m.custom(kind)).as(kind).isEmpty();
    }
    Container c = m.container("schedlens-streams");
    assertThat(Manifests.env(c).get("KAFKA_BOOTSTRAP_SERVERS"))
        .startsWith("kafka-0.kafka.example:9093");
    assertThat(Manifests.env(c))
        .containsEntry("SCHEDLENS_REPLICATION_FACTOR", "3")
        .doesNotContainKey("SCHEDLENS_TOPICS_CREATE");
    assertThat(
            c.getEnv().stream()
                .filter(e -> e.getName().equals("KAFKA_SASL_JAAS_CONFIG"))
                .findFirst()
                .orElseThrow()
                .getValueFrom()
                .getSecretKeyRef()
                .getName())
        .isEqualTo("schedlens-streams-kafka");
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        // refused by values.schema.json, in Helm's words
        Arguments.of(
            "kafka.provider", "confluent", "at '/kafka/provider': value must be one of 'strimzi'"),
        Arguments.of("tls.mode", "on", "at '/tls/mode': value must be one of 'auto'"),
        // refused by the templates: what a schema cannot say
        Arguments.of("kafka.provider", "external", "kafka.external.bootstrapServers is required"),
        Arguments.of("export.enabled", "true", "export.enabled writes files"),
        Arguments.of("dcgm.namespaces", "null", "dcgm.discovery needs dcgm.namespaces"),
        Arguments.of(
            "streams.serviceAccount.create",
            "false",
            "streams.serviceAccount.create is false: name the existing ServiceAccount"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badValues")
  void shouldRefuseBadValuesNamingTheValue(String key, String value, String message) {
    assertThatThrownBy(() -> Chart.template(Chart.Install.of().with(key, value)))
        .hasMessageContaining(message);
  }
}
