package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.k8s.WorkloadProjection;
import io.schedlens.projections.records.Records;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Deployments, StatefulSets and Jobs to {@code schedlens.workloads}, read-only: a change is sent
 * when what the streams app uses (desired and ready replicas, the rollout bounds, labels) changed.
 * Objects deleted while the collector was away are not reported: their pods' deletions are, and a
 * workload without pods wants nothing the streams app could miss.
 */
public final class WorkloadSource implements AutoCloseable {

  private static final String RESOURCE = "workloads";

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final WorkloadProjection projection;
  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final CollectorMetrics metrics;
  private final ChangeFilter<WorkloadObservation> sent =
      new ChangeFilter<>(WorkloadSource::normalise);
  private final List<InformerHandle<?>> informers = new ArrayList<>();
  private final long startedAt;

  public WorkloadSource(
      KubernetesClient client,
      List<String> namespaces,
      WorkloadProjection projection,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.projection = projection;
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.metrics = metrics;
    this.startedAt = InformerHandle.startSecond(clock);
  }

  public void start() {
    List<Informable<Deployment>> deployments = new ArrayList<>();
    List<Informable<StatefulSet>> statefulSets = new ArrayList<>();
    List<Informable<Job>> jobs = new ArrayList<>();
    if (namespaces.isEmpty()) {
      deployments.add(client.apps().deployments().inAnyNamespace());
      statefulSets.add(client.apps().statefulSets().inAnyNamespace());
      jobs.add(client.batch().v1().jobs().inAnyNamespace());
    } else {
      for (String ns : namespaces) {
        deployments.add(client.apps().deployments().inNamespace(ns));
        statefulSets.add(client.apps().statefulSets().inNamespace(ns));
        jobs.add(client.batch().v1().jobs().inNamespace(ns));
      }
    }
    informers.add(InformerHandle.start("deployments", deployments, handler(), metrics));
    informers.add(InformerHandle.start("statefulsets", statefulSets, handler(), metrics));
    informers.add(InformerHandle.start("jobs", jobs, handler(), metrics));
  }

  public boolean hasSynced() {
    return informers.stream().allMatch(InformerHandle::hasSynced);
  }

  private <T extends HasMetadata> ResourceEventHandler<T> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T o) {
        send(projection.project(o, InformerHandle.addType(o, startedAt), clock.millis()));
      }

      @Override
      public void onUpdate(T before, T after) {
        send(projection.project(after, InformerHandle.updateType(before, after), clock.millis()));
      }

      @Override
      public void onDelete(T o, boolean finalStateUnknown) {
        WorkloadObservation gone = projection.project(o, ChangeType.DELETED, clock.millis());
        if (sink.offer(records.workload(gone))) {
          sent.forget(gone.getUid());
          metrics.kubernetesChanges.labelValues(RESOURCE, "DELETED").inc();
        }
      }
    };
  }

  private void send(WorkloadObservation o) {
    if (!sent.isChange(o.getUid(), o)) {
      metrics.kubernetesUnchanged.labelValues(RESOURCE).inc();
      return;
    }
    if (sink.offer(records.workload(o))) {
      sent.record(o.getUid(), o);
      metrics.kubernetesChanges.labelValues(RESOURCE, o.getChangeType().name()).inc();
    }
  }

  /** What tells one observation of a workload object from another: not its version or read time. */
  static WorkloadObservation normalise(WorkloadObservation o) {
    return WorkloadObservation.newBuilder(o)
        .setResourceVersion(null)
        .setObservedAt(0L)
        .setChangeType(ChangeType.MODIFIED)
        .build();
  }

  @Override
  public void close() {
    informers.forEach(InformerHandle::close);
  }
}
