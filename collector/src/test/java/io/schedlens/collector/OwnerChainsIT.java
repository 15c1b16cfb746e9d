package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.TopController;
import io.schedlens.collector.k8s.OwnerKind;
import io.schedlens.collector.k8s.OwnerSource;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.Fixtures;
import io.schedlens.testsupport.TopicReader;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Pods' workloads through the collector on fabric8's mock API server: the objects of
 * testdata/controllers (JobSet, TrainJob, LeaderWorkerSet, KubeRay, KServe, Argo Rollouts, a
 * CronJob's run) created as the controllers create them, each pod's observation carrying the top of
 * its controller chain; owners created after the collector started, and a pod named before its
 * owner's watch told of it.
 */
class OwnerChainsIT {

  static EmbeddedKafkaBroker broker;
  static MockKubernetes kube;
  static final Map<String, String> uids = new java.util.concurrent.ConcurrentHashMap<>();

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

  private static Collector collector(String prefix, String namespaces, String kinds) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--kubernetes-master", kube.url(),
                "--namespaces", namespaces,
                "--topic-prefix", prefix,
                "--http-port", "0",
                "--dcgm-discovery", "false",
                "--intake-auth", "none",
                "--workloads-watch", "false",
                "--experiments-watch", "false"));
    if (kinds != null) {
      args.addAll(List.of("--owners-kinds", kinds));
    }
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

  /** Creates a fixture's objects in its order: typed kinds as such, the others generically. */
  private static void create(String fixture) {
    create(fixture, null);
  }

  /** Creates a fixture's objects in {@code namespace} (null: the fixture's own). */
  private static void create(String fixture, String namespace) {
    List<HasMetadata> items =
        kube.client
            .load(new ByteArrayInputStream(Fixtures.text(fixture).getBytes(StandardCharsets.UTF_8)))
            .items();
    for (HasMetadata o : items) {
      if (namespace != null) {
        o.getMetadata().setNamespace(namespace);
      }
      String ns = o.getMetadata().getNamespace();
      String recorded = o.getMetadata().getUid();
      // The mock API server gives each object a UID of its own, as a real one does: the owner
      // references name the owners by the UIDs they were given.
      o.getMetadata().getOwnerReferences().forEach(r -> r.setUid(uids.get(r.getUid())));
      HasMetadata created;
      if (o instanceof Pod
          || o instanceof Job
          || o instanceof StatefulSet
          || o instanceof ReplicaSet
          || o instanceof io.fabric8.kubernetes.api.model.apps.Deployment) {
        created = kube.client.resource(o).inNamespace(ns).create();
      } else {
        GenericKubernetesResource g =
            Serialization.unmarshal(Serialization.asJson(o), GenericKubernetesResource.class);
        created =
            kube.client
                .genericKubernetesResources(
                    OwnerKind.parse(o.getApiVersion() + "/" + o.getKind()).context())
                .inNamespace(ns)
                .resource(g)
                .create();
      }
      uids.put(recorded, created.getMetadata().getUid());
    }
  }

  /** The UID the mock API server gave the object recorded with {@code uid}. */
  private static String given(String uid) {
    return uids.get(uid);
  }

  private static Map<String, TopController> workloads(
      TopicReader<PodObservation> pods, int expected) {
    Map<String, TopController> byPod = new HashMap<>();
    pods.readUntil(
        rs -> {
          for (ConsumerRecord<String, PodObservation> r : rs) {
            byPod.put(r.value().getName(), r.value().getWorkload());
          }
          return byPod.size() >= expected;
        },
        Duration.ofSeconds(30));
    return byPod;
  }

  @Test
  void shouldTellEachPodTheTopOfItsControllerChainAsTheControllersWriteThem() throws Exception {
    for (String f :
        List.of(
            "../controllers/jobset-network-jobset.yaml",
            "../controllers/trainjob-pytorch.yaml",
            "../controllers/lws-vllm.yaml",
            "../controllers/kuberay-rayjob.yaml",
            "../controllers/kserve-raw-sklearn-iris.yaml",
            "../controllers/cronjob-run.yaml")) {
      create(f);
    }
    Topics topics = Topics.withPrefix("chains.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    try (Collector c = collector("chains.", "default,team-a,kserve-test", null);
        TopicReader<PodObservation> pods =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.pods.name(),
                topics.pods.valueSerde().deserializer())) {
      Map<String, TopController> byPod = workloads(pods, 8);
      assertThat(byPod.get("network-jobset-leader-0-0-2qphg").getKind()).isEqualTo("JobSet");
      assertThat(byPod.get("network-jobset-workers-0-0-g5n2t").getName())
          .isEqualTo("network-jobset");
      assertThat(byPod.get("pytorch-mnist-node-0-0-4kq8d"))
          .as("TrainJob → JobSet → Job → pod")
          .isEqualTo(
              new TopController(
                  "trainer.kubeflow.org/v1alpha1",
                  "TrainJob",
                  "pytorch-mnist",
                  given("1a3c5e7a-9b2d-4f6e-8a0c-2e4a6c8e0b13")));
      assertThat(byPod.get("vllm-0-1").getKind())
          .as("worker StatefulSet → leader pod → leader StatefulSet → LeaderWorkerSet")
          .isEqualTo("LeaderWorkerSet");
      assertThat(byPod.get("vllm-0").getKind()).isEqualTo("LeaderWorkerSet");
      assertThat(byPod.get("rayjob-sample-x7k2q-head-9p4tz").getKind()).isEqualTo("RayJob");
      assertThat(byPod.get("sklearn-iris-predictor-6d4f8b7c9d-2xw7n").getKind())
          .isEqualTo("InferenceService");
      assertThat(byPod.get("cronjob1-28413736-bpz85"))
          .as("a CronJob's run is a workload of its own")
          .isEqualTo(
              new TopController(
                  "batch/v1",
                  "Job",
                  "cronjob1-28413736",
                  given("e25ce59b-1069-4775-99e6-a656b6aa448d")));
      assertThat(c.metrics().ownerKindsWatched.collect().getDataPoints().get(0).getValue())
          .isEqualTo(6.0);
    }
  }

  @Test
  void shouldFollowOwnersCreatedAfterTheCollectorStarted() throws Exception {
    Topics topics = Topics.withPrefix("late.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    // Only ReplicaSets are read, and the collector starts before the Rollout's objects exist.
    try (Collector c = collector("late.", "jesse-test", "apps/v1/ReplicaSet");
        TopicReader<PodObservation> pods =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.pods.name(),
                topics.pods.valueSerde().deserializer())) {
      create("../controllers/argo-rollouts-canary-rollout.yaml");
      create("../controllers/argo-rollouts-canary-rs.yaml");
      create("../controllers/argo-rollouts-canary-pod.yaml");
      Map<String, TopController> byPod = workloads(pods, 1);
      assertThat(byPod.get("canary-demo-65fb5ffc84-9wf5r"))
          .isEqualTo(
              new TopController(
                  "argoproj.io/v1alpha1",
                  "Rollout",
                  "canary-demo",
                  given("b350ba76-f6ed-11e9-a15b-42010aa80033")));
    }
  }

  /**
   * A kind the cluster does not serve (404) is skipped and one the collector may not list (403)
   * ends the chains that reach it (at the owner the reference names), each said in one log line at
   * start; neither costs an API read per pod.
   */
  @Test
  void shouldSkipAKindNotServedAndEndChainsAtAKindItMayNotList() throws Exception {
    kube.server
        .expect()
        .get()
        .withPath("/apis/jobset.x-k8s.io/v1alpha2/namespaces/denied/jobsets?limit=1")
        .andReturn(
            403,
            status(
                403,
                "Forbidden",
                "jobsets.jobset.x-k8s.io is forbidden: User"
                    + " \"system:serviceaccount:schedlens:schedlens-collector\" cannot list"
                    + " resource \"jobsets\" in API group \"jobset.x-k8s.io\" in the namespace"
                    + " \"denied\""))
        .always();
    kube.server
        .expect()
        .get()
        .withPath("/apis/ray.io/v1/namespaces/denied/rayclusters?limit=1")
        .andReturn(404, status(404, "NotFound", "the server could not find the requested resource"))
        .always();
    create("../controllers/trainjob-pytorch.yaml", "denied");
    Logger logger = (Logger) LoggerFactory.getLogger(OwnerSource.class);
    ListAppender<ILoggingEvent> said = new ListAppender<>();
    said.start();
    logger.addAppender(said);
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO); // a kind not served is said at INFO: nothing is wrong

    Topics topics = Topics.withPrefix("denied.");
    broker.createTopics(topics.newTopics(1, (short) 1));
    try (Collector c =
            collector(
                "denied.",
                "denied",
                "batch/v1/Job,jobset.x-k8s.io/v1alpha2/JobSet,"
                    + "trainer.kubeflow.org/v1alpha1/TrainJob,ray.io/v1/RayCluster");
        TopicReader<PodObservation> pods =
            new TopicReader<>(
                broker.bootstrapServers(),
                topics.pods.name(),
                topics.pods.valueSerde().deserializer())) {
      Map<String, TopController> byPod = workloads(pods, 1);
      // TrainJob → JobSet → Job → pod: the Job names its JobSet, which may not be read, so the
      // chain ends at the JobSet, known by the reference; the TrainJob above it is not reached.
      assertThat(byPod.get("pytorch-mnist-node-0-0-4kq8d"))
          .extracting(TopController::getKind, TopController::getName)
          .containsExactly("JobSet", "pytorch-mnist");
      assertThat(c.metrics().ownerKindsWatched.collect().getDataPoints().get(0).getValue())
          .as("Jobs and TrainJobs watched")
          .isEqualTo(2.0);
      assertThat(c.metrics().ownerReads.collect().getDataPoints())
          .as("no owner read from the API per pod")
          .allSatisfy(d -> assertThat(d.getValue()).isZero());
    } finally {
      logger.detachAppender(said);
      logger.setLevel(level);
    }
    List<String> lines = said.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines)
        .filteredOn(l -> l.contains("JobSet.jobset.x-k8s.io"))
        .as("the JobSet said once")
        .singleElement()
        .satisfies(l -> assertThat(l).contains("may not list", "cannot list resource"));
    assertThat(lines)
        .filteredOn(l -> l.contains("RayCluster.ray.io"))
        .as("the RayCluster said once")
        .singleElement()
        .satisfies(l -> assertThat(l).contains("not served"));
  }

  private static Status status(int code, String reason, String message) {
    return new StatusBuilder()
        .withStatus("Failure")
        .withCode(code)
        .withReason(reason)
        .withMessage(message)
        .build();
  }
}
