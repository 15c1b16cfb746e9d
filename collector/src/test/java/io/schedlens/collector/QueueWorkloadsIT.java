package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.Fixtures;
import io.schedlens.testsupport.TopicReader;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kueue's Workloads through the collector on fabric8's mock API server in CRUD mode. A real Kueue
 * cannot run here: the Workloads of testdata/kueue are written as Kueue writes them (the watch
 * recording's states one after another), not by a Kueue controller. The collector starts on a
 * cluster without Kueue, finds the API once Kueue's CRD is installed, and tells each state of the
 * Workload as an observation of the Job it admits.
 */
class QueueWorkloadsIT {

  static EmbeddedKafkaBroker broker;
  static MockKubernetes kube;
  static final ObjectMapper JSON = new ObjectMapper();

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

  static final ResourceDefinitionContext WORKLOADS =
      new ResourceDefinitionContext.Builder()
          .withGroup("kueue.x-k8s.io")
          .withVersion("v1beta2")
          .withKind("Workload")
          .withPlural("workloads")
          .withNamespaced(true)
          .build();

  private static Collector collector(String prefix) {
    List<String> args =
        List.of(
            "--kubernetes-master", kube.url(),
            "--namespaces", "team-b",
            "--topic-prefix", prefix,
            "--http-port", "0",
            "--dcgm-discovery", "false",
            "--intake-auth", "none",
            "--workloads-watch", "false",
            "--experiments-watch", "false",
            "--owners-kinds", "",
            "--queues-discovery-interval", "1s");
    CollectorConfig config =
        CollectorConfig.from(
            CommandLineSettings.load(
                CollectorConfig.DEF,
                new ArrayList<>(args),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers())));
    Collector c = Collector.start(config, null, Clock.systemUTC());
    await().atMost(Duration.ofSeconds(30)).until(() -> c.readiness().ready());
    return c;
  }

  /** The watch recording's Workload states, in order. */
  static List<GenericKubernetesResource> states() throws Exception {
    List<GenericKubernetesResource> out = new ArrayList<>();
    Iterator<JsonNode> events =
        JSON.readerFor(JsonNode.class)
            .readValues(Fixtures.text("../kueue/workloads-requeued.watch.json"));
    while (events.hasNext()) {
      out.add(
          Serialization.unmarshal(
              events.next().get("object").toString(), GenericKubernetesResource.class));
    }
    return out;
  }

  @Test
  void findsKueueOnceInstalledAndTellsEachStateOfAWorkloadForTheJobItAdmits() throws Exception {
    Topics topics = Topics.withPrefix("kueue.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    try (Collector c = collector("kueue.");
        TopicReader<WorkloadObservation> workloads =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.workloads.name(),
                topics.workloads.valueSerde().deserializer())) {
      assertThat(c.metrics().queueWorkloadsWatched.collect().getDataPoints().get(0).getValue())
          .as("no Kueue yet: nothing watched, and ready all the same")
          .isZero();

      // Kueue is installed: its CRD (v0.19.2, both versions served).
      CustomResourceDefinition crd =
          kube.client
              .getKubernetesSerialization()
              .unmarshal(
                  Fixtures.text("../kueue/kueue.x-k8s.io_workloads.v0.19.2.pruned.yaml"),
                  CustomResourceDefinition.class);
      kube.client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  c.metrics().queueWorkloadsWatched.collect().getDataPoints().get(0).getValue()
                      == 1);

      // The preemptor's Workload, then the preempted one through its states.
      List<GenericKubernetesResource> states = states();
      GenericKubernetesResource preemptor = Serialization.clone(states.get(1));
      preemptor.getMetadata().setName("job-asr-urgent-1-9a1b2");
      preemptor.getMetadata().setUid(null);
      preemptor.getMetadata().setResourceVersion(null);
      preemptor.getMetadata().getOwnerReferences().get(0).setName("asr-urgent-1");
      preemptor.getMetadata().getOwnerReferences().get(0).setUid("urgent-job-uid");
      String preemptorUid =
          kube.client
              .genericKubernetesResources(WORKLOADS)
              .inNamespace("team-b")
              .resource(preemptor)
              .create()
              .getMetadata()
              .getUid();
      GenericKubernetesResource created = null;
      for (GenericKubernetesResource state : states) {
        String json =
            Serialization.asJson(state)
                .replace("7d2b9e10-4a3c-4f1e-8f5d-6b1c0a9e2d44", preemptorUid);
        GenericKubernetesResource w =
            Serialization.unmarshal(json, GenericKubernetesResource.class);
        w.getMetadata().setResourceVersion(null);
        var op = kube.client.genericKubernetesResources(WORKLOADS).inNamespace("team-b");
        if (created == null) {
          w.getMetadata().setUid(null);
          created = op.resource(w).create();
        } else {
          w.getMetadata().setUid(created.getMetadata().getUid());
          op.resource(w).update();
        }
      }

      List<WorkloadObservation> told = new ArrayList<>();
      workloads.readUntil(
          rs -> {
            told.clear(); // every record read so far, each time
            for (ConsumerRecord<String, WorkloadObservation> r : rs) {
              if (r.value().getName().equals("asr-batch-7")) {
                told.add(r.value());
              }
            }
            return told.size() >= 5;
          },
          Duration.ofSeconds(30));

      assertThat(told).hasSize(5);
      assertThat(told)
          .allSatisfy(
              o -> {
                assertThat(o.getKind()).isEqualTo("Job");
                assertThat(o.getUid()).isEqualTo("e3b3c1aa-51f4-4b8f-9a0b-2f9a4d9c6e70");
                assertThat(o.getQueueWorkload().getLocalQueue()).isEqualTo("team-b-queue");
                assertThat(o.getQueueWorkload().getApiVersion())
                    .isEqualTo("kueue.x-k8s.io/v1beta2");
              });
      assertThat(told.get(1).getQueueWorkload().getClusterQueue()).isEqualTo("team-b-cq");
      assertThat(told.get(2).getQueueWorkload().getConditions())
          .filteredOn(x -> x.getType().equals("Evicted"))
          .extracting(QueueCondition::getReason)
          .containsExactly("Preempted");
      assertThat(told.get(2).getQueueWorkload().getPreemptorUid()).isEqualTo(preemptorUid);
      assertThat(told.get(2).getQueueWorkload().getPreemptor())
          .as("the preemptor's Workload, known to the collector, admits this Job")
          .isEqualTo("team-b/Job/asr-urgent-1");
      assertThat(told.get(3).getQueueWorkload().getRequeueCount()).isEqualTo(1);
      assertThat(c.readiness().ready()).isTrue();
    }
  }
}
