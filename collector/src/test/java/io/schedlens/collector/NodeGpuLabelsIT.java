package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.schedlens.avro.PodObservation;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pod's observation carries what its node's labels say of its GPU resource (gpu.node-labels):
 * nodes labelled as NVIDIA's GPU feature discovery labels a time-sliced node and a mixed-strategy
 * MIG node, on fabric8's mock API server, and pods bound to them.
 */
class NodeGpuLabelsIT {

  static EmbeddedKafkaBroker broker;
  static MockKubernetes kube;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.start();
    kube = new MockKubernetes();
  }

  @AfterAll
  static void stop() {
    if (kube != null) {
      kube.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  private static Collector collector(String prefix, boolean nodeLabels) {
    List<String> args =
        List.of(
            "--kubernetes-master", kube.url(),
            "--namespaces", "serving",
            "--topic-prefix", prefix,
            "--http-port", "0",
            "--dcgm-discovery", "false",
            "--intake-auth", "none",
            "--workloads-watch", "false",
            "--queues-watch", "false",
            "--experiments-watch", "false",
            "--gpu-node-labels", Boolean.toString(nodeLabels));
    CollectorConfig config =
        CollectorConfig.from(
            CommandLineSettings.load(
                CollectorConfig.DEF,
                args,
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    Collector c = Collector.start(config, null, Clock.systemUTC());
    await().atMost(Duration.ofSeconds(30)).until(() -> c.readiness().ready());
    return c;
  }

  private static void node(String name, Map<String, String> labels) {
    kube.client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }

  private static void pod(String name, String node, String resource) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("serving")
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("server")
            .withImage("vllm/vllm-openai")
            .withNewResources()
            .addToLimits(resource, new Quantity("1"))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    kube.client.pods().inNamespace("serving").resource(pod).create();
  }

  private static Map<String, PodObservation> observed(TopicReader<PodObservation> pods, int n) {
    Map<String, PodObservation> byName = new HashMap<>();
    pods.readUntil(
        rs -> {
          for (ConsumerRecord<String, PodObservation> r : rs) {
            byName.put(r.value().getName(), r.value());
          }
          return byName.size() >= n;
        },
        Duration.ofSeconds(30));
    return byName;
  }

  @Test
  void shouldTellEachPodItsNodesReplicasSharingAndProduct() throws Exception {
    node(
        "t4-node",
        Map.of(
            "nvidia.com/gpu.replicas", "4",
            "nvidia.com/gpu.sharing-strategy", "time-slicing",
            "nvidia.com/gpu.product", "Tesla-T4-SHARED"));
    node(
        "h100-node",
        Map.of(
            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
            "nvidia.com/mig-1g.10gb.replicas", "1",
            "nvidia.com/mig-1g.10gb.sharing-strategy", "none"));
    pod("chat-0", "t4-node", "nvidia.com/gpu");
    pod("embed-0", "h100-node", "nvidia.com/mig-1g.10gb");
    pod("cpu-0", null, "cpu");
    Topics topics = Topics.withPrefix("nodes.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    try (Collector c = collector("nodes.", true);
        TopicReader<PodObservation> pods =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.pods.name(),
                topics.pods.valueSerde().deserializer())) {
      Map<String, PodObservation> byName = observed(pods, 3);

      PodObservation chat = byName.get("chat-0");
      assertThat(chat.getGpuReplicas()).isEqualTo(4);
      assertThat(chat.getGpuSharing()).isEqualTo("time-slicing");
      assertThat(chat.getGpuProduct()).isEqualTo("Tesla-T4-SHARED");
      PodObservation embed = byName.get("embed-0");
      assertThat(embed.getGpuResource()).isEqualTo("nvidia.com/mig-1g.10gb");
      assertThat(embed.getGpuReplicas()).isEqualTo(1);
      assertThat(embed.getGpuSharing()).isEqualTo("none");
      assertThat(embed.getGpuProduct()).isEqualTo("NVIDIA-H100-80GB-HBM3");
      PodObservation cpu = byName.get("cpu-0");
      assertThat(cpu.getGpuReplicas()).isNull();
      assertThat(cpu.getGpuProduct()).isNull();
    }
    // off: nothing of the nodes is read
    Topics off = Topics.withPrefix("nodes-off.");
    broker.createTopics(off.newTopics(1, (short) 1));
    try (Collector c = collector("nodes-off.", false);
        TopicReader<PodObservation> pods =
            new TopicReader<>(
                broker.bootstrapServers(), off.pods.name(), off.pods.valueSerde().deserializer())) {
      assertThat(observed(pods, 3).get("chat-0").getGpuReplicas()).isNull();
    }
  }
}
