package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ExperimentConfig;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.records.Records;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;

/**
 * Experiment ConfigMaps to {@code schedlens.experiments}: only those labelled {@code
 * schedlens.io/experiment} are listed and watched (a label selector on the request), read-only.
 */
public final class ExperimentSource implements AutoCloseable {

  public static final String LABEL = "schedlens.io/experiment";
  private static final String RESOURCE = "configmaps";

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final CollectorMetrics metrics;
  private InformerHandle<ConfigMap> informers;

  public ExperimentSource(
      KubernetesClient client,
      List<String> namespaces,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.metrics = metrics;
  }

  public void start() {
    List<Informable<ConfigMap>> sources = new ArrayList<>();
    if (namespaces.isEmpty()) {
      sources.add(client.configMaps().inAnyNamespace().withLabel(LABEL));
    } else {
      namespaces.forEach(ns -> sources.add(client.configMaps().inNamespace(ns).withLabel(LABEL)));
    }
    informers =
        InformerHandle.start(
            RESOURCE,
            sources,
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(ConfigMap c) {
                send(project(c, ChangeType.ADDED, clock.millis()));
              }

              @Override
              public void onUpdate(ConfigMap before, ConfigMap after) {
                if (!Objects.equals(before.getData(), after.getData())
                    || !Objects.equals(
                        before.getMetadata().getLabels(), after.getMetadata().getLabels())) {
                  send(project(after, ChangeType.MODIFIED, clock.millis()));
                }
              }

              @Override
              public void onDelete(ConfigMap c, boolean finalStateUnknown) {
                send(project(c, ChangeType.DELETED, clock.millis()));
              }
            },
            metrics);
  }

  /** The ConfigMap's experiment and data. */
  public static ExperimentConfig project(ConfigMap c, ChangeType change, long observedAt) {
    String experiment =
        c.getMetadata().getLabels() == null ? null : c.getMetadata().getLabels().get(LABEL);
    return ExperimentConfig.newBuilder()
        .setNamespace(c.getMetadata().getNamespace())
        .setName(c.getMetadata().getName())
        .setExperiment(
            experiment == null || experiment.isBlank() ? c.getMetadata().getName() : experiment)
        .setChangeType(change)
        .setObservedAt(observedAt)
        .setData(c.getData() == null ? new HashMap<>() : new HashMap<>(c.getData()))
        .build();
  }

  private void send(ExperimentConfig e) {
    if (sink.offer(records.experiment(e))) {
      metrics.kubernetesChanges.labelValues(RESOURCE, e.getChangeType().name()).inc();
    }
  }

  @Override
  public void close() {
    if (informers != null) {
      informers.close();
    }
  }
}
