package io.schedlens.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check --cluster} on a cluster that serves Kueue (fabric8's mock API server in CRUD mode
 * with Kueue's LocalQueue and WorkloadPriorityClass CRDs installed): the queues and classes the
 * manifests name are looked up there.
 */
class KueueCheckTest {

  static KubernetesMockServer server;
  static KubernetesClient admin;
  @TempDir static Path dir;

  static ResourceDefinitionContext kind(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup("kueue.x-k8s.io")
        .withVersion("v1beta2")
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  static void crd(String kind, String plural, String scope) {
    admin
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(
            new CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName(plural + ".kueue.x-k8s.io")
                .endMetadata()
                .withNewSpec()
                .withGroup("kueue.x-k8s.io")
                .withScope(scope)
                .withNewNames()
                .withKind(kind)
                .withPlural(plural)
                .endNames()
                .addNewVersion()
                .withName("v1beta2")
                .withServed(true)
                .withStorage(true)
                .endVersion()
                .endSpec()
                .build())
        .create();
  }

  @BeforeAll
  static void cluster() throws Exception {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init(InetAddress.getByName("127.0.0.1"), 0);
    admin = server.createClient();
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("gpu-a")
                .endMetadata()
                .withNewStatus()
                .withAllocatable(
                    Map.of("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8")))
                .endStatus()
                .build())
        .create();
    crd("LocalQueue", "localqueues", "Namespaced");
    crd("WorkloadPriorityClass", "workloadpriorityclasses", "Cluster");
    GenericKubernetesResource queue =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("kueue.x-k8s.io/v1beta2")
            .withKind("LocalQueue")
            .withNewMetadata()
            .withName("team-b-queue")
            .withNamespace("team-b")
            .endMetadata()
            .addToAdditionalProperties("spec", Map.of("clusterQueue", "team-b-cq"))
            .build();
    admin
        .genericKubernetesResources(kind("LocalQueue", "localqueues", true))
        .inNamespace("team-b")
        .resource(queue)
        .create();
    GenericKubernetesResource priority =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("kueue.x-k8s.io/v1beta2")
            .withKind("WorkloadPriorityClass")
            .withNewMetadata()
            .withName("asr-batch")
            .endMetadata()
            .addToAdditionalProperties("value", 100)
            .build();
    admin
        .genericKubernetesResources(kind("WorkloadPriorityClass", "workloadpriorityclasses", false))
        .resource(priority)
        .create();
  }

  @AfterAll
  static void stop() {
    admin.close();
    server.destroy();
  }

  static Path kubeconfig(String url) throws Exception {
    return Files.writeString(
        dir.resolve("kubeconfig.yaml"),
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s"}}]
        users: [{name: reader, user: {token: read-only}}]
        contexts: [{name: mock, context: {cluster: mock, user: reader}}]
        current-context: mock
        """
            .formatted(url));
  }

  static String job(String name, String labels) {
    return """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: %s
          namespace: team-b
          labels: {%s}
        spec:
          suspend: true
          template:
            metadata:
              annotations: {schedlens.io/checkpoint-interval: 5m}
            spec:
              restartPolicy: Never
              terminationGracePeriodSeconds: 30
              containers:
                - {name: asr, image: asr:1, resources: {limits: {nvidia.com/gpu: 1}}}
        """
        .formatted(name, labels);
  }

  @Test
  void shouldLookUpTheQueuesAndClassesTheJobsNameInTheCluster() throws Exception {
    String manifests =
        String.join(
            "---\n",
            job(
                "queued",
                "kueue.x-k8s.io/queue-name: team-b-queue,"
                    + " kueue.x-k8s.io/priority-class: asr-batch"),
            job("typo", "kueue.x-k8s.io/queue-name: team-b-queu"),
            job(
                "unknown-class",
                "kueue.x-k8s.io/queue-name: team-b-queue,"
                    + " kueue.x-k8s.io/priority-class: asr-urgent"),
            job("bypass", "app: asr"));
    Path file = Files.writeString(dir.resolve("jobs.yaml"), manifests);
    String url = admin.getMasterUrl().toString();
    ClusterCheckTest.Run r =
        ClusterCheckTest.run(
            "--cluster",
            "--kubeconfig",
            kubeconfig(url).toString(),
            "--context",
            "mock",
            file.toString());

    assertThat(r.err()).contains("Kueue is served there: 1 LocalQueues, 1 WorkloadPriorityClasses");
    List<Finding> kueue =
        ClusterCheckTest.findings(r.out()).stream()
            .filter(f -> f.rule().startsWith("kueue-"))
            .toList();
    assertThat(kueue)
        .extracting(Finding::severity, Finding::rule, Finding::object)
        .containsExactlyInAnyOrder(
            tuple(Finding.Severity.ERROR, "kueue-local-queue", "Job team-b/typo"),
            tuple(Finding.Severity.ERROR, "kueue-priority-class", "Job team-b/unknown-class"),
            tuple(Finding.Severity.WARNING, "kueue-queue-missing", "Job team-b/bypass"));
    assertThat(r.out())
        .contains("LocalQueue team-b-queu is neither among these manifests nor in namespace team-b")
        .contains("Kueue keeps the Job suspended (Inadmissible)");

    // Without --cluster, the queue the cluster has is unknown: a warning, not an error.
    ClusterCheckTest.Run offline = ClusterCheckTest.run(file.toString());
    assertThat(ClusterCheckTest.findings(offline.out()))
        .filteredOn(f -> f.rule().equals("kueue-local-queue"))
        .extracting(Finding::severity, Finding::object)
        .containsExactlyInAnyOrder(
            tuple(Finding.Severity.WARNING, "Job team-b/queued"),
            tuple(Finding.Severity.WARNING, "Job team-b/typo"),
            tuple(Finding.Severity.WARNING, "Job team-b/unknown-class"));
  }
}
