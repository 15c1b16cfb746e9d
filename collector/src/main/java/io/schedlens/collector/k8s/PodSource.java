package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.k8s.NodeGpuLabels;
import io.schedlens.projections.k8s.OwnerChain;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.PodName;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pods to {@code schedlens.pods}. Each change becomes a {@link PodObservation}; an update that
 * changes nothing schedlens records is not sent again. Pods listed at start, or re-sent after the
 * send buffer overflowed, are marked RELIST; pods that the collector reported live before but that
 * are gone now (deleted while it was down, or while Kafka was away) are reported DELETED.
 */
public final class PodSource implements ResourceEventHandler<Pod>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PodSource.class);
  private static final String RESOURCE = "pods";

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final String labelSelector;
  private final PodProjection projection;
  private final OwnerChain.Lookup owners;
  private final NodeLookup nodes;
  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final CollectorMetrics metrics;
  private final ChangeFilter<PodObservation> sent = new ChangeFilter<>(PodSource::normalise);
  private final long startedAt;
  private InformerHandle<Pod> informers;

  public PodSource(
      KubernetesClient client,
      List<String> namespaces,
      String labelSelector,
      PodProjection projection,
      OwnerChain.Lookup owners,
      NodeLookup nodes,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics,
      Map<String, PodObservation> reportedLive) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.labelSelector = labelSelector;
    this.projection = projection;
    this.owners = owners;
    this.nodes = nodes;
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.metrics = metrics;
    // Creation times have second granularity: only what was created before the second the
    // collector started can have been listed rather than watched.
    this.startedAt = InformerHandle.startSecond(clock);
    reportedLive.forEach(sent::record);
  }

  /** Starts watching; once listed, reports pods that went away while nobody watched. */
  public void start() {
    sink.onGap(Records.PODS, () -> resend("overflow"));
    List<Informable<Pod>> sources = new ArrayList<>();
    if (namespaces.isEmpty()) {
      sources.add(selected(client.pods().inAnyNamespace()));
    } else {
      namespaces.forEach(ns -> sources.add(selected(client.pods().inNamespace(ns))));
    }
    informers = InformerHandle.start(RESOURCE, sources, this, metrics, projection::retainRead);
    informers.synced().thenRun(() -> reportGone("start"));
  }

  private Informable<Pod> selected(FilterWatchListDeletable<Pod, ?, ?> pods) {
    return labelSelector.isBlank() ? pods : pods.withLabelSelector(labelSelector);
  }

  /** Whether the informers have listed all pods. */
  public boolean hasSynced() {
    return informers != null && informers.hasSynced();
  }

  /**
   * Pods in phase Running with a GPU request, from the informers' caches; empty until they have
   * synced (a count from a half-listed cache would say "fewer GPU pods" when it means "not known").
   */
  public OptionalInt gpuPodsRunning() {
    if (!hasSynced()) {
      return OptionalInt.empty();
    }
    int n = 0;
    for (Pod pod : informers.list()) {
      if (pod.getStatus() != null
          && "Running".equals(pod.getStatus().getPhase())
          && pod.getSpec() != null
          && PodProjection.gpuRequest(
                  pod.getSpec().getContainers(), pod.getSpec().getInitContainers())
              > 0) {
        n++;
      }
    }
    return OptionalInt.of(n);
  }

  /**
   * The namespace and name of a pod by its UID, among the pods the collector has reported and not
   * yet reported gone; empty for another UID.
   */
  public Optional<PodName> nameOf(String uid) {
    PodObservation last = uid == null ? null : sent.last(uid);
    return last == null ? Optional.empty() : Optional.of(PodName.of(last));
  }

  /**
   * A pod named by an owner reference (a LeaderWorkerSet's leader pod owns its workers'
   * StatefulSet), from the informers' cache: what a controller chain needs of it; null when the
   * cache does not hold that pod.
   */
  public OwnerChain.Owner asOwner(String namespace, OwnerChain.Ref ref) {
    Pod pod = informers == null ? null : informers.get(namespace + "/" + ref.name());
    if (pod == null || ref.uid() == null || !ref.uid().equals(pod.getMetadata().getUid())) {
      return null;
    }
    return OwnerChain.Owner.of(pod);
  }

  /** What a node's labels say of a GPU resource on it ({@link NodeSource#of}). */
  @FunctionalInterface
  public interface NodeLookup {
    NodeLookup NONE = (node, resource) -> NodeGpuLabels.NONE;

    NodeGpuLabels of(String node, String resource);
  }

  @Override
  public void onAdd(Pod pod) {
    send(project(pod, InformerHandle.addType(pod, startedAt)));
  }

  @Override
  public void onUpdate(Pod oldPod, Pod newPod) {
    send(project(newPod, InformerHandle.updateType(oldPod, newPod)));
  }

  /**
   * The pod's projection with its workload: the one told before for this pod (a chain, once
   * resolved, is the pod's for life, however its owners change in the cache), else its chain
   * resolved from the owners' cache.
   */
  private PodObservation project(Pod pod, ChangeType change) {
    PodObservation p = projection.project(pod, change, clock.millis());
    nodes.of(p.getNodeName(), p.getGpuResource()).tell(p);
    PodObservation last = sent.last(p.getUid());
    if (last != null && last.getWorkload() != null) {
      p.setWorkload(last.getWorkload());
    } else {
      p.setWorkload(OwnerChain.topOf(pod, owners));
    }
    return p;
  }

  @Override
  public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
    PodObservation gone = project(pod, ChangeType.DELETED);
    if (sink.offer(records.pod(gone))) {
      sent.forget(gone.getUid());
      metrics.kubernetesChanges.labelValues(RESOURCE, "DELETED").inc();
    }
  }

  private void send(PodObservation p) {
    if (!sent.isChange(p.getUid(), p)) {
      metrics.kubernetesUnchanged.labelValues(RESOURCE).inc();
      return;
    }
    if (sink.offer(records.pod(p))) {
      sent.record(p.getUid(), p);
      metrics.kubernetesChanges.labelValues(RESOURCE, p.getChangeType().name()).inc();
    }
  }

  /** Re-sends what changed since it was last sent, and reports pods gone meanwhile. */
  void resend(String reason) {
    metrics.relists.labelValues(RESOURCE, reason).inc();
    for (Pod pod : informers.list()) {
      send(project(pod, ChangeType.RELIST));
    }
    reportGone(reason);
  }

  private void reportGone(String reason) {
    Set<String> live = new HashSet<>();
    for (Pod pod : informers.list()) {
      live.add(pod.getMetadata().getUid());
    }
    int gone = 0;
    for (String uid : List.copyOf(sent.uids())) {
      if (!live.contains(uid)) {
        PodObservation last = sent.last(uid);
        PodObservation deleted =
            PodObservation.newBuilder(last)
                .setChangeType(ChangeType.DELETED)
                .setObservedAt(clock.millis())
                .build();
        if (sink.offer(records.pod(deleted))) {
          sent.forget(uid);
          gone++;
          metrics.kubernetesChanges.labelValues(RESOURCE, "DELETED").inc();
        }
      }
    }
    if (gone > 0) {
      log.info("{} pod(s) reported live earlier are gone ({}); reported DELETED", gone, reason);
    }
  }

  private static PodObservation normalise(PodObservation p) {
    return PodObservation.newBuilder(p)
        .setResourceVersion(null)
        .setObservedAt(0L)
        .setChangeType(ChangeType.MODIFIED)
        .build();
  }

  @Override
  public void close() {
    if (informers != null) {
      informers.close();
    }
  }
}
