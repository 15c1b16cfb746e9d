package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the chart's installs say (and the experiment's kustomizations): the collector only reads,
 * the streams app runs highly available with state on volumes, the topics are the apps' own, Kafka
 * is closed to all but each app's own user, the tokens come from Secrets, the probes have a port of
 * their own, the image runs as it is built.
 */
class ManifestsTest {

  /** The experiment's kustomizations (deploy/experiment): example workloads, not the install. */
  static List<String> kustomizations() throws Exception {
    Path deploy = Repository.path("deploy");
    try (Stream<Path> files = Files.walk(deploy)) {
      return files
          .filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
          .filter(p -> !p.toString().contains("/target/"))
          .map(p -> Repository.root().relativize(p.getParent()).toString())
          .sorted()
          .toList();
    }
  }

  @Test
  void shouldInstallOnlyThroughTheChartAndKeepTheExperimentAsKustomizations() throws Exception {
    assertThat(kustomizations())
        .containsExactly(
            "deploy/experiment/base", "deploy/experiment/control", "deploy/experiment/treatment");
  }

  @ParameterizedTest
  @MethodSource("kustomizations")
  void shouldBuildAndBindEveryObjectToItsTypedModel(String dir) throws Exception {
    checkObjects(Manifests.build(dir));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "small", "production", "pages-ingress", "external-kafka"})
  void shouldRenderEveryInstallWithBoundedResources(String example) throws Exception {
    checkObjects(example.isEmpty() ? Manifests.chart() : Manifests.chart(example));
  }

  private static void checkObjects(Manifests m) {
    String dir = m.dir;
    assertThat(m.objects).as(dir).isNotEmpty();
    for (HasMetadata o : m.objects) {
      assertThat(o.getMetadata().getName()).as(dir + " " + o.getKind()).isNotBlank();
    }
    for (PodTemplateSpec t : podTemplates(m)) {
      for (Container c : t.getSpec().getContainers()) {
        String what = dir + " container " + c.getName();
        assertThat(c.getResources().getRequests()).as(what + " requests").containsKey("memory");
        assertThat(c.getResources().getLimits()).as(what + " limits").containsKey("memory");
        Quantity gpuLimit = c.getResources().getLimits().get("nvidia.com/gpu");
        if (gpuLimit != null) {
          assertThat(c.getResources().getRequests().get("nvidia.com/gpu"))
              .as(what + ": GPU requests equal limits (extended resources cannot overcommit)")
              .isEqualTo(gpuLimit);
        }
      }
    }
  }

  @Test
  void shouldLetTheCollectorOnlyReadAndNeverSecrets() throws Exception {
    Manifests m =
        Manifests.render(Chart.Install.of("production").with("experimentNamespaces[0]", "ai-lab"));
    ClusterRole role = m.one(ClusterRole.class, "schedlens-collector");
    role.getRules()
        .forEach(
            r -> {
              assertThat(r.getVerbs()).isSubsetOf("get", "list", "watch");
              assertThat(r.getResources()).doesNotContain("secrets", "*", "configmaps");
            });
    assertThat(role.getRules())
        .as("Kueue's Workloads, read (collector.queues, on by default)")
        .anySatisfy(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("kueue.x-k8s.io");
              assertThat(r.getResources()).containsExactly("workloads");
            });
    assertThat(Manifests.env(m.container("schedlens-collector")))
        .containsEntry("SCHEDLENS_QUEUES_WATCH", "true");
    ClusterRole without =
        Manifests.render(Chart.Install.of("production").with("collector.queues", "false"))
            .one(ClusterRole.class, "schedlens-collector");
    assertThat(without.getRules())
        .noneSatisfy(r -> assertThat(r.getApiGroups()).contains("kueue.x-k8s.io"));
    // EndpointSlices and experiment ConfigMaps: read-only, each in the namespaces the collector is
    // told to look in, bound to its ServiceAccount.
    Map<String, String> env = Manifests.env(m.container("schedlens-collector"));
    Map<String, String> wanted =
        Map.of(
            "endpointslices", env.get("SCHEDLENS_DCGM_NAMESPACES"),
            "configmaps", env.get("SCHEDLENS_EXPERIMENTS_NAMESPACES"));
    wanted.forEach(
        (resource, namespaces) -> {
          for (String ns : namespaces.split(",")) {
            Role r =
                m.all(Role.class).stream()
                    .filter(x -> ns.equals(x.getMetadata().getNamespace()))
                    .filter(
                        x ->
                            x.getRules().stream()
                                .anyMatch(y -> y.getResources().contains(resource)))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no Role for " + resource + " in " + ns));
            assertThat(r.getRules())
                .allSatisfy(y -> assertThat(y.getVerbs()).isSubsetOf("get", "list", "watch"));
            RoleBinding b =
                m.all(RoleBinding.class).stream()
                    .filter(x -> ns.equals(x.getMetadata().getNamespace()))
                    .filter(x -> x.getRoleRef().getName().equals(r.getMetadata().getName()))
                    .findFirst()
                    .orElseThrow();
            assertThat(b.getSubjects())
                .singleElement()
                .satisfies(
                    s -> {
                      assertThat(s.getName()).isEqualTo("schedlens-collector");
                      assertThat(s.getNamespace()).isEqualTo("schedlens");
                    });
          }
        });
  }

  @Test
  void shouldRunTheStreamsAppHighlyAvailableWithStateOnVolumes() throws Exception {
    Manifests m = Manifests.chart("production");
    StatefulSet sts = m.one(StatefulSet.class, "schedlens-streams");
    assertThat(sts.getMetadata().getNamespace()).isEqualTo("schedlens");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    Container c = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = Manifests.env(c);
    assertThat(Integer.parseInt(env.get("SCHEDLENS_NUM_STANDBY_REPLICAS")))
        .isGreaterThanOrEqualTo(1);
    assertThat(env).containsEntry("SCHEDLENS_TOPICS_CREATE", "false");
    assertThat(env).containsEntry("SCHEDLENS_HTTP_HOST", "0.0.0.0");
    // $(POD_IP) expands only when POD_IP is defined before it.
    List<String> names = c.getEnv().stream().map(EnvVar::getName).toList();
    assertThat(names.indexOf("POD_IP")).isLessThan(names.indexOf("SCHEDLENS_APPLICATION_SERVER"));
    assertThat(env.get("SCHEDLENS_APPLICATION_SERVER")).isEqualTo("$(POD_IP):9471");
    assertThat(env.get("SCHEDLENS_STATE_DIR"))
        .startsWith(
            c.getVolumeMounts().stream()
                .filter(v -> v.getName().equals("state"))
                .findFirst()
                .orElseThrow()
                .getMountPath());
    assertThat(sts.getSpec().getVolumeClaimTemplates())
        .extracting(p -> p.getMetadata().getName())
        .contains("state");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getStartupProbe()).isNotNull();
    Map<String, String> podLabels = sts.getSpec().getTemplate().getMetadata().getLabels();

    PodDisruptionBudget pdb = m.one(PodDisruptionBudget.class, "schedlens-streams");
    assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);

    for (Service s : m.all(Service.class)) {
      Map<String, String> wanted = s.getSpec().getSelector();
      boolean selectsSomething =
          podTemplates(m).stream()
              .anyMatch(t -> t.getMetadata().getLabels().entrySet().containsAll(wanted.entrySet()));
      assertThat(selectsSomething)
          .as("Service " + s.getMetadata().getName() + " selects pods")
          .isTrue();
    }
    List<io.fabric8.kubernetes.api.model.GenericKubernetesResource> monitors =
        m.custom("ServiceMonitor");
    assertThat(monitors).hasSize(2);
    for (var sm : monitors) {
      JsonNode spec = Manifests.tree(sm).path("spec");
      Map<String, String> wanted = new HashMap<>();
      spec.path("selector")
          .path("matchLabels")
          .fields()
          .forEachRemaining(e -> wanted.put(e.getKey(), e.getValue().asText()));
      String port = spec.path("endpoints").get(0).path("port").asText();
      // The metrics' own namespace label must survive the Operator's target labels.
      spec.path("endpoints")
          .forEach(
              e ->
                  assertThat(e.path("honorLabels").asBoolean())
                      .as("ServiceMonitor " + sm.getMetadata().getName() + " honorLabels")
                      .isTrue());
      assertThat(sm.getMetadata().getLabels())
          .as("ServiceMonitor " + sm.getMetadata().getName() + " has the release label")
          .containsEntry("release", "kube-prometheus-stack");
      assertThat(m.all(Service.class))
          .as("ServiceMonitor " + sm.getMetadata().getName() + " finds a Service with port " + port)
          .anyMatch(
              s ->
                  s.getMetadata().getLabels().entrySet().containsAll(wanted.entrySet())
                      && s.getSpec().getPorts().stream().anyMatch(p -> port.equals(p.getName())));
    }
  }

  @Test
  void shouldCreateTheTopicsWithTheAppsOwnSettingsCoPartitioned() throws Exception {
    for (String overlay : List.of("production", "small")) {
      Manifests m = Manifests.chart(overlay);
      Map<String, JsonNode> byName = new HashMap<>();
      for (var t : m.custom("KafkaTopic")) {
        JsonNode spec = Manifests.tree(t).path("spec");
        byName.put(spec.path("topicName").asText(), spec);
      }
      List<Topic<String, ?>> expected = Topics.defaults().all();
      assertThat(byName.keySet())
          .containsExactlyInAnyOrderElementsOf(expected.stream().map(Topic::name).toList());
      assertThat(
              byName.values().stream().map(s -> s.path("partitions").asInt()).distinct().toList())
          .as("one partition count for all (co-partitioned joins)")
          .hasSize(1);
      for (Topic<String, ?> topic : expected) {
        Map<String, String> config = new HashMap<>();
        byName
            .get(topic.name())
            .path("config")
            .fields()
            .forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
        assertThat(config).as(overlay + " " + topic.name()).isEqualTo(topic.configs());
      }
      JsonNode kafka =
          Manifests.tree(m.custom("Kafka").get(0)).path("spec").path("kafka").path("config");
      int nodes =
          Manifests.tree(m.custom("KafkaNodePool").get(0)).path("spec").path("replicas").asInt();
      int replicas = byName.values().iterator().next().path("replicas").asInt();
      assertThat(replicas).isLessThanOrEqualTo(nodes);
      assertThat(kafka.path("transaction.state.log.replication.factor").asInt())
          .isLessThanOrEqualTo(nodes);
      assertThat(kafka.path("min.insync.replicas").asInt()).isLessThanOrEqualTo(replicas);
      if (overlay.endsWith("production")) {
        assertThat(replicas).isEqualTo(3);
        assertThat(kafka.path("min.insync.replicas").asInt()).isEqualTo(2);
        assertThat(kafka.path("transaction.state.log.min.isr").asInt()).isEqualTo(2);
      }
    }
  }

  @Test
  void shouldRunTheTreatmentWithThreePriorityClassesAndTheControlWithNone() throws Exception {
    Manifests treatment = Manifests.build("deploy/experiment/treatment");
    Map<String, Integer> classes =
        treatment.all(PriorityClass.class).stream()
            .collect(Collectors.toMap(p -> p.getMetadata().getName(), PriorityClass::getValue));
    assertThat(classes)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("interactive", 100000, "embedding-batch", 1000, "asr-batch", 500));
    assertThat(treatment.all(PriorityClass.class))
        .allMatch(p -> !Boolean.TRUE.equals(p.getGlobalDefault()));
    for (PodTemplateSpec t : podTemplates(treatment)) {
      assertThat(classes).containsKey(t.getSpec().getPriorityClassName());
      assertThat(t.getMetadata().getLabels())
          .containsEntry("schedlens.io/experiment", "day08-experiment")
          .containsEntry("schedlens.io/arm", "treatment")
          .containsKey("schedlens.io/repeat");
    }
    Manifests control = Manifests.build("deploy/experiment/control");
    assertThat(control.all(PriorityClass.class)).isEmpty();
    assertThat(podTemplates(control)).hasSize(3);
    for (PodTemplateSpec t : podTemplates(control)) {
      assertThat(t.getSpec().getPriorityClassName()).isNull();
      assertThat(t.getMetadata().getLabels()).containsEntry("schedlens.io/arm", "control");
    }
    // The selectors stay without arm labels: a Deployment's selector is immutable.
    assertThat(
            control
                .one(Deployment.class, "interactive-inference")
                .getSpec()
                .getSelector()
                .getMatchLabels())
        .doesNotContainKey("schedlens.io/arm");
  }

  @Test
  void shouldMakeReadyMeanModelLoadedAndLetBatchPodsRecordCheckpoints() throws Exception {
    Manifests m = Manifests.build("deploy/experiment/treatment");
    Deployment server = m.one(Deployment.class, "interactive-inference");
    Container c = server.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(c.getStartupProbe().getFailureThreshold() * c.getStartupProbe().getPeriodSeconds())
        .as("startup probe allows a model load of minutes")
        .isGreaterThanOrEqualTo(300);
    PodDisruptionBudget pdb = m.one(PodDisruptionBudget.class, "interactive-inference");
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal())
        .isLessThan(server.getSpec().getReplicas());

    Role role = m.one(Role.class, "batch-checkpointer");
    assertThat(role.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "patch");
            });
    // The patch narrowed to the token's own pod and the one annotation, by admission policy.
    ValidatingAdmissionPolicy own =
        m.one(ValidatingAdmissionPolicy.class, "batch-checkpointer-own-pod-annotation");
    assertThat(own.getSpec().getFailurePolicy()).isEqualTo("Fail");
    assertThat(own.getSpec().getMatchConditions().get(0).getExpression())
        .contains("system:serviceaccount:ai-lab:batch-checkpointer");
    assertThat(own.getSpec().getValidations())
        .extracting(v -> v.getExpression())
        .anySatisfy(e -> assertThat(e).contains("authentication.kubernetes.io/pod-name"))
        .anySatisfy(e -> assertThat(e).contains("object.spec == oldObject.spec"))
        .anySatisfy(e -> assertThat(e).contains("schedlens.io/last-checkpoint"));
    ValidatingAdmissionPolicyBinding binding =
        m.one(ValidatingAdmissionPolicyBinding.class, "batch-checkpointer-own-pod-annotation");
    assertThat(binding.getSpec().getPolicyName()).isEqualTo(own.getMetadata().getName());
    assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
    for (Job job : m.all(Job.class)) {
      var spec = job.getSpec().getTemplate().getSpec();
      assertThat(spec.getServiceAccountName()).isEqualTo("batch-checkpointer");
      assertThat(String.join(" ", spec.getContainers().get(0).getArgs()))
          .contains("schedlens.io/last-checkpoint=");
      assertThat(job.getSpec().getTemplate().getMetadata().getAnnotations())
          .containsKey("schedlens.io/checkpoint-interval");
      assertThat(
              job.getSpec()
                  .getPodFailurePolicy()
                  .getRules()
                  .get(0)
                  .getOnPodConditions()
                  .get(0)
                  .getType())
          .isEqualTo("DisruptionTarget");
    }

    ConfigMap experiment = m.one(ConfigMap.class, "day08-experiment");
    assertThat(experiment.getMetadata().getNamespace()).isEqualTo("ai-lab");
    assertThat(experiment.getMetadata().getLabels())
        .containsEntry("schedlens.io/experiment", "day08-experiment");
    assertThat(experiment.getData()).containsKeys("change", "fixed", "metrics", "repeats");
    assertThat(Integer.parseInt(experiment.getData().get("repeats"))).isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"production", "small"})
  void shouldKeepKafkaClosedAndEachAppToItsOwnAcls(String overlay) throws Exception {
    Manifests m = Manifests.chart(overlay);
    JsonNode kafka = Manifests.tree(m.custom("Kafka").get(0)).path("spec").path("kafka");
    assertThat(kafka.path("authorization").path("type").asText()).isEqualTo("simple");
    assertThat(kafka.path("listeners")).isNotEmpty();
    for (JsonNode l : kafka.path("listeners")) {
      assertThat(l.path("tls").asBoolean()).as("listener " + l.path("name") + " TLS").isTrue();
      assertThat(l.path("authentication").path("type").asText())
          .as("listener " + l.path("name") + " authenticates")
          .isEqualTo("scram-sha-512");
      assertThat(l.path("networkPolicyPeers")).as("only schedlens' pods reach it").isNotEmpty();
    }
    // Broker health for the dashboard: JMX rules from a ConfigMap that exists, the Kafka exporter,
    // and a PodMonitor the stack selects.
    JsonNode metrics = kafka.path("metricsConfig");
    assertThat(metrics.path("type").asText()).isEqualTo("jmxPrometheusExporter");
    JsonNode ref = metrics.path("valueFrom").path("configMapKeyRef");
    assertThat(m.one(ConfigMap.class, ref.path("name").asText()).getData())
        .containsKey(ref.path("key").asText());
    assertThat(Manifests.tree(m.custom("Kafka").get(0)).path("spec").has("kafkaExporter")).isTrue();
    assertThat(m.custom("PodMonitor"))
        .singleElement()
        .satisfies(
            pm ->
                assertThat(pm.getMetadata().getLabels())
                    .containsEntry("release", "kube-prometheus-stack"));
    Map<String, Map<String, Set<String>>> acls = new HashMap<>();
    for (var u : m.custom("KafkaUser")) {
      Map<String, Set<String>> byResource = new HashMap<>();
      for (JsonNode acl : Manifests.tree(u).path("spec").path("authorization").path("acls")) {
        JsonNode r = acl.path("resource");
        String key = r.path("type").asText() + ":" + r.path("name").asText();
        Set<String> ops = byResource.computeIfAbsent(key, k -> new HashSet<>());
        acl.path("operations").forEach(o -> ops.add(o.asText()));
      }
      acls.put(u.getMetadata().getName(), byResource);
    }
    assertThat(acls.keySet())
        .containsExactlyInAnyOrder("schedlens-collector", "schedlens-streams", "schedlens-export");
    List<String> inputs =
        List.of(
            "schedlens.pods",
            "schedlens.k8s-events",
            "schedlens.gpu-samples",
            "schedlens.requests",
            "schedlens.workloads",
            "schedlens.experiments");
    List<String> outputs =
        List.of("schedlens.pod-timelines", "schedlens.workload-timelines", "schedlens.preemptions");
    Map<String, Set<String>> collector = acls.get("schedlens-collector");
    for (String t : inputs) {
      assertThat(collector.get("topic:" + t)).as("collector writes " + t).contains("Write");
    }
    collector.forEach(
        (resource, ops) -> {
          if (ops.contains("Read") && resource.startsWith("topic:")) {
            assertThat(resource)
                .as("the collector reads back only the pods")
                .isEqualTo("topic:schedlens.pods");
          }
        });
    for (String t : outputs) {
      assertThat(collector).as("collector cannot touch " + t).doesNotContainKey("topic:" + t);
    }
    Map<String, Set<String>> streams = acls.get("schedlens-streams");
    for (String t : inputs) {
      assertThat(streams.get("topic:" + t))
          .as("streams reads " + t)
          .contains("Read")
          .doesNotContain("Write");
    }
    for (String t : outputs) {
      assertThat(streams.get("topic:" + t)).as("streams writes " + t).contains("Write");
    }
    assertThat(streams).containsKey("transactionalId:schedlens-streams");
    assertThat(streams).containsKey("group:schedlens-streams");
    acls.get("schedlens-export")
        .forEach(
            (resource, ops) -> {
              assertThat(outputs).as("export reads only outputs").contains(resource.substring(6));
              assertThat(ops).as("export only reads").isSubsetOf("Read", "Describe");
            });
    // Each app connects over TLS as its own user, with the cluster CA mounted.
    Map<String, PodTemplateSpec> apps =
        Map.of(
            "schedlens-collector",
            m.one(Deployment.class, "schedlens-collector").getSpec().getTemplate(),
            "schedlens-streams",
            m.one(StatefulSet.class, "schedlens-streams").getSpec().getTemplate());
    apps.forEach(
        (user, t) -> {
          Container c = t.getSpec().getContainers().get(0);
          assertThat(Manifests.env(c)).containsEntry("KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
          assertThat(Manifests.env(c)).containsEntry("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
          assertThat(Manifests.env(c).get("KAFKA_BOOTSTRAP_SERVERS")).endsWith(":9093");
          EnvVar jaas =
              c.getEnv().stream()
                  .filter(e -> e.getName().equals("KAFKA_SASL_JAAS_CONFIG"))
                  .findFirst()
                  .orElseThrow();
          assertThat(jaas.getValueFrom().getSecretKeyRef().getName()).isEqualTo(user);
          String truststore = Manifests.env(c).get("KAFKA_SSL_TRUSTSTORE_LOCATION");
          String mount =
              c.getVolumeMounts().stream()
                  .filter(v -> truststore.startsWith(v.getMountPath() + "/"))
                  .findFirst()
                  .orElseThrow()
                  .getName();
          assertThat(
                  t.getSpec().getVolumes().stream()
                      .filter(v -> v.getName().equals(mount))
                      .findFirst()
                      .orElseThrow()
                      .getSecret()
                      .getSecretName())
              .isEqualTo("schedlens-cluster-ca-cert");
        });
    // Only the expected peers reach each app's port.
    for (String app : apps.keySet()) {
      NetworkPolicy np = m.one(NetworkPolicy.class, app);
      assertThat(np.getSpec().getPodSelector().getMatchLabels())
          .containsEntry("app.kubernetes.io/name", app);
      assertThat(np.getSpec().getPolicyTypes()).contains("Ingress");
      assertThat(np.getSpec().getIngress()).allMatch(r -> !r.getFrom().isEmpty());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"production", "small"})
  void shouldRequireTheIntakeAndApiTokensFromSecretsMountedAsFiles(String overlay)
      throws Exception {
    Manifests m = Manifests.chart(overlay);
    Container c = m.container("schedlens-collector");
    assertThat(Manifests.env(c))
        .containsEntry("SCHEDLENS_INTAKE_TOKEN_FILE", "/etc/schedlens/intake-token/token")
        .doesNotContainKey("SCHEDLENS_INTAKE_TOKEN")
        .doesNotContainEntry("SCHEDLENS_INTAKE_AUTH", "none");
    assertMountedSecret(m, c, "/etc/schedlens/intake-token", "schedlens-intake-token");

    Container streams = m.container("schedlens-streams");
    assertThat(Manifests.env(streams))
        .containsEntry("SCHEDLENS_API_TOKEN_FILE", "/etc/schedlens/api-token/token")
        .containsEntry("SCHEDLENS_API_PEER_TOKEN_FILE", "/etc/schedlens/peer-token/token")
        .doesNotContainKey("SCHEDLENS_API_TOKEN")
        .doesNotContainEntry("SCHEDLENS_API_AUTH", "none");
    assertMountedSecret(m, streams, "/etc/schedlens/api-token", "schedlens-api-token");
    assertMountedSecret(m, streams, "/etc/schedlens/peer-token", "schedlens-peer-token");
  }

  /** {@code c} mounts, at {@code path}, a volume of the Secret {@code secret} (not optional). */
  private static void assertMountedSecret(Manifests m, Container c, String path, String secret) {
    String volume =
        c.getVolumeMounts().stream()
            .filter(v -> v.getMountPath().equals(path))
            .findFirst()
            .orElseThrow()
            .getName();
    PodTemplateSpec pod =
        podTemplates(m).stream()
            .filter(t -> t.getSpec().getContainers().contains(c))
            .findFirst()
            .orElseThrow();
    io.fabric8.kubernetes.api.model.Volume v =
        pod.getSpec().getVolumes().stream()
            .filter(x -> x.getName().equals(volume))
            .findFirst()
            .orElseThrow();
    assertThat(v.getSecret().getSecretName()).isEqualTo(secret);
    assertThat(v.getSecret().getOptional())
        .as("a missing Secret must stop the pod, not turn authentication off")
        .isNotEqualTo(Boolean.TRUE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"production", "small"})
  void shouldProbeOnAPortOfTheirOwn(String overlay) throws Exception {
    Manifests m = Manifests.chart(overlay);
    for (PodTemplateSpec t : podTemplates(m)) {
      for (Container c : t.getSpec().getContainers()) {
        if (!c.getImage().startsWith("ghcr.io/schedlens/schedlens:")) {
          continue;
        }
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        String port = Manifests.env(c).get("SCHEDLENS_HTTP_PROBE_PORT");
        assertThat(port).as(c.getName() + " has a probe port").isNotNull();
        assertThat(c.getPorts())
            .anySatisfy(
                p -> {
                  assertThat(p.getName()).isEqualTo("probes");
                  assertThat(p.getContainerPort()).isEqualTo(Integer.parseInt(port));
                });
        for (var probe : List.of(c.getReadinessProbe(), c.getLivenessProbe())) {
          assertThat(probe.getHttpGet().getPort().getStrVal()).as(c.getName()).isEqualTo("probes");
        }
        if (c.getStartupProbe() != null) {
          assertThat(c.getStartupProbe().getHttpGet().getPort().getStrVal()).isEqualTo("probes");
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"production", "small"})
  void shouldRunTheImageAsItIsBuilt(String overlay) throws Exception {
    Manifests m = Manifests.chart(overlay);
    for (PodTemplateSpec t : podTemplates(m)) {
      for (Container c : t.getSpec().getContainers()) {
        if (!c.getImage().startsWith("ghcr.io/schedlens/schedlens:")) {
          continue;
        }
        // The image (cli/pom.xml, Jib) runs java directly: the JVM reads JAVA_TOOL_OPTIONS, and
        // nothing reads the launcher's JAVA_OPTS.
        assertThat(Manifests.env(c)).as(c.getName()).doesNotContainKey("JAVA_OPTS");
        assertThat(Manifests.env(c)).as(c.getName()).containsKey("JAVA_TOOL_OPTIONS");
        assertThat(c.getCommand())
            .as(c.getName() + " keeps the image's entrypoint")
            .isNullOrEmpty();
        // The image's numeric user, which runAsNonRoot can verify.
        assertThat(t.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(65532L);
        assertThat(t.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
      }
    }
  }

  static List<PodTemplateSpec> podTemplates(Manifests m) {
    List<PodTemplateSpec> t = new ArrayList<>();
    m.all(Deployment.class).forEach(d -> t.add(d.getSpec().getTemplate()));
    m.all(StatefulSet.class).forEach(d -> t.add(d.getSpec().getTemplate()));
    m.all(Job.class).forEach(d -> t.add(d.getSpec().getTemplate()));
    return t;
  }

  @Test
  void shouldLetBrowsersReachTheTimelinePagesThroughTheIngressOverlayOnly() throws Exception {
    Manifests m = Manifests.chart("production", "pages-ingress");
    Ingress ingress = m.one(Ingress.class, "schedlens-pages");
    var paths = ingress.getSpec().getRules().get(0).getHttp().getPaths();
    assertThat(paths)
        .as("the pages, the login form and /api; not /metrics, /healthz, /readyz")
        .extracting(p -> p.getPath() + " " + p.getPathType())
        .containsExactly(
            "/ Exact", "/login Exact", "/pods Prefix", "/workloads Prefix", "/api Prefix");
    assertThat(paths)
        .allMatch(p -> p.getBackend().getService().getName().equals("schedlens-streams"));
    var backend = paths.get(0).getBackend();
    Service service = m.one(Service.class, "schedlens-streams");
    assertThat(service.getSpec().getPorts())
        .anyMatch(p -> p.getPort().equals(backend.getService().getPort().getNumber()));
    NetworkPolicy np = m.one(NetworkPolicy.class, "schedlens-streams");
    assertThat(np.getSpec().getIngress())
        .as("the ingress controller may reach the pages' port")
        .anyMatch(
            r ->
                r.getFrom().stream()
                        .anyMatch(
                            f ->
                                f.getNamespaceSelector() != null
                                    && "ingress-nginx"
                                        .equals(
                                            f.getNamespaceSelector()
                                                .getMatchLabels()
                                                .get("kubernetes.io/metadata.name")))
                    && r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == 9471));
    assertThat(Manifests.chart("production").all(Ingress.class))
        .as("production opens no way in by itself")
        .isEmpty();
  }
}
