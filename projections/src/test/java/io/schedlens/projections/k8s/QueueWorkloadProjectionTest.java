package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.base.Rfc3339;
import io.schedlens.testsupport.Fixtures;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kueue's Workloads, as Kueue writes them (testdata/kueue), to observations. */
class QueueWorkloadProjectionTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static GenericKubernetesResource first(String file) {
    return Serialization.unmarshal(
            Fixtures.text("../kueue/" + file), GenericKubernetesResourceList.class)
        .getItems()
        .get(0);
  }

  /** The objects of a watch recording, in order. */
  static List<GenericKubernetesResource> watched(String file) throws Exception {
    List<GenericKubernetesResource> out = new ArrayList<>();
    Iterator<JsonNode> events =
        JSON.readerFor(JsonNode.class).readValues(Fixtures.text("../kueue/" + file));
    while (events.hasNext()) {
      out.add(
          Serialization.unmarshal(
              events.next().get("object").toString(), GenericKubernetesResource.class));
    }
    return out;
  }

  @Test
  void anAdmittedJobsWorkloadIsAnObservationOfItsJob() {
    List<WorkloadObservation> out =
        QueueWorkloadProjection.project(
            first("workload-admitted.v1beta2.json"), ChangeType.ADDED, 5L, uid -> null);

    assertThat(out).hasSize(1);
    WorkloadObservation o = out.get(0);
    assertThat(o.getNamespace()).isEqualTo("my-namespace");
    assertThat(o.getKind()).isEqualTo("Job");
    assertThat(o.getName()).isEqualTo("my-job");
    assertThat(o.getUid()).isEqualTo("9f0b6f43-6c1e-4b0e-8a8e-0c2f6f1d7b11");
    assertThat(o.getDesired()).isZero();
    QueueWorkload q = o.getQueueWorkload();
    assertThat(q.getName()).isEqualTo("job-my-job-19797");
    assertThat(q.getApiVersion()).isEqualTo("kueue.x-k8s.io/v1beta2");
    assertThat(q.getLocalQueue()).isEqualTo("user-queue");
    assertThat(q.getClusterQueue()).isEqualTo("cluster-queue");
    assertThat(q.getPriorityClass()).isEqualTo("batch-high");
    assertThat(q.getPriority()).isEqualTo(1000);
    assertThat(q.getCreatedAt()).isEqualTo(Rfc3339.toEpochMilli("2024-03-19T20:31:02Z"));
    assertThat(q.getConditions())
        .extracting(QueueCondition::getType, QueueCondition::getStatus)
        .containsExactly(tuple("Admitted", "True"), tuple("QuotaReserved", "True"));
    assertThat(q.getConditions().get(0).getLastTransitionTime())
        .isEqualTo(Rfc3339.toEpochMilli("2024-03-19T20:49:17Z"));
    assertThat(q.getPreemptorUid()).isNull();
  }

  @Test
  void aPreemptedWorkloadNamesItsPreemptorAndTheObjectItAdmitsWhenKnown() throws Exception {
    GenericKubernetesResource preempted = watched("workloads-requeued.watch.json").get(2);
    QueueWorkload q =
        QueueWorkloadProjection.project(
                preempted,
                ChangeType.MODIFIED,
                5L,
                uid ->
                    uid.equals("7d2b9e10-4a3c-4f1e-8f5d-6b1c0a9e2d44")
                        ? "team-b/Job/asr-urgent-1"
                        : null)
            .get(0)
            .getQueueWorkload();

    assertThat(q.getPreemptorUid()).isEqualTo("7d2b9e10-4a3c-4f1e-8f5d-6b1c0a9e2d44");
    assertThat(q.getPreemptorJobUid()).isEqualTo("c41f2a9b-0e6d-4b7a-9c3e-1d5f8a2b6e93");
    assertThat(q.getPreemptor()).isEqualTo("team-b/Job/asr-urgent-1");
    assertThat(q.getClusterQueue()).as("no quota reserved after the eviction").isNull();
    assertThat(q.getConditions())
        .filteredOn(c -> c.getType().equals("Preempted"))
        .singleElement()
        .extracting(QueueCondition::getReason)
        .isEqualTo("InClusterQueue");
  }

  @Test
  void aReadmittedWorkloadNamesNoPreemptor() throws Exception {
    // Kueue resets Evicted and Preempted to False ("Previously: …") when it admits again.
    QueueWorkload q =
        QueueWorkloadProjection.queueWorkload(
            watched("workloads-requeued.watch.json").get(3), uid -> "x");
    assertThat(q.getPreemptorUid()).isNull();
    assertThat(q.getPreemptor()).isNull();
    assertThat(q.getRequeueCount()).isEqualTo(1);
  }

  @Test
  void theOlderMessageWithoutUidsNamesNoPreemptor() {
    assertThat(
            QueueWorkloadProjection.preemptor(
                List.of(
                    new QueueCondition(
                        "Evicted",
                        "True",
                        "Preempted",
                        "Preempted to accommodate a higher priority Workload",
                        1L))))
        .isNull();
    String[] unknown =
        QueueWorkloadProjection.preemptor(
            List.of(
                new QueueCondition(
                    "Preempted",
                    "True",
                    "InCohortReclamation",
                    "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to"
                        + " reclamation within the cohort; preemptor path: UNKNOWN; preemptee"
                        + " path: UNKNOWN",
                    1L)));
    assertThat(unknown).containsExactly(null, null);
  }

  @Test
  void aV1beta1WorkloadEvictedForPodsReadyTimeoutKeepsItsBackOff() {
    QueueWorkload q =
        QueueWorkloadProjection.queueWorkload(
            first("workload-podsready-timeout.v1beta1.json"), uid -> null);
    assertThat(q.getApiVersion()).isEqualTo("kueue.x-k8s.io/v1beta1");
    assertThat(q.getPriorityClass()).as("an empty priorityClassName is none").isNull();
    assertThat(q.getRequeueCount()).isEqualTo(1);
    assertThat(q.getRequeueAt()).isEqualTo(Rfc3339.toEpochMilli("2024-04-18T10:04:12Z"));
    assertThat(q.getConditions())
        .filteredOn(c -> c.getType().equals("Evicted"))
        .singleElement()
        .extracting(QueueCondition::getReason)
        .isEqualTo("PodsReadyTimeout");
    assertThat(q.getPreemptorUid()).isNull();
  }

  @Test
  void aPodGroupsWorkloadIsAnObservationOfEachOfItsPods() {
    List<WorkloadObservation> out =
        QueueWorkloadProjection.project(
            first("workload-pod-group.v1beta1.json"), ChangeType.ADDED, 5L, uid -> null);
    assertThat(out)
        .extracting(WorkloadObservation::getKind, WorkloadObservation::getName)
        .containsExactly(tuple("Pod", "embed-group-0"), tuple("Pod", "embed-group-1"));
    assertThat(out.get(0).getQueueWorkload().getLocalQueue()).isEqualTo("team-a-queue");
  }

  @Test
  void aWorkloadOwnedByAPodWithAControllerOfItsOwnGivesNothing() {
    GenericKubernetesResource w = first("workload-pod-group.v1beta1.json");
    w.getMetadata().setOwnerReferences(List.of());
    assertThat(QueueWorkloadProjection.project(w, ChangeType.ADDED, 5L, uid -> null)).isEmpty();
  }

  /**
   * Every field of every fixture is a field of the served version's schema in Kueue's CRD, so the
   * fixtures are objects Kueue's API server accepts as far as their names go.
   */
  @Test
  void everyFixtureFieldIsInTheCrdOfItsVersion() throws Exception {
    JsonNode crd =
        new ObjectMapper(new YAMLFactory())
            .readTree(Fixtures.text("../kueue/kueue.x-k8s.io_workloads.v0.19.2.pruned.yaml"));
    List<GenericKubernetesResource> objects = new ArrayList<>();
    objects.add(first("workload-admitted.v1beta2.json"));
    objects.add(first("workload-podsready-timeout.v1beta1.json"));
    objects.add(first("workload-pod-group.v1beta1.json"));
    objects.addAll(watched("workloads-requeued.watch.json"));
    for (GenericKubernetesResource o : objects) {
      String version = o.getApiVersion().substring(o.getApiVersion().indexOf('/') + 1);
      JsonNode schema = null;
      for (JsonNode v : crd.path("spec").path("versions")) {
        if (v.path("name").asText().equals(version) && v.path("served").asBoolean()) {
          schema = v.path("schema").path("openAPIV3Schema");
        }
      }
      assertThat(schema).as("%s is served", version).isNotNull();
      JsonNode tree = JSON.valueToTree(o.getAdditionalProperties());
      List<String> unknown = new ArrayList<>();
      fieldsIn(schema, tree, "", unknown);
      assertThat(unknown)
          .as("fields of %s not in the %s schema", o.getMetadata().getName(), version)
          .isEmpty();
    }
    List<String> served = new ArrayList<>();
    crd.path("spec").path("versions").forEach(v -> served.add(v.path("name").asText()));
    assertThat(QueueWorkloadProjection.VERSIONS).containsExactlyInAnyOrderElementsOf(served);
  }

  private static void fieldsIn(JsonNode schema, JsonNode value, String path, List<String> unknown) {
    if (value.isObject()) {
      JsonNode props = schema.path("properties");
      if (props.isMissingNode()
          || schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
        return; // a map (additionalProperties) or a subtree cut from the vendored copy
      }
      for (Map.Entry<String, JsonNode> f : value.properties()) {
        JsonNode sub = props.get(f.getKey());
        if (sub == null) {
          unknown.add(path + "." + f.getKey());
        } else {
          fieldsIn(sub, f.getValue(), path + "." + f.getKey(), unknown);
        }
      }
    } else if (value.isArray()) {
      for (JsonNode item : value) {
        fieldsIn(schema.path("items"), item, path + "[]", unknown);
      }
    }
  }
}
