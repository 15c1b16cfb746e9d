package io.schedlens.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupList;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscoveryBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Kubernetes API that Helm installs the chart into: fabric8's mock server in CRUD mode, answering
 * API discovery as an API server does ({@code /api}, {@code /apis}, each group version's resource
 * list), so that Helm's {@code .Capabilities.APIVersions} and its mapping of kinds to resources
 * come from this cluster, not from Helm's built-in defaults.
 *
 * <p>The built-in kinds it serves are the ones the chart renders, with their groups, versions,
 * plurals and scopes taken from the Kubernetes model (fabric8) and the Strimzi API model. Custom
 * resources beyond Strimzi's are served when their published CustomResourceDefinition is installed
 * ({@link #installPrometheusOperator}): discovery then lists their group, as the API server does
 * once a CRD is established. Objects are stored, not reconciled: no controller runs here.
 */
final class ChartCluster implements AutoCloseable {

  /** The built-in (and Strimzi) kinds discovery lists; Helm refuses any other kind it renders. */
  private static final List<Class<? extends HasMetadata>> KINDS =
      List.of(
          ConfigMap.class,
          Pod.class,
          Secret.class,
          Service.class,
          ServiceAccount.class,
          io.fabric8.kubernetes.api.model.Namespace.class,
          Deployment.class,
          StatefulSet.class,
          CronJob.class,
          Job.class,
          PodDisruptionBudget.class,
          NetworkPolicy.class,
          Ingress.class,
          ClusterRole.class,
          ClusterRoleBinding.class,
          Role.class,
          RoleBinding.class,
          ValidatingAdmissionPolicy.class,
          ValidatingAdmissionPolicyBinding.class,
          CustomResourceDefinition.class,
          Kafka.class,
          KafkaNodePool.class,
          KafkaTopic.class,
          KafkaUser.class);

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  /** The mock server logs every request at INFO; a failing install says what went wrong. */
  private static final Logger REQUEST_LOG =
      Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

  static {
    REQUEST_LOG.setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final List<ResourceDefinitionContext> crds = new CopyOnWriteArrayList<>();

  private ChartCluster() {
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new Discovery(), false);
    try {
      server.init(InetAddress.getByName("127.0.0.1"), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the mock Kubernetes API on loopback", e);
    }
    client = server.createClient();
  }

  /** A cluster serving the built-in kinds and Strimzi's, without the Prometheus Operator. */
  static ChartCluster start() {
    return new ChartCluster();
  }

  /**
   * Installs the Prometheus Operator's published CRDs of ServiceMonitor, PodMonitor and
   * PrometheusRule (the versions ChartSchemas validates against): the cluster then serves {@code
   * monitoring.coreos.com/v1}.
   */
  ChartCluster installPrometheusOperator() {
    for (String file :
        List.of(
            "monitoring.coreos.com_servicemonitors.yaml",
            "monitoring.coreos.com_podmonitors.yaml",
            "monitoring.coreos.com_prometheusrules.yaml")) {
      String path = ChartSchemas.PROMETHEUS_OPERATOR_CRDS + file;
      try (InputStream in = ChartCluster.class.getResourceAsStream(path)) {
        if (in == null) {
          throw new IllegalStateException(path + " is not on the test class path");
        }
        CustomResourceDefinition crd = JSON.unmarshal(in, CustomResourceDefinition.class);
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        crds.add(CustomResourceDefinitionContext.fromCrd(crd));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return this;
  }

  /**
   * {@code helm install} of the chart into this cluster, as the install gives it: Helm discovers
   * the API, checks that no object of the release exists already (it refuses one another release
   * owns), creates every object and records the release.
   */
  Release install(Chart.Install install) {
    InstallCommand cmd =
        new Helm(Chart.dir())
            .install()
            .withName(install.release())
            .withNamespace(install.namespace())
            .withKubeConfigContents(kubeConfig())
            // The mock API publishes no OpenAPI document; the objects' schemas are checked by
            // ManifestsTest and ChartSchemasTest on the rendered manifests.
            .disableOpenApiValidation();
    for (Path f : install.valuesFiles()) {
      cmd = cmd.withValuesFile(f);
    }
    for (Map.Entry<String, String> e : install.sets().entrySet()) {
      cmd = cmd.set(e.getKey(), e.getValue());
    }
    return cmd.call();
  }

  /**
   * The objects of a kind stored in the cluster, in every namespace; none where it is not served.
   */
  List<GenericKubernetesResource> objects(String apiVersion, String kind) {
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
    return served().getOrDefault(group, Map.of()).getOrDefault(version, List.of()).stream()
        .filter(r -> r.getKind().equals(kind))
        .findFirst()
        .map(r -> list(group, version, r))
        .orElse(List.of());
  }

  /** Every object of every kind the cluster serves, but the operators' CRDs this test installed. */
  List<GenericKubernetesResource> all() {
    List<GenericKubernetesResource> all = new ArrayList<>();
    served()
        .forEach(
            (group, versions) ->
                versions.forEach(
                    (version, resources) ->
                        resources.stream()
                            .filter(r -> !r.getKind().equals("CustomResourceDefinition"))
                            .forEach(r -> all.addAll(list(group, version, r)))));
    return all;
  }

  private List<GenericKubernetesResource> list(String group, String version, APIResource r) {
    ResourceDefinitionContext context =
        new ResourceDefinitionContext.Builder()
            .withGroup(group)
            .withVersion(version)
            .withKind(r.getKind())
            .withPlural(r.getName())
            .withNamespaced(r.getNamespaced())
            .build();
    return client.genericKubernetesResources(context).inAnyNamespace().list().getItems();
  }

  private String kubeConfig() {
    Config c = client.getConfiguration();
    return """
        apiVersion: v1
        kind: Config
        clusters:
          - name: mock
            cluster:
              server: %s
        contexts:
          - name: mock
            context:
              cluster: mock
              user: mock
        current-context: mock
        users:
          - name: mock
            user:
              token: mock
        """
        .formatted(c.getMasterUrl().replaceAll("/$", ""));
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  /** The CRUD store, with API discovery answered before it. */
  private final class Discovery extends KubernetesCrudDispatcher {

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getPath().replaceAll("\\?.*$", "");
      if (request.getMethod().equals("GET")) {
        String body = discovery(path);
        if (body != null) {
          return new MockResponse()
              .setResponseCode(200)
              .addHeader("Content-Type", "application/json")
              .setBody(body);
        }
      }
      return super.dispatch(request);
    }

    private String discovery(String path) {
      Map<String, Map<String, List<APIResource>>> served = served();
      if (path.equals("/version")) {
        return JSON.asJson(
            Map.of(
                "major",
                "1",
                "minor",
                Chart.KUBE_VERSION.split("\\.")[1],
                "gitVersion",
                Chart.KUBE_VERSION,
                "platform",
                "linux/amd64"));
      }
      if (path.equals("/api")) {
        return JSON.asJson(new APIVersionsBuilder().withVersions("v1").build());
      }
      if (path.equals("/apis")) {
        List<APIGroup> groups = new ArrayList<>();
        served.forEach(
            (group, versions) -> {
              if (!group.isEmpty()) {
                List<String> vs = List.copyOf(versions.keySet());
                groups.add(
                    new APIGroupBuilder()
                        .withName(group)
                        .withVersions(
                            vs.stream()
                                .map(
                                    v ->
                                        new GroupVersionForDiscoveryBuilder()
                                            .withGroupVersion(group + "/" + v)
                                            .withVersion(v)
                                            .build())
                                .toList())
                        .withNewPreferredVersion()
                        .withGroupVersion(group + "/" + vs.get(0))
                        .withVersion(vs.get(0))
                        .endPreferredVersion()
                        .build());
              }
            });
        APIGroupList list = new APIGroupListBuilder().withGroups(groups).build();
        return JSON.asJson(list);
      }
      String[] parts = path.split("/");
      String group;
      String version;
      if (parts.length == 3 && parts[1].equals("api")) {
        group = "";
        version = parts[2];
      } else if (parts.length == 4 && parts[1].equals("apis")) {
        group = parts[2];
        version = parts[3];
      } else {
        return null;
      }
      List<APIResource> resources = served.getOrDefault(group, Map.of()).get(version);
      if (resources == null) {
        return null;
      }
      return JSON.asJson(
          new APIResourceListBuilder()
              .withGroupVersion(group.isEmpty() ? version : group + "/" + version)
              .withResources(resources)
              .build());
    }
  }

  /** group → version → resources, the built-in kinds and the installed CRDs'. */
  private Map<String, Map<String, List<APIResource>>> served() {
    Map<String, Map<String, List<APIResource>>> served = new TreeMap<>();
    for (Class<? extends HasMetadata> kind : KINDS) {
      String group = HasMetadata.getGroup(kind);
      add(
          served,
          group == null ? "" : group,
          // Strimzi 1.x serves kafka.strimzi.io/v1 only; its API model still names v1beta2.
          kind.getName().startsWith("io.strimzi.")
              ? ChartSchemas.STRIMZI_VERSION
              : HasMetadata.getVersion(kind),
          HasMetadata.getKind(kind),
          HasMetadata.getPlural(kind),
          Namespaced.class.isAssignableFrom(kind));
    }
    for (ResourceDefinitionContext crd : crds) {
      add(
          served,
          crd.getGroup(),
          crd.getVersion(),
          crd.getKind(),
          crd.getPlural(),
          crd.isNamespaceScoped());
    }
    return served;
  }

  private void add(
      Map<String, Map<String, List<APIResource>>> served,
      String group,
      String version,
      String kind,
      String plural,
      boolean namespaced) {
    served
        .computeIfAbsent(group, g -> new LinkedHashMap<>())
        .computeIfAbsent(version, v -> new ArrayList<>())
        .add(
            new APIResourceBuilder()
                .withName(plural)
                .withKind(kind)
                .withNamespaced(namespaced)
                .withVerbs("create", "delete", "get", "list", "patch", "update", "watch")
                .build());
  }
}
