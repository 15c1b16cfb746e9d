package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.k8s.QueueWorkloadProjection;
import io.schedlens.projections.records.Records;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kueue's Workloads ({@code workloads.kueue.x-k8s.io}) to {@code schedlens.workloads}, read-only,
 * as observations of the objects they admit ({@link QueueWorkloadProjection}).
 *
 * <p>Kueue is optional: API discovery tells which version the cluster serves (v1beta2, else
 * v1beta1). A cluster without Kueue is asked again every {@code queues.discovery.interval}, so the
 * watch starts when Kueue is installed; until then nothing is watched and one line says so. A
 * collector that may not list Workloads says that once, with what to grant.
 */
public final class QueueWorkloadSource implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(QueueWorkloadSource.class);
  private static final String RESOURCE = "queue-workloads";
  private static final String PLURAL = "workloads";

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final CollectorMetrics metrics;
  private final Duration discoveryInterval;
  private final ChangeFilter<WorkloadObservation> sent =
      new ChangeFilter<>(WorkloadSource::normalise);

  /** What each Workload admits (namespace/kind/name), by its UID: a preemption's preemptor. */
  private final Map<String, String> admits = new ConcurrentHashMap<>();

  private final ScheduledExecutorService discovery =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "schedlens-kueue-discovery");
            t.setDaemon(true);
            return t;
          });
  private volatile InformerHandle<GenericKubernetesResource> informers;
  private volatile boolean saidAbsent;
  private final long startedAt;

  public QueueWorkloadSource(
      KubernetesClient client,
      List<String> namespaces,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics,
      Duration discoveryInterval) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.metrics = metrics;
    this.discoveryInterval = discoveryInterval;
    this.startedAt = InformerHandle.startSecond(clock);
  }

  /** Looks for Kueue now, and again every discovery interval until found. */
  public void start() {
    discovery.execute(this::discover);
  }

  /** Whether Workloads are watched and listed, or not served (nothing to wait for). */
  public boolean hasSynced() {
    InformerHandle<GenericKubernetesResource> i = informers;
    return i == null || i.hasSynced();
  }

  private void discover() {
    try {
      String version = servedVersion();
      if (version == null) {
        if (!saidAbsent) {
          log.info(
              "queues: Kueue's Workloads ({}.{}) are not served by this cluster; not watched,"
                  + " asked again every {}",
              PLURAL,
              QueueWorkloadProjection.GROUP,
              discoveryInterval);
          saidAbsent = true;
        }
      } else if (listable(version)) {
        watch(version);
        return;
      } else {
        return; // forbidden: said once; a restart after the grant starts the watch
      }
    } catch (RuntimeException e) {
      log.warn(
          "queues: cannot ask the API server for Kueue's Workloads ({}); asking again",
          e.toString());
    }
    if (!discovery.isShutdown()) {
      discovery.schedule(this::discover, discoveryInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The newest version of the Workload API the cluster serves, or null. */
  private String servedVersion() {
    for (String version : QueueWorkloadProjection.VERSIONS) {
      APIResourceList resources;
      try {
        resources = client.getApiResources(QueueWorkloadProjection.GROUP + "/" + version);
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
          continue;
        }
        throw e;
      }
      if (resources != null && resources.getResources() != null) {
        for (APIResource r : resources.getResources()) {
          if (PLURAL.equals(r.getName())) {
            return version;
          }
        }
      }
    }
    return null;
  }

  private ResourceDefinitionContext context(String version) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(QueueWorkloadProjection.GROUP)
        .withVersion(version)
        .withKind("Workload")
        .withPlural(PLURAL)
        .withNamespaced(true)
        .build();
  }

  /** Whether the collector may list Workloads: one small list, said once when it may not. */
  private boolean listable(String version) {
    var op = client.genericKubernetesResources(context(version));
    try {
      (namespaces.isEmpty() ? op.inAnyNamespace() : op.inNamespace(namespaces.get(0)))
          .list(new ListOptionsBuilder().withLimit(1L).build());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_FORBIDDEN) {
        throw e;
      }
      log.warn(
          "queues: may not list Kueue's Workloads ({}); queue waits and Kueue's preemptions are"
              + " not told. Grant get, list and watch on {}.{} (the chart's ClusterRole does when"
              + " collector.queues.watch is on), or set queues.watch=false",
          e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage(),
          PLURAL,
          QueueWorkloadProjection.GROUP);
      return false;
    }
  }

  private void watch(String version) {
    List<Informable<GenericKubernetesResource>> sources = new ArrayList<>();
    var op = client.genericKubernetesResources(context(version));
    if (namespaces.isEmpty()) {
      sources.add(op.inAnyNamespace());
    } else {
      namespaces.forEach(ns -> sources.add(op.inNamespace(ns)));
    }
    informers =
        InformerHandle.start(
            RESOURCE, sources, handler(), metrics, QueueWorkloadSource::withoutPodTemplates);
    metrics.queueWorkloadsWatched.set(1);
    log.info("queues: watching Kueue's Workloads ({}/{})", QueueWorkloadProjection.GROUP, version);
  }

  private ResourceEventHandler<GenericKubernetesResource> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource w) {
        send(w, InformerHandle.addType(w, startedAt));
      }

      @Override
      public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
        send(after, InformerHandle.updateType(before, after));
      }

      @Override
      public void onDelete(GenericKubernetesResource w, boolean finalStateUnknown) {
        send(w, ChangeType.DELETED);
        if (w.getMetadata() != null && w.getMetadata().getUid() != null) {
          admits.remove(w.getMetadata().getUid());
        }
      }
    };
  }

  private void send(GenericKubernetesResource w, ChangeType change) {
    String admitted = QueueWorkloadProjection.admits(w);
    if (admitted != null && w.getMetadata().getUid() != null) {
      admits.put(w.getMetadata().getUid(), admitted);
    }
    for (WorkloadObservation o :
        QueueWorkloadProjection.project(w, change, clock.millis(), admits::get)) {
      String id = o.getQueueWorkload().getUid() + "/" + o.getUid();
      if (change != ChangeType.DELETED && !sent.isChange(id, o)) {
        metrics.kubernetesUnchanged.labelValues(RESOURCE).inc();
        continue;
      }
      if (sink.offer(records.workload(o))) {
        if (change == ChangeType.DELETED) {
          sent.forget(id);
        } else {
          sent.record(id, o);
        }
        metrics.kubernetesChanges.labelValues(RESOURCE, change.name()).inc();
      }
    }
  }

  /**
   * Keeps of a Workload what the projection reads: a Workload carries its pods' templates (spec
   * podSets) and their assignments, which the cache need not hold.
   */
  static GenericKubernetesResource withoutPodTemplates(GenericKubernetesResource w) {
    if (w.getMetadata() != null) {
      w.getMetadata().setManagedFields(null);
      w.getMetadata().setAnnotations(null);
    }
    Map<String, Object> props = w.getAdditionalProperties();
    if (props.get("spec") instanceof Map<?, ?> spec) {
      Map<String, Object> kept = new LinkedHashMap<>();
      for (String k : List.of("queueName", "priority", "priorityClassName", "priorityClassRef")) {
        if (spec.containsKey(k)) {
          kept.put(k, spec.get(k));
        }
      }
      props.put("spec", kept);
    }
    if (props.get("status") instanceof Map<?, ?> status) {
      Map<String, Object> kept = new LinkedHashMap<>();
      for (String k : List.of("conditions", "requeueState")) {
        if (status.containsKey(k)) {
          kept.put(k, status.get(k));
        }
      }
      if (status.get("admission") instanceof Map<?, ?> admission) {
        kept.put(
            "admission", Map.of("clusterQueue", String.valueOf(admission.get("clusterQueue"))));
      }
      props.put("status", kept);
    }
    return w;
  }

  @Override
  public void close() {
    discovery.shutdownNow();
    if (informers != null) {
      informers.close();
    }
  }
}
