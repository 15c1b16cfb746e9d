package io.schedlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.schedlens.base.KubeTime;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.PodTruth;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bundled {@code kueue} scenario through the simulator, held against Kueue's documented
 * behaviour (kueue.sigs.k8s.io: concepts/cluster_queue, concepts/preemption; the Job integration):
 * a queued Job has no pod before its Workload is admitted; a ClusterQueue holds at most its nominal
 * quota plus what its cohort leaves unused; a Workload that fits its nominal quota reclaims what a
 * cohort member borrowed; within a ClusterQueue only a higher priority preempts; a Workload's
 * conditions are the ones Kueue writes.
 */
class KueueSimulationTest {

  static final long ORIGIN = 1_767_225_600_000L;

  /** Every write of the run, in order: Workloads and Jobs as the API would have them. */
  static final List<HasMetadata> objects = new ArrayList<>();

  /** The deletions among {@link #objects} (the same instances). */
  static final List<HasMetadata> deleted = new ArrayList<>();

  static final List<Pod> podsCreated = new ArrayList<>();
  static List<PodTruth> truth;

  @BeforeAll
  static void simulate() throws Exception {
    Scenario s = ScenarioLoader.load("kueue");
    ClusterWriter writer =
        new ClusterWriter() {
          @Override
          public void createPod(Pod pod) {
            podsCreated.add(pod);
          }

          @Override
          public void updatePod(Pod pod) {}

          @Override
          public void updatePodStatus(Pod pod) {}

          @Override
          public void deletePod(String namespace, String name) {}

          @Override
          public void schedulerEvent(Event event) {}

          @Override
          public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {}

          @Override
          public void applyObject(HasMetadata o) {
            objects.add(o);
          }

          @Override
          public void deleteObject(HasMetadata o) {
            deleted.add(o);
            objects.add(o);
          }
        };
    truth =
        new Simulator(s, ORIGIN)
            .run(writer, RequestSink.NONE, Simulator.Pacer.NONE, Simulator.Progress.NONE);
    if (Boolean.getBoolean("kueue.trace")) {
      for (GenericKubernetesResource w : workloads()) {
        Map<?, ?> st = (Map<?, ?>) w.getAdditionalProperties().get("status");
        StringBuilder b = new StringBuilder(w.getMetadata().getName() + " " + armOf(w));
        for (Object c : (List<?>) st.get("conditions")) {
          Map<?, ?> m = (Map<?, ?>) c;
          b.append(" | ")
              .append(m.get("type"))
              .append("=")
              .append(m.get("status"))
              .append(" ")
              .append(m.get("reason"))
              .append(" ")
              .append(m.get("lastTransitionTime"));
        }
        System.out.println(b);
      }
    }
  }

  static List<GenericKubernetesResource> workloads() {
    return objects.stream()
        .filter(o -> o.getKind().equals("Workload"))
        .map(GenericKubernetesResource.class::cast)
        .toList();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> condition(GenericKubernetesResource w, String type) {
    Map<String, Object> status = (Map<String, Object>) w.getAdditionalProperties().get("status");
    for (Map<String, Object> c : (List<Map<String, Object>>) status.get("conditions")) {
      if (c.get("type").equals(type)) {
        return c;
      }
    }
    return null;
  }

  static boolean isTrue(GenericKubernetesResource w, String type) {
    Map<String, Object> c = condition(w, type);
    return c != null && "True".equals(c.get("status"));
  }

  @Test
  void shouldCreateEveryQueuedJobSuspendedAndItsPodsOnlyOnceAdmitted() {
    List<Job> jobs =
        objects.stream()
            .filter(o -> o instanceof Job)
            .map(Job.class::cast)
            .filter(j -> j.getMetadata().getLabels().containsKey("kueue.x-k8s.io/queue-name"))
            .toList();
    assertThat(jobs).isNotEmpty();
    Map<String, Job> first = new HashMap<>();
    jobs.forEach(j -> first.putIfAbsent(j.getMetadata().getUid(), j));
    assertThat(first.values()).allMatch(j -> j.getSpec().getSuspend());

    List<PodTruth> queued = truth.stream().filter(t -> t.queue() != null).toList();
    assertThat(queued).isNotEmpty();
    for (PodTruth t : queued) {
      assertThat(t.admittedAt()).as(t.name()).isNotNull().isLessThanOrEqualTo(t.createdAt());
      assertThat(t.queueWaitMs()).as(t.name()).isNotNull().isNotNegative();
    }
    assertThat(truth)
        .filteredOn(t -> t.workload().equals("interactive-inference"))
        .isNotEmpty()
        .allMatch(t -> t.queue() == null, "outside Kueue");
    assertThat(queued).as("some Job waited for quota").anyMatch(t -> t.queueWaitMs() > 60_000);
  }

  /** Replays the Workload writes: GPUs held (status.admission) per ClusterQueue over time. */
  @Test
  @SuppressWarnings("unchecked")
  void shouldNeverAdmitBeyondNominalQuotaAndWhatTheCohortLeaves() {
    Map<String, Integer> holding = new HashMap<>(); // workload uid -> GPUs
    Map<String, String> queueOf = new HashMap<>();
    for (GenericKubernetesResource w : workloads()) {
      Map<String, Object> status = (Map<String, Object>) w.getAdditionalProperties().get("status");
      Map<String, Object> admission = (Map<String, Object>) status.get("admission");
      String uid = w.getMetadata().getUid();
      if (admission == null || deleted.stream().anyMatch(d -> d == w)) {
        holding.remove(uid);
      } else {
        Map<String, Object> a =
            ((List<Map<String, Object>>) admission.get("podSetAssignments")).get(0);
        int gpus =
            Integer.parseInt(((Map<String, String>) a.get("resourceUsage")).get("nvidia.com/gpu"));
        holding.put(uid, gpus);
        queueOf.put(uid, (String) admission.get("clusterQueue"));
      }
      if (isTrue(w, "Finished")) {
        holding.remove(uid);
      }
      Map<String, Integer> perQueue = new HashMap<>();
      holding.forEach((u, g) -> perQueue.merge(queueOf.get(u), g, Integer::sum));
      int cohort = perQueue.values().stream().mapToInt(Integer::intValue).sum();
      assertThat(cohort).as("the cohort's GPUs: 6 + 6").isLessThanOrEqualTo(12);
    }
  }

  @Test
  void shouldReclaimBorrowedQuotaForTheAsrQueueAndTellItAsKueueDoes() {
    List<GenericKubernetesResource> reclaimed =
        workloads().stream()
            .filter(
                w ->
                    isTrue(w, "Preempted")
                        && "InCohortReclamation".equals(condition(w, "Preempted").get("reason")))
            .toList();
    assertThat(reclaimed).as("embedding Workloads reclaimed by team-asr").isNotEmpty();
    for (GenericKubernetesResource w : reclaimed) {
      assertThat(w.getMetadata().getName()).startsWith("job-embedding-");
      Map<String, Object> evicted = condition(w, "Evicted");
      assertThat(evicted.get("status")).isEqualTo("True");
      assertThat(evicted.get("reason")).isEqualTo("Preempted");
      assertThat((String) evicted.get("message"))
          .matches(
              "Preempted to accommodate a workload \\(UID: [0-9a-f-]{36}, JobUID: [0-9a-f-]{36}\\)"
                  + " due to reclamation within the cohort; preemptor path:"
                  + " /batch/team-asr; preemptee path: /batch/team-embed");
    }
    List<PodTruth> victims =
        truth.stream().filter(t -> "queue-preemption".equals(t.cause())).toList();
    assertThat(victims).isNotEmpty();
    for (PodTruth v : victims) {
      assertThat(v.outcome()).as(v.name()).isEqualTo("Preempted");
      assertThat(v.preemptorUid()).as("no one pod preempted it").isNull();
      assertThat(v.wastedGpuSeconds()).as(v.name()).isNotNull();
    }
    // Re-queued: the Requeued condition, and a later admission that waited from it.
    List<GenericKubernetesResource> readmitted =
        workloads().stream().filter(w -> isTrue(w, "Requeued") && isTrue(w, "Admitted")).toList();
    assertThat(readmitted).as("a reclaimed Workload admitted again").isNotEmpty();
    for (PodTruth t : truth) {
      if (t.queue() != null && victims.stream().anyMatch(v -> v.name().equals(t.name()))) {
        assertThat(t.admittedAt()).isLessThan(t.preemptedAt());
      }
    }
  }

  @Test
  void shouldPreemptWithinAQueueOnlyForAHigherPriority() {
    List<GenericKubernetesResource> inQueue =
        workloads().stream()
            .filter(
                w ->
                    isTrue(w, "Preempted")
                        && "InClusterQueue".equals(condition(w, "Preempted").get("reason")))
            .toList();
    assertThat(inQueue)
        .as("only the treatment has priorities")
        .isNotEmpty()
        .allMatch(w -> "treatment".equals(armOf(w)));
    assertThat(inQueue)
        .allSatisfy(
            w -> {
              assertThat(w.getMetadata().getName()).startsWith("job-embedding-routine-");
              assertThat(((Map<?, ?>) w.getAdditionalProperties().get("spec")).get("priority"))
                  .isEqualTo(1000);
            });
  }

  /** The arm of the Job a Workload admits (Kueue copies no label of the Job to its Workload). */
  static String armOf(GenericKubernetesResource w) {
    String job = w.getMetadata().getOwnerReferences().get(0).getUid();
    return objects.stream()
        .filter(o -> o instanceof Job && o.getMetadata().getUid().equals(job))
        .map(o -> o.getMetadata().getLabels().get("schedlens.io/arm"))
        .findFirst()
        .orElse(null);
  }

  @Test
  void shouldCountASecondWaitFromTheRequeuedCondition() {
    for (PodTruth t : truth) {
      if (t.queue() == null) {
        continue;
      }
      GenericKubernetesResource admitted =
          workloads().stream()
              .filter(
                  w ->
                      isTrue(w, "Admitted")
                          && KubeTime.millis(
                                  (String) condition(w, "Admitted").get("lastTransitionTime"))
                              == KubeTime.truncated(t.admittedAt()))
              .filter(
                  w ->
                      w.getMetadata()
                          .getName()
                          .contains(t.name().substring(0, t.name().lastIndexOf('-'))))
              .findFirst()
              .orElseThrow();
      Map<String, Object> requeued = condition(admitted, "Requeued");
      long since =
          requeued == null
              ? KubeTime.millis(admitted.getMetadata().getCreationTimestamp())
              : KubeTime.millis((String) requeued.get("lastTransitionTime"));
      long seen =
          KubeTime.millis((String) condition(admitted, "Admitted").get("lastTransitionTime"));
      assertThat(seen - since - t.queueWaitMs()).as(t.name()).isBetween(-1000L, 1000L);
    }
  }
}
