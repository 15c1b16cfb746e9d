package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.schedlens.avro.TopController;
import io.schedlens.projections.recorded.RecordedObjects;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.testsupport.Fixtures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pod's workload followed up its controller chain, on the objects of testdata/controllers (as the
 * controllers write them) and a real Deployment recording: each pod's top controller, with every
 * object read; with the objects unknown, where the chain ends.
 */
class OwnerChainTest {

  /** The recording's objects by UID, its pods by name. */
  private record Recording(Map<String, OwnerChain.Owner> byUid, Map<String, Pod> pods) {

    static Recording of(String... fixtures) {
      Map<String, OwnerChain.Owner> byUid = new HashMap<>();
      Map<String, Pod> pods = new HashMap<>();
      for (String fixture : fixtures) {
        Unusable unusable = new Unusable();
        for (RecordedObjects.Item item : RecordedObjects.read(Fixtures.text(fixture), unusable)) {
          if (item instanceof RecordedObjects.OwnerItem o) {
            byUid.put(o.owner().uid(), o.owner());
          } else if (item instanceof RecordedObjects.PodItem p) {
            byUid.put(p.pod().getMetadata().getUid(), OwnerChain.Owner.of(p.pod()));
            pods.put(p.pod().getMetadata().getName(), p.pod());
          }
        }
        assertThat(unusable.counts()).as(fixture).doesNotContainKey(RecordedObjects.OTHER_KIND);
      }
      return new Recording(byUid, pods);
    }

    TopController top(String pod) {
      return top(pod, (namespace, ref) -> ref.uid() == null ? null : byUid.get(ref.uid()));
    }

    TopController top(String pod, OwnerChain.Lookup lookup) {
      Pod p = pods.get(pod);
      assertThat(p).as("pod %s in the recording", pod).isNotNull();
      return OwnerChain.top(
          p.getMetadata().getNamespace(),
          OwnerChain.Ref.controllerOf(p.getMetadata().getOwnerReferences()),
          p.getMetadata().getLabels(),
          lookup);
    }
  }

  private static TopController of(String apiVersion, String kind, String name, String uid) {
    return new TopController(apiVersion, kind, name, uid);
  }

  @Test
  void shouldFollowARealDeploymentsReplicaSetToTheDeployment() {
    Recording r = Recording.of("events/kspan-kind-deployment-2-pods-watch-recording.yaml");
    assertThat(r.top("px-5d567cc74c-ss4lb"))
        .isEqualTo(of("apps/v1", "Deployment", "px", "71c42017-61a7-418e-8e2c-897cf237d6e3"));
    // without the ReplicaSet, its name and the pod's template hash still name the Deployment
    assertThat(r.top("px-5d567cc74c-ss4lb", OwnerChain.NONE))
        .isEqualTo(of("apps/v1", "Deployment", "px", null));
  }

  @Test
  void shouldFollowARealArgoRolloutsReplicaSetToTheRollout() {
    Recording r =
        Recording.of(
            "../controllers/argo-rollouts-canary-rollout.yaml",
            "../controllers/argo-rollouts-canary-rs.yaml",
            "../controllers/argo-rollouts-canary-pod.yaml");
    assertThat(r.top("canary-demo-65fb5ffc84-9wf5r"))
        .isEqualTo(
            of(
                "argoproj.io/v1alpha1",
                "Rollout",
                "canary-demo",
                "b350ba76-f6ed-11e9-a15b-42010aa80033"));
    assertThat(r.top("canary-demo-65fb5ffc84-9wf5r", OwnerChain.NONE))
        .as("by rollouts-pod-template-hash")
        .isEqualTo(of("argoproj.io/v1alpha1", "Rollout", "canary-demo", null));
  }

  @Test
  void shouldGroupEveryJobOfAJobSetUnderTheJobSet() {
    Recording r = Recording.of("../controllers/jobset-network-jobset.yaml");
    TopController jobSet =
        of(
            "jobset.x-k8s.io/v1alpha2",
            "JobSet",
            "network-jobset",
            "5f0b3c1e-2d4a-4c61-9a8e-7b21c0d4e911");
    assertThat(r.top("network-jobset-leader-0-0-2qphg")).isEqualTo(jobSet);
    assertThat(r.top("network-jobset-workers-0-0-g5n2t")).isEqualTo(jobSet);
    assertThat(r.top("network-jobset-leader-0-0-2qphg", OwnerChain.NONE))
        .as("without the Jobs, each Job is a workload")
        .isEqualTo(
            of(
                "batch/v1",
                "Job",
                "network-jobset-leader-0",
                "88683b1c-7d3b-4108-a28c-a5382e876e01"));
  }

  @Test
  void shouldFollowATrainJobThroughItsJobSet() {
    Recording r = Recording.of("../controllers/trainjob-pytorch.yaml");
    assertThat(r.top("pytorch-mnist-node-0-0-4kq8d"))
        .isEqualTo(
            of(
                "trainer.kubeflow.org/v1alpha1",
                "TrainJob",
                "pytorch-mnist",
                "1a3c5e7a-9b2d-4f6e-8a0c-2e4a6c8e0b13"));
  }

  @Test
  void shouldFollowLeaderWorkerSetWorkersThroughTheirLeaderPod() {
    Recording r = Recording.of("../controllers/lws-vllm.yaml");
    TopController lws =
        of(
            "leaderworkerset.x-k8s.io/v1",
            "LeaderWorkerSet",
            "vllm",
            "9a1f0e6c-3b2d-47c8-8e5a-1d0c4b7f2e63");
    assertThat(r.top("vllm-0")).isEqualTo(lws);
    assertThat(r.top("vllm-0-1"))
        .as("worker StatefulSet → leader pod → leader StatefulSet")
        .isEqualTo(lws);
  }

  @Test
  void shouldFollowARayJobsClusterAndKServesDeployment() {
    assertThat(
            Recording.of("../controllers/kuberay-rayjob.yaml")
                .top("rayjob-sample-x7k2q-head-9p4tz"))
        .isEqualTo(
            of("ray.io/v1", "RayJob", "rayjob-sample", "0b7e5c3a-1d9f-4e2b-86a4-f2c0e8d6b4a1"));
    assertThat(
            Recording.of("../controllers/kserve-raw-sklearn-iris.yaml")
                .top("sklearn-iris-predictor-6d4f8b7c9d-2xw7n"))
        .isEqualTo(
            of(
                "serving.kserve.io/v1beta1",
                "InferenceService",
                "sklearn-iris",
                "4a6c8e0a-2c4e-4a6c-8e0a-2c4e6a8c0e2a"));
  }

  @Test
  void shouldKeepACronJobsRunAsAWorkloadOfItsOwn() {
    assertThat(Recording.of("../controllers/cronjob-run.yaml").top("cronjob1-28413736-bpz85"))
        .isEqualTo(
            of("batch/v1", "Job", "cronjob1-28413736", "e25ce59b-1069-4775-99e6-a656b6aa448d"));
  }

  @Test
  void shouldEndAChainAtAnObjectItCannotReadAndAtACycle() {
    OwnerChain.Ref rs = new OwnerChain.Ref("apps/v1", "ReplicaSet", "legacy", "rs-1");
    assertThat(OwnerChain.top("ns", rs, Map.of(), OwnerChain.NONE))
        .as("no template hash: the ReplicaSet itself")
        .isEqualTo(of("apps/v1", "ReplicaSet", "legacy", "rs-1"));
    OwnerChain.Ref a = new OwnerChain.Ref("x.io/v1", "A", "a", "uid-a");
    OwnerChain.Ref b = new OwnerChain.Ref("x.io/v1", "B", "b", "uid-b");
    Map<String, OwnerChain.Owner> loop =
        Map.of(
            "uid-a", new OwnerChain.Owner("x.io/v1", "A", "a", "uid-a", b),
            "uid-b", new OwnerChain.Owner("x.io/v1", "B", "b", "uid-b", a));
    TopController top = OwnerChain.top("ns", a, Map.of(), (ns, ref) -> loop.get(ref.uid()));
    assertThat(List.of("a", "b")).contains(top.getName());
    assertThat(OwnerChain.top("ns", null, Map.of(), OwnerChain.NONE))
        .as("a pod without a controller")
        .isNull();
  }
}
