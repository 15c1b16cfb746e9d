package io.schedlens.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
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
 * {@code check --cluster} against fabric8's mock API server in CRUD mode (real HTTP on loopback),
 * reached through a kubeconfig file as a user would.
 */
class ClusterCheckTest {

  static KubernetesMockServer server;
  static KubernetesClient admin;

  @TempDir static Path dir;

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
    taintedGpuNode(
        "gpu-a",
        Map.of(
            "nvidia.com/gpu.present", "true",
            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"),
        Map.of("nvidia.com/gpu", new Quantity("8"), "cpu", new Quantity("96")));
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("gpu-big-cordoned")
                .withLabels(Map.of("nvidia.com/gpu.present", "true"))
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .withNewStatus()
                .withAllocatable(Map.of("nvidia.com/gpu", new Quantity("16")))
                .endStatus()
                .build())
        .create();
    // Two H100s partitioned into seven 1g.10gb slices each, labelled as the GPU Operator's
    // feature discovery labels a node under the mixed MIG strategy.
    taintedGpuNode(
        "mig-a",
        Map.of(
            "nvidia.com/gpu.present", "true",
            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
            "nvidia.com/mig.strategy", "mixed"),
        Map.of("nvidia.com/mig-1g.10gb", new Quantity("14"), "cpu", new Quantity("96")));
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("cpu-a")
                .endMetadata()
                .withNewStatus()
                .withAllocatable(Map.of("cpu", new Quantity("16")))
                .endStatus()
                .build())
        .create();
    admin
        .scheduling()
        .v1()
        .priorityClasses()
        .resource(
            new PriorityClassBuilder()
                .withNewMetadata()
                .withName("interactive")
                .endMetadata()
                .withValue(100000)
                .build())
        .create();
    admin
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace("ai-lab")
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("batch-guard")
                .withNamespace("ai-lab")
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new IntOrString("100%"))
                .withNewSelector()
                .withMatchLabels(Map.of("app", "embed"))
                .endSelector()
                .endSpec()
                .build())
        .create();
  }

  /** A GPU node with the GPU Operator's taint nvidia.com/gpu=present:NoSchedule. */
  private static void taintedGpuNode(
      String name, Map<String, String> labels, Map<String, Quantity> allocatable) {
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey("nvidia.com/gpu")
                .withValue("present")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .withNewStatus()
                .withAllocatable(allocatable)
                .endStatus()
                .build())
        .create();
  }

  @AfterAll
  static void stop() {
    admin.close();
    server.destroy();
  }

  static Path kubeconfig(String url) throws Exception {
    Path f = Files.createTempFile(dir, "kubeconfig", ".yaml");
    Files.writeString(
        f,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s"}}]
        users: [{name: reader, user: {token: read-only}}]
        contexts: [{name: mock, context: {cluster: mock, user: reader}}]
        current-context: mock
        """
            .formatted(url));
    return f;
  }

  record Run(int exit, String out, String err) {}

  static Run run(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        CheckCommand.run(
            List.of(args),
            InputStream.nullInputStream(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static final String WORKLOADS =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: chat, namespace: ai-lab}
      spec:
        replicas: 2
        selector: {matchLabels: {app: chat}}
        template:
          metadata: {labels: {app: chat}}
          spec:
            priorityClassName: interactive        # in the cluster only
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            nodeSelector: {nvidia.com/gpu.present: "true"}
            containers:
              - {name: server, image: llm:1, resources: {limits: {nvidia.com/gpu: 1}}}
      ---
      apiVersion: batch/v1
      kind: Job
      metadata: {name: embed, namespace: ai-lab}
      spec:
        template:
          metadata:
            labels: {app: embed}
            annotations: {schedlens.io/checkpoint-interval: 5m}
          spec:
            priorityClassName: embedding-batch    # nowhere
            restartPolicy: Never
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            containers:
              - {name: worker, image: e:1, resources: {limits: {nvidia.com/mig-3g.40gb: 1}}}
      ---
      apiVersion: batch/v1
      kind: Job
      metadata: {name: train, namespace: ai-lab}
      spec:
        template:
          metadata:
            annotations: {schedlens.io/checkpoint-interval: 5m}
          spec:
            priorityClassName: interactive
            restartPolicy: Never
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            containers:
              - {name: trainer, image: t:1, resources: {limits: {nvidia.com/gpu: 16}}}
      ---
      apiVersion: batch/v1
      kind: Job
      metadata: {name: untolerated, namespace: ai-lab}
      spec:
        template:
          metadata:
            annotations: {schedlens.io/checkpoint-interval: 5m}
          spec:
            priorityClassName: interactive
            restartPolicy: Never
            tolerations: [{key: nvidia/gpu, operator: Exists, effect: NoSchedule}]
            containers:
              - {name: w, image: w:1, resources: {limits: {nvidia.com/gpu: 1}}}
      ---
      apiVersion: apps/v1
      kind: StatefulSet
      metadata: {name: pinned, namespace: ai-lab}
      spec:
        selector: {matchLabels: {app: pinned}}
        template:
          metadata: {labels: {app: pinned}}
          spec:
            priorityClassName: interactive
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
            containers:
              - {name: s, image: s:1, resources: {limits: {nvidia.com/gpu: 1}}}
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: small-chat, namespace: ai-lab}
      spec:
        selector: {matchLabels: {app: small-chat}}
        template:
          metadata: {labels: {app: small-chat}}
          spec:
            priorityClassName: interactive
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            nodeSelector: {nvidia.com/mig.strategy: mixed}
            containers:
              - {name: s, image: s:1, resources: {limits: {nvidia.com/gpu: 1}}}
      """;

  @Test
  void shouldJudgeTheWorkloadsAgainstTheLiveClustersNodesClassesAndBudgets() throws Exception {
    Path manifests = Files.writeString(dir.resolve("workloads.yaml"), WORKLOADS);
    String url = admin.getMasterUrl().toString();
    Run r =
        run(
            "--cluster",
            "--kubeconfig",
            kubeconfig(url).toString(),
            "--context",
            "mock",
            manifests.toString());
    assertThat(r.err())
        .contains("read 4 nodes, 1 PriorityClasses and 1 PodDisruptionBudgets from " + url);
    List<Finding> findings = findings(r.out());
    assertThat(findings)
        .extracting(Finding::severity, Finding::rule, Finding::object)
        .containsExactlyInAnyOrder(
            tuple(Finding.Severity.ERROR, "priority-class", "Job ai-lab/embed"),
            tuple(Finding.Severity.ERROR, "cluster-gpu", "Job ai-lab/embed"),
            tuple(
                Finding.Severity.ERROR,
                "disruption-budget",
                "PodDisruptionBudget ai-lab/batch-guard (in the cluster)"),
            tuple(Finding.Severity.ERROR, "cluster-gpu", "Job ai-lab/train"),
            tuple(Finding.Severity.ERROR, "cluster-taint", "Job ai-lab/untolerated"),
            tuple(Finding.Severity.WARNING, "cluster-toleration", "Job ai-lab/untolerated"),
            tuple(Finding.Severity.ERROR, "cluster-node-selector", "StatefulSet ai-lab/pinned"),
            tuple(Finding.Severity.ERROR, "cluster-gpu", "Deployment ai-lab/small-chat"));
    assertThat(r.exit()).isEqualTo(CheckCommand.FOUND);
    assertThat(r.out())
        .contains(
            "neither among these manifests nor in the cluster (" + url + ", which has interactive)")
        .contains(
            "no node has nvidia.com/mig-3g.40gb at all; they offer nvidia.com/gpu (8 on 1"
                + " node(s)), nvidia.com/mig-1g.10gb (14 on 1 node(s))")
        // whole GPUs asked for where the nodes it selects are partitioned into MIG slices
        .contains(
            "a pod asks for 1 nvidia.com/gpu but no schedulable node of "
                + url
                + " that its node selector and affinity allow has that many allocatable (no node"
                + " has nvidia.com/gpu at all; they offer nvidia.com/mig-1g.10gb (14 on 1"
                + " node(s)))")
        .contains("ask for what the nodes offer (nvidia.com/mig-1g.10gb: a MIG profile's memory")
        .contains("the most is 8 on gpu-a") // the 16-GPU node is cordoned
        .contains("nvidia.com/gpu=present:NoSchedule on 1 node(s)")
        .contains("the nodes have nvidia.com/gpu.product = NVIDIA-H100-80GB-HBM3");

    // Without --cluster the same files raise none of the cluster rules, and the class the cluster
    // has is unknown.
    Run offline = run(manifests.toString());
    assertThat(findings(offline.out())).noneMatch(f -> f.rule().startsWith("cluster-"));
    assertThat(offline.out())
        .contains(
            "PriorityClass interactive is neither among these manifests nor declared external");
  }

  @Test
  void shouldSayWhichClusterCannotBeReadAndExitThree() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port;
    Path manifests = Files.writeString(dir.resolve("one.yaml"), WORKLOADS);
    long start = System.nanoTime();
    Run r = run("--cluster", "--kubeconfig", kubeconfig(url).toString(), manifests.toString());
    assertThat(r.exit()).isEqualTo(CheckCommand.CLUSTER_UNREADABLE);
    assertThat(r.err()).contains("cannot read the cluster at " + url).contains("--kubeconfig");
    assertThat(r.out()).isEmpty();
    Run noFile =
        run("--cluster", "--kubeconfig", dir.resolve("absent").toString(), manifests.toString());
    assertThat(noFile.exit()).isEqualTo(CheckCommand.CLUSTER_UNREADABLE);
    assertThat(noFile.err()).contains("cannot build a Kubernetes client for --cluster from");
    assertThat((System.nanoTime() - start) / 1_000_000_000)
        .as("gives up in seconds")
        .isLessThan(30);
  }

  /** The findings of a text report, by their first lines. */
  static List<Finding> findings(String text) {
    return text.lines()
        .filter(l -> l.startsWith("ERROR [") || l.startsWith("WARNING ["))
        .map(
            l -> {
              String severity = l.substring(0, l.indexOf(' '));
              String rule = l.substring(l.indexOf('[') + 1, l.indexOf(']'));
              String rest = l.substring(l.indexOf(']') + 2);
              String[] parts = rest.split(" ");
              String object = parts[0] + " " + parts[1];
              if (rest.contains("(in the cluster)")) {
                object += " (in the cluster)";
              }
              return new Finding(
                  Finding.Severity.valueOf(severity), rule, object, "", "", "", null, 0);
            })
        .toList();
  }
}
