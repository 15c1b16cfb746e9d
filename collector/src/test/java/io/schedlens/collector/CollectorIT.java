package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The collector against fabric8's mock API server (CRUD mode: real HTTP lists and watches) and a
 * real Kafka broker. Each test has its own namespace and topic prefix.
 */
class CollectorIT {

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

  static Topics topics(String prefix) {
    Topics topics = Topics.withPrefix(prefix);
    broker.createTopics(topics.newTopics(1, (short) 1));
    return topics;
  }

  static Collector collector(String prefix, String namespace, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--kubernetes-master",
                kube.url(),
                "--namespaces",
                namespace,
                "--topic-prefix",
                prefix,
                "--http-port",
                "0",
                "--dcgm-discovery",
                "false",
                "--intake-auth",
                "none",
                // the recorded objects are of a fixed day, which the collector's clock leaves
                // behind: no age bound here (RequestLogParserTest holds it)
                "--time-max-age",
                "36500d"));
    args.addAll(List.of(extra));
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

  static Pod gpuPod(String namespace, String name, int gpus) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .addToLabels("schedlens.io/arm", "treatment")
        .addToLabels("unrelated", "x")
        .addNewOwnerReference()
        .withKind("Job")
        .withName("asr-batch")
        .withUid("job-uid")
        .withController(true)
        .withApiVersion("batch/v1")
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withPriorityClassName("batch-low")
        .withPriority(1000)
        .addNewContainer()
        .withName("asr")
        .withImage("asr:1")
        .withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  static <V> TopicReader<V> reader(Topics topics, io.schedlens.schemas.Topic<String, V> topic) {
    return new TopicReader<>(
        broker.bootstrapServers(), topic.name(), topic.valueSerde().deserializer());
  }

  static List<ChangeType> changesOf(
      List<ConsumerRecord<String, PodObservation>> records, String uid) {
    return records.stream()
        .filter(r -> r.key().equals(uid))
        .map(r -> r.value().getChangeType())
        .toList();
  }

  @Test
  void shouldRecordAPodsLifeAndItsEventsFromBothApisExactlyOnce() throws Exception {
    String ns = "life-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    try (Collector collector = collector(ns + ".", ns);
        TopicReader<PodObservation> pods = reader(topics, topics.pods);
        TopicReader<ClusterEvent> events = reader(topics, topics.events)) {

      Pod created = kube.client.pods().inNamespace(ns).resource(gpuPod(ns, "asr-0", 2)).create();
      String uid = created.getMetadata().getUid();
      String scheduledAt = "2026-11-29T10:00:05Z";
      kube.client
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder(created)
                  .editSpec()
                  .withNodeName("gpu-node-1")
                  .endSpec()
                  .withNewStatus()
                  .withPhase("Pending")
                  .addNewCondition()
                  .withType("PodScheduled")
                  .withStatus("True")
                  .withLastTransitionTime(scheduledAt)
                  .endCondition()
                  .endStatus()
                  .build())
          .update();
      // An update that changes only what schedlens does not record is not sent.
      Pod current = kube.client.pods().inNamespace(ns).withName("asr-0").get();
      kube.client
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder(current)
                  .editMetadata()
                  .addToLabels("unrelated", "y")
                  .endMetadata()
                  .build())
          .update();

      kube.client
          .events()
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName("asr-0.sched")
                  .withNamespace(ns)
                  .endMetadata()
                  .withReason("Scheduled")
                  .withType("Normal")
                  .withAction("Binding")
                  .withNote("Successfully assigned " + ns + "/asr-0 to gpu-node-1")
                  .withReportingController("default-scheduler")
                  .withReportingInstance("default-scheduler-kind")
                  .withEventTime(new MicroTime("2026-11-29T10:00:05.123456Z"))
                  .withRegarding(
                      new ObjectReferenceBuilder()
                          .withKind("Pod")
                          .withNamespace(ns)
                          .withName("asr-0")
                          .withUid(uid)
                          .withApiVersion("v1")
                          .build())
                  .build())
          .create();
      var failed =
          kube.client
              .events()
              .v1()
              .events()
              .inNamespace(ns)
              .resource(
                  new EventBuilder()
                      .withNewMetadata()
                      .withName("asr-0.failed")
                      .withNamespace(ns)
                      .endMetadata()
                      .withReason("FailedScheduling")
                      .withType("Warning")
                      .withAction("Scheduling")
                      .withNote(
                          "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
                      .withReportingController("default-scheduler")
                      .withEventTime(new MicroTime("2026-11-29T10:00:01.000001Z"))
                      .withRegarding(
                          new ObjectReferenceBuilder()
                              .withKind("Pod")
                              .withNamespace(ns)
                              .withName("asr-0")
                              .withUid(uid)
                              .build())
                      .build())
              .create();
      kube.client
          .events()
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new EventBuilder(failed)
                  .withSeries(new EventSeries(3, new MicroTime("2026-11-29T10:00:04.000001Z")))
                  .build())
          .update();
      kube.client
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new io.fabric8.kubernetes.api.model.EventBuilder()
                  .withNewMetadata()
                  .withName("asr-0.pulling")
                  .withNamespace(ns)
                  .endMetadata()
                  .withReason("Pulling")
                  .withType("Normal")
                  .withMessage("Pulling image \"asr:1\"")
                  .withNewSource()
                  .withComponent("kubelet")
                  .withHost("gpu-node-1")
                  .endSource()
                  .withFirstTimestamp("2026-11-29T10:00:06Z")
                  .withLastTimestamp("2026-11-29T10:00:06Z")
                  .withCount(1)
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withKind("Pod")
                          .withNamespace(ns)
                          .withName("asr-0")
                          .withUid(uid)
                          .withFieldPath("spec.containers{asr}")
                          .build())
                  .build())
          .create();
      kube.client
          .v1()
          .events()
          .inNamespace(ns)
          .resource(
              new io.fabric8.kubernetes.api.model.EventBuilder()
                  .withNewMetadata()
                  .withName("asr-batch.created")
                  .withNamespace(ns)
                  .endMetadata()
                  .withReason("SuccessfulCreate")
                  .withMessage("Created pod: asr-0")
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withKind("Job")
                          .withNamespace(ns)
                          .withName("asr-batch")
                          .withUid("job-uid")
                          .build())
                  .build())
          .create();

      kube.client.pods().inNamespace(ns).withName("asr-0").delete();

      List<ConsumerRecord<String, PodObservation>> podRecords =
          pods.readUntil(
              r -> changesOf(r, uid).contains(ChangeType.DELETED), Duration.ofSeconds(30));
      assertThat(changesOf(podRecords, uid))
          .containsExactly(ChangeType.ADDED, ChangeType.MODIFIED, ChangeType.DELETED);
      PodObservation added = podRecords.get(0).value();
      assertThat(added.getGpus()).isEqualTo(2);
      assertThat(added.getPriorityClassName()).isEqualTo("batch-low");
      assertThat(added.getPriority()).isEqualTo(1000);
      assertThat(added.getOwner().getKind()).isEqualTo("Job");
      assertThat(added.getLabels()).containsOnly(Map.entry("schedlens.io/arm", "treatment"));
      PodObservation scheduled = podRecords.get(1).value();
      assertThat(scheduled.getNodeName()).isEqualTo("gpu-node-1");
      assertThat(scheduled.getConditions())
          .singleElement()
          .satisfies(
              c ->
                  assertThat(c.getLastTransitionTime())
                      .isEqualTo(Instant.parse(scheduledAt).toEpochMilli()));
      assertThat(podRecords.get(2).value().getNodeName()).isEqualTo("gpu-node-1");
      assertThat(podRecords).allSatisfy(r -> assertThat(r.key()).isEqualTo(uid));

      List<ConsumerRecord<String, ClusterEvent>> eventRecords =
          events.readUntil(r -> r.size() >= 4, Duration.ofSeconds(30));
      eventRecords = events.readFor(Duration.ofMillis(1500));
      assertThat(eventRecords).allSatisfy(r -> assertThat(r.key()).isEqualTo(uid));
      assertThat(eventRecords)
          .extracting(r -> r.value().getReason() + "/" + r.value().getSeriesCount())
          .containsExactlyInAnyOrder(
              "Scheduled/null", "FailedScheduling/null", "FailedScheduling/3", "Pulling/null");
      ClusterEvent scheduledEvent =
          eventRecords.stream()
              .map(ConsumerRecord::value)
              .filter(e -> e.getReason().equals("Scheduled"))
              .findFirst()
              .orElseThrow();
      assertThat(scheduledEvent.getEventTime())
          .isEqualTo(Instant.parse("2026-11-29T10:00:05.123Z").toEpochMilli());
      assertThat(scheduledEvent.getApiVersion()).isEqualTo("events.k8s.io/v1");
      assertThat(eventRecords)
          .filteredOn(
              r ->
                  r.value().getReason().equals("FailedScheduling")
                      && r.value().getSeriesCount() != null)
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r.timestamp())
                      .as("Kafka timestamp is the latest occurrence")
                      .isEqualTo(Instant.parse("2026-11-29T10:00:04.000Z").toEpochMilli()));
      ClusterEvent pulling =
          eventRecords.stream()
              .map(ConsumerRecord::value)
              .filter(e -> e.getReason().equals("Pulling"))
              .findFirst()
              .orElseThrow();
      assertThat(pulling.getApiVersion()).isEqualTo("v1");
      assertThat(pulling.getReportingController()).isEqualTo("kubelet");
      assertThat(pulling.getCount()).isEqualTo(1);
    }
  }

  /**
   * Read-only watches of the workload objects and of the experiment ConfigMaps: a Deployment's
   * scale, a Job's completion, its deletion; only ConfigMaps labelled schedlens.io/experiment.
   */
  /**
   * An OTLP resource that names its pod by {@code k8s.pod.uid} alone (what some instrumentations
   * set) is a request of the pod of that UID, which the collector watches.
   */
  @Test
  void shouldTakeASpanOfAPodNamedByItsUid() throws Exception {
    String ns = "otlp-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    try (Collector collector = collector(ns + ".", ns);
        TopicReader<PodObservation> pods = reader(topics, topics.pods);
        TopicReader<RequestLog> requests = reader(topics, topics.requests)) {
      Pod created = kube.client.pods().inNamespace(ns).resource(gpuPod(ns, "chat-0", 1)).create();
      String uid = created.getMetadata().getUid();
      pods.readUntil(r -> !changesOf(r, uid).isEmpty(), Duration.ofSeconds(30));

      long end = System.currentTimeMillis();
      ExportTraceServiceRequest export =
          ExportTraceServiceRequest.newBuilder()
              .addResourceSpans(
                  ResourceSpans.newBuilder()
                      .setResource(
                          Resource.newBuilder()
                              .addAttributes(
                                  KeyValue.newBuilder()
                                      .setKey("k8s.pod.uid")
                                      .setValue(AnyValue.newBuilder().setStringValue(uid))))
                      .addScopeSpans(
                          ScopeSpans.newBuilder()
                              .addSpans(
                                  Span.newBuilder()
                                      .setTraceId(
                                          ByteString.copyFrom(
                                              new byte[] {
                                                9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8
                                              }))
                                      .setSpanId(
                                          ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
                                      .setKind(Span.SpanKind.SPAN_KIND_SERVER)
                                      .setName("POST /v1/completions")
                                      .setStartTimeUnixNano((end - 300) * 1_000_000L)
                                      .setEndTimeUnixNano(end * 1_000_000L))))
              .build();
      HttpResponse<byte[]> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(collector.baseUrl() + "/v1/traces"))
                      .header("Content-Type", "application/x-protobuf")
                      .POST(HttpRequest.BodyPublishers.ofByteArray(export.toByteArray()))
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(ExportTraceServiceResponse.parseFrom(answer.body()).hasPartialSuccess()).isFalse();
      List<ConsumerRecord<String, RequestLog>> taken =
          requests.readUntil(r -> !r.isEmpty(), Duration.ofSeconds(30));
      assertThat(taken).hasSize(1);
      assertThat(taken.get(0).key()).isEqualTo(ns + "/chat-0");
      assertThat(taken.get(0).value().getLatencyMs()).isEqualTo(300.0);
    }
  }

  @Test
  void shouldReportWorkloadObjectsAndOnlyLabelledExperimentConfigMaps() throws Exception {
    String ns = "wl-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    try (Collector collector = collector(ns + ".", ns);
        TopicReader<io.schedlens.avro.WorkloadObservation> workloads =
            reader(topics, topics.workloads);
        TopicReader<io.schedlens.avro.ExperimentConfig> experiments =
            reader(topics, topics.experiments)) {
      var deployment =
          new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
              .withNewMetadata()
              .withNamespace(ns)
              .withName("chat")
              .addToLabels("schedlens.io/arm", "treatment")
              .endMetadata()
              .withNewSpec()
              .withReplicas(2)
              .withNewSelector()
              .addToMatchLabels("app", "chat")
              .endSelector()
              .withNewTemplate()
              .withNewMetadata()
              .addToLabels("app", "chat")
              .endMetadata()
              .endTemplate()
              .endSpec()
              .build();
      kube.client.apps().deployments().inNamespace(ns).resource(deployment).create();
      kube.client
          .apps()
          .deployments()
          .inNamespace(ns)
          .withName("chat")
          .edit(
              d ->
                  new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(d)
                      .editSpec()
                      .withReplicas(0)
                      .endSpec()
                      .build());
      var job =
          new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder()
              .withNewMetadata()
              .withNamespace(ns)
              .withName("embed")
              .endMetadata()
              .withNewSpec()
              .withParallelism(2)
              .withCompletions(4)
              .endSpec()
              .build();
      kube.client.batch().v1().jobs().inNamespace(ns).resource(job).create();
      kube.client.batch().v1().jobs().inNamespace(ns).withName("embed").delete();
      for (String name : List.of("day08-experiment", "unrelated")) {
        var cm =
            new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .addToData("change", "PriorityClasses")
                .build();
        if (name.equals("day08-experiment")) {
          cm.getMetadata().setLabels(Map.of("schedlens.io/experiment", "day08"));
        }
        kube.client.configMaps().inNamespace(ns).resource(cm).create();
      }

      var seen = workloads.readUntil(r -> r.size() >= 4, Duration.ofSeconds(30));
      assertThat(seen)
          .extracting(r -> r.key() + " " + r.value().getChangeType() + " " + r.value().getDesired())
          .contains(
              ns + "/Deployment/chat ADDED 2",
              ns + "/Deployment/chat MODIFIED 0",
              ns + "/Job/embed ADDED 2",
              ns + "/Job/embed DELETED 0");
      experiments.readUntil(r -> r.size() >= 1, Duration.ofSeconds(30));
      // a while more: the unlabelled one must not come
      assertThat(experiments.readFor(Duration.ofSeconds(2)))
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.key()).isEqualTo(ns + "/day08-experiment");
                assertThat(r.value().getExperiment()).isEqualTo("day08");
                assertThat(r.value().getData()).containsEntry("change", "PriorityClasses");
              });
    }
  }

  @Test
  void shouldLoseNothingAcrossARestartAndResendOnlyAsRelist() throws Exception {
    String ns = "restart-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    Map<String, String> uids = new HashMap<>();
    try (Collector first = collector(ns + ".", ns)) {
      for (String name : List.of("keep", "change", "remove")) {
        uids.put(
            name,
            kube.client
                .pods()
                .inNamespace(ns)
                .resource(gpuPod(ns, name, 1))
                .create()
                .getMetadata()
                .getUid());
      }
      try (TopicReader<PodObservation> pods = reader(topics, topics.pods)) {
        pods.readUntil(r -> r.size() >= 3, Duration.ofSeconds(30));
      }
      first.flush(Duration.ofSeconds(10));
    }

    // While no collector runs: one pod changes, one goes away, one is created.
    Pod change = kube.client.pods().inNamespace(ns).withName("change").get();
    kube.client
        .pods()
        .inNamespace(ns)
        .resource(new PodBuilder(change).editSpec().withNodeName("gpu-node-2").endSpec().build())
        .update();
    kube.client.pods().inNamespace(ns).withName("remove").delete();
    uids.put(
        "new",
        kube.client
            .pods()
            .inNamespace(ns)
            .resource(gpuPod(ns, "new", 1))
            .create()
            .getMetadata()
            .getUid());
    // Creation timestamps have second granularity: start the second collector in a later second.
    long createdSecond = System.currentTimeMillis() / 1000;
    await().until(() -> System.currentTimeMillis() / 1000 > createdSecond);

    try (Collector second = collector(ns + ".", ns);
        TopicReader<PodObservation> pods = reader(topics, topics.pods)) {
      List<ConsumerRecord<String, PodObservation>> all =
          pods.readUntil(r -> r.size() >= 6, Duration.ofSeconds(30));
      all = pods.readFor(Duration.ofSeconds(2));

      assertThat(changesOf(all, uids.get("keep"))).containsExactly(ChangeType.ADDED);
      assertThat(changesOf(all, uids.get("change")))
          .containsExactly(ChangeType.ADDED, ChangeType.RELIST);
      assertThat(changesOf(all, uids.get("remove")))
          .containsExactly(ChangeType.ADDED, ChangeType.DELETED);
      assertThat(changesOf(all, uids.get("new"))).containsExactly(ChangeType.RELIST);
      assertThat(all).hasSize(6);
      assertThat(
              all.stream()
                  .filter(r -> r.key().equals(uids.get("change")))
                  .reduce((a, b) -> b)
                  .orElseThrow()
                  .value()
                  .getNodeName())
          .isEqualTo("gpu-node-2");
    }
  }

  @Test
  void shouldScrapeDcgmExportersFoundThroughTheirServicesEndpointSlices() throws Exception {
    String ns = "gpu-operator-" + UUID.randomUUID().toString().substring(0, 6);
    String tenant = "tenant-" + UUID.randomUUID().toString().substring(0, 6);
    Topics topics = topics(ns + ".");
    try (FakeDcgmExporter operatorExporter = new FakeDcgmExporter();
        FakeDcgmExporter chartExporter = new FakeDcgmExporter();
        FakeDcgmExporter decoy = new FakeDcgmExporter()) {
      // A tenant's Service with the GPU Operator's label, in a namespace discovery is not told
      // of: its numbers must not become anybody's GPU samples.
      createSlice("gpu-operator-endpointslice.yaml", tenant, decoy.port(), "tenant-node");
      // The GPU Operator's exporter (app=nvidia-dcgm-exporter, port gpu-metrics) and the
      // standalone chart's (app.kubernetes.io/name=dcgm-exporter, port metrics), found with the
      // default selector and port names: only the namespace is given.
      createSlice("gpu-operator-endpointslice.yaml", ns, operatorExporter.port(), "gpu-node-7");
      String chartSlice =
          createSlice(
              "dcgm-exporter-chart-endpointslice.yaml", ns, chartExporter.port(), "gpu-node-9");
      try (Collector collector =
              collector(
                  ns + ".",
                  ns,
                  "--dcgm-discovery",
                  "true",
                  "--dcgm-namespaces",
                  ns,
                  "--scrape-interval",
                  "200ms",
                  "--scrape-forget-after",
                  "2s");
          TopicReader<io.schedlens.avro.GpuSample> samples =
              new TopicReader<>(
                  broker.bootstrapServers(),
                  topics.gpuSamples.name(),
                  topics.gpuSamples.valueSerde().deserializer())) {
        var got =
            samples.readUntil(
                r ->
                    r.stream().map(x -> x.value().getNode()).distinct().count() >= 2
                        && r.size() >= 16,
                Duration.ofSeconds(30));
        assertThat(got)
            .extracting(r -> r.value().getNode())
            .containsOnly("gpu-node-7", "gpu-node-9");
        assertThat(got)
            .extracting(r -> r.value().getTarget())
            .containsOnly(
                "http://127.0.0.1:" + operatorExporter.port() + "/metrics",
                "http://127.0.0.1:" + chartExporter.port() + "/metrics");
        assertThat(got)
            .allSatisfy(
                r ->
                    assertThat(r.value().getLabels())
                        .containsEntry("Hostname", "ip-100-64-171-120.ec2.internal"));
        assertThat(got)
            .extracting(ConsumerRecord::key)
            .contains("gpu-node-7/0", "dynamo-workload/vllm-agg-0-vllmdecodeworker-5fljt");
        // The ready endpoint of each Service: two targets (the unready one is not scraped).
        assertThat(gauge(collector, "schedlens_collector_dcgm_targets")).isEqualTo(2.0);

        // gpu-node-9 is scaled down: its exporter and its endpoints go. After the forget-after
        // time its series are gone (SchedlensDcgmScrapeFailing must not fire for a node that
        // left); the other target's stay.
        String gone = "http://127.0.0.1:" + chartExporter.port() + "/metrics";
        String kept = "http://127.0.0.1:" + operatorExporter.port() + "/metrics";
        chartExporter.close();
        kube.client.discovery().v1().endpointSlices().inNamespace(ns).withName(chartSlice).delete();
        await("the scaled-down target forgotten")
            .atMost(Duration.ofSeconds(30))
            .until(() -> !scrapeTargets(collector).contains(gone));
        assertThat(scrapeTargets(collector)).contains(kept);
        assertThat(gauge(collector, "schedlens_collector_dcgm_targets")).isEqualTo(1.0);
      }
    }
  }

  /**
   * One of the recorded EndpointSlice shapes (src/test/resources/discovery) in the given namespace,
   * its endpoints on loopback at the fake exporter's port.
   */
  private static String createSlice(String file, String namespace, int port, String readyNode)
      throws Exception {
    EndpointSlice slice;
    try (var in = CollectorIT.class.getResourceAsStream("/discovery/" + file)) {
      slice = kube.client.getKubernetesSerialization().unmarshal(in, EndpointSlice.class);
    }
    slice.getMetadata().setNamespace(namespace);
    slice.getMetadata().setUid(null);
    slice.getMetadata().setOwnerReferences(null);
    slice.getPorts().get(0).setPort(port);
    slice.getEndpoints().get(0).setAddresses(List.of("127.0.0.1"));
    slice.getEndpoints().get(0).setNodeName(readyNode);
    for (int i = 1; i < slice.getEndpoints().size(); i++) {
      slice.getEndpoints().get(i).setAddresses(List.of("127.0.0.2"));
    }
    return kube.client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(namespace)
        .resource(slice)
        .create()
        .getMetadata()
        .getName();
  }

  /** The targets {@code schedlens_collector_scrape_up} has a series for. */
  private static List<String> scrapeTargets(Collector collector) {
    return collector.metrics().registry.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals("schedlens_collector_scrape_up"))
        .flatMap(m -> m.getDataPoints().stream())
        .map(p -> p.getLabels().get("target"))
        .toList();
  }

  private static double gauge(Collector collector, String name) {
    return collector.metrics().registry.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals(name))
        .flatMap(m -> m.getDataPoints().stream())
        .mapToDouble(p -> ((GaugeDataPointSnapshot) p).getValue())
        .sum();
  }

  @Test
  void shouldStartWithKafkaAwayAliveNotReadyAndCatchUpWhenItComes() throws Exception {
    String ns = "late-kafka-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    Pod before = kube.client.pods().inNamespace(ns).resource(gpuPod(ns, "early", 1)).create();
    broker.stop();
    Collector collector = null;
    try {
      long t0 = System.nanoTime();
      collector =
          Collector.start(
              CollectorConfig.from(
                  CommandLineSettings.load(
                      CollectorConfig.DEF,
                      List.of(
                          "--kubernetes-master",
                          kube.url(),
                          "--namespaces",
                          ns,
                          "--topic-prefix",
                          ns + ".",
                          "--http-port",
                          "0",
                          "--dcgm-discovery",
                          "false",
                          "--intake-auth",
                          "none"),
                      Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()))),
              null,
              Clock.systemUTC());
      // Up at once (it used to spend two minutes on the read-back before any endpoint, then exit).
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(10_000);
      HttpClient http = HttpClient.newHttpClient();
      String base = collector.baseUrl();
      assertThat(
              http.send(
                      HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
      HttpResponse<String> notReady =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("reading back the pods reported before");
      Collector c = collector;
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  c.readiness()
                      .detail()
                      .contains("Kafka unreachable at " + broker.bootstrapServers()));
    } finally {
      broker.restart();
    }
    try (Collector c = collector;
        TopicReader<PodObservation> pods = reader(topics, topics.pods)) {
      await().atMost(Duration.ofSeconds(90)).until(() -> c.readiness().ready());
      assertThat(pods.readUntil(r -> r.size() >= 1, Duration.ofSeconds(30)))
          .extracting(ConsumerRecord::key)
          .contains(before.getMetadata().getUid());
    }
  }

  @Test
  void shouldHoldRecordsInTheBufferWhileKafkaIsAwayAndDeliverEachOnce() throws Exception {
    String ns = "hold-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    try (Collector collector = collector(ns + ".", ns)) {
      broker.stop();
      List<String> uids = new ArrayList<>();
      try {
        await().atMost(Duration.ofSeconds(20)).until(() -> !collector.readiness().ready());
        for (int i = 0; i < 20; i++) {
          uids.add(
              kube.client
                  .pods()
                  .inNamespace(ns)
                  .resource(gpuPod(ns, "h" + i, 1))
                  .create()
                  .getMetadata()
                  .getUid());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> collector.buffered() > 0);
      } finally {
        broker.restart();
      }
      try (TopicReader<PodObservation> pods = reader(topics, topics.pods)) {
        List<ConsumerRecord<String, PodObservation>> all =
            pods.readUntil(r -> r.size() >= 20, Duration.ofSeconds(60));
        all = pods.readFor(Duration.ofSeconds(1));
        assertThat(all).extracting(ConsumerRecord::key).containsExactlyElementsOf(uids);
        assertThat(all)
            .allSatisfy(r -> assertThat(r.value().getChangeType()).isEqualTo(ChangeType.ADDED));
        assertThat(collector.metrics().relists.labelValues("pods", "overflow").get()).isZero();
      }
    } finally {
      if (!broker.isRunning()) {
        broker.restart();
      }
    }
  }

  @Test
  void shouldDeliverEverythingThatHappenedWhileKafkaWasAway() throws Exception {
    String ns = "outage-" + UUID.randomUUID().toString().substring(0, 8);
    Topics topics = topics(ns + ".");
    try (Collector collector = collector(ns + ".", ns, "--buffer-records", "100")) {
      broker.stop();
      await().atMost(Duration.ofSeconds(20)).until(() -> !collector.readiness().ready());
      assertThat(collector.readiness().detail()).contains("Kafka unreachable");

      List<String> uids = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        uids.add(
            kube.client
                .pods()
                .inNamespace(ns)
                .resource(gpuPod(ns, "p" + i, 1))
                .create()
                .getMetadata()
                .getUid());
      }
      kube.client.pods().inNamespace(ns).withName("p0").delete();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> collector.metrics().bufferOverflows.labelValues("pods").get() > 0);

      broker.restart();
      await().atMost(Duration.ofSeconds(30)).until(() -> collector.readiness().ready());

      try (TopicReader<PodObservation> pods = reader(topics, topics.pods)) {
        List<ConsumerRecord<String, PodObservation>> all =
            pods.readUntil(
                r ->
                    uids.stream().allMatch(u -> r.stream().anyMatch(x -> x.key().equals(u)))
                        && r.stream()
                            .anyMatch(
                                x ->
                                    x.key().equals(uids.get(0))
                                        && x.value().getChangeType() == ChangeType.DELETED),
                Duration.ofSeconds(60));
        assertThat(all.stream().map(ConsumerRecord::key).distinct()).containsAll(uids);
        assertThat(changesOf(all, uids.get(0))).last().isEqualTo(ChangeType.DELETED);
        assertThat(collector.metrics().relists.labelValues("pods", "overflow").get()).isPositive();
      }
    } finally {
      if (!broker.isRunning()) {
        broker.restart();
      }
    }
  }
}
