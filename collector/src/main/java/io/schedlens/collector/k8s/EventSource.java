package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.collector.kafka.KafkaSink;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.k8s.EventProjection;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.EventTimes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Events about pods to {@code schedlens.k8s-events}, keyed by the regarding pod's UID, from
 * events.k8s.io/v1 and core/v1. Both APIs serve the same stored events; an event already sent
 * through one is not sent again through the other. Every repetition (series count or count update)
 * is sent. The Events API offers no filter on the regarding kind that every server honours, so
 * events about other objects are dropped here, in code.
 */
public final class EventSource implements AutoCloseable {

  private static final String RESOURCE = "events";

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final List<String> apis;
  private final KafkaSink sink;
  private final Records records;
  private final Clock clock;
  private final CollectorMetrics metrics;
  private final ChangeFilter<ClusterEvent> sent = new ChangeFilter<>(EventSource::normalise);
  private final long startedAt;
  private final List<InformerHandle<? extends HasMetadata>> informers = new ArrayList<>();

  private final InputBounds bounds;

  public EventSource(
      KubernetesClient client,
      List<String> namespaces,
      List<String> apis,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics) {
    this(client, namespaces, apis, sink, records, clock, metrics, InputBounds.defaults());
  }

  /** An event source whose events must be timed within {@code bounds}. */
  public EventSource(
      KubernetesClient client,
      List<String> namespaces,
      List<String> apis,
      KafkaSink sink,
      Records records,
      Clock clock,
      CollectorMetrics metrics,
      InputBounds bounds) {
    this.bounds = bounds;
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.apis = List.copyOf(apis);
    this.sink = sink;
    this.records = records;
    this.clock = clock;
    this.metrics = metrics;
    // Creation times have second granularity: only what was created before the second the
    // collector started can have been listed rather than watched.
    this.startedAt = InformerHandle.startSecond(clock);
  }

  public void start() {
    sink.onGap(Records.EVENTS, () -> resend("overflow"));
    if (apis.contains(EventProjection.EVENTS_V1)) {
      List<Informable<io.fabric8.kubernetes.api.model.events.v1.Event>> sources = new ArrayList<>();
      var events = client.events().v1().events();
      if (namespaces.isEmpty()) {
        sources.add(events.inAnyNamespace());
      } else {
        namespaces.forEach(ns -> sources.add(events.inNamespace(ns)));
      }
      informers.add(
          InformerHandle.start(
              "events.k8s.io/v1",
              sources,
              new Handler<>((e, change) -> EventProjection.project(e, change, clock.millis())),
              metrics,
              InformerHandle::withoutManagedFields));
    }
    if (apis.contains(EventProjection.CORE_V1)) {
      List<Informable<Event>> sources = new ArrayList<>();
      var events = client.v1().events();
      if (namespaces.isEmpty()) {
        sources.add(events.inAnyNamespace());
      } else {
        namespaces.forEach(ns -> sources.add(events.inNamespace(ns)));
      }
      informers.add(
          InformerHandle.start(
              "events/v1",
              sources,
              new Handler<>((e, change) -> EventProjection.project(e, change, clock.millis())),
              metrics,
              InformerHandle::withoutManagedFields));
    }
  }

  /** Whether every event informer has listed. */
  public boolean hasSynced() {
    return informers.stream().allMatch(InformerHandle::hasSynced);
  }

  private interface Projector<T> {
    ClusterEvent project(T event, ChangeType change);
  }

  private final class Handler<T extends HasMetadata> implements ResourceEventHandler<T> {
    private final Projector<T> projector;

    Handler(Projector<T> projector) {
      this.projector = projector;
    }

    @Override
    public void onAdd(T e) {
      send(projector.project(e, InformerHandle.addType(e, startedAt)));
    }

    @Override
    public void onUpdate(T oldEvent, T newEvent) {
      send(projector.project(newEvent, InformerHandle.updateType(oldEvent, newEvent)));
    }

    @Override
    public void onDelete(T e, boolean deletedFinalStateUnknown) {
      // An event's deletion is its TTL running out, not a fact about the pod.
      sent.forget(e.getMetadata().getUid());
    }
  }

  private void send(ClusterEvent e) {
    if (!EventProjection.isAboutPod(e)) {
      metrics.eventsIgnored.inc();
      return;
    }
    if (e.getRegarding().getUid() == null) {
      sink.offer(
          records.deadLetter(
              "k8s:" + e.getApiVersion(),
              "event-without-pod-uid",
              "event "
                  + e.getNamespace()
                  + "/"
                  + e.getName()
                  + " ("
                  + e.getReason()
                  + ") names no pod UID",
              null,
              null,
              clock.millis(),
              null));
      metrics.deadLetters.labelValues("k8s:events", "event-without-pod-uid").inc();
      return;
    }
    String problem = bounds.timeProblem(EventTimes.of(e), clock.millis());
    if (problem != null) {
      sink.offer(
          records.deadLetter(
              "k8s:" + e.getApiVersion(),
              InputBounds.TIME_OUT_OF_RANGE,
              "event "
                  + e.getNamespace()
                  + "/"
                  + e.getName()
                  + " ("
                  + e.getReason()
                  + "): "
                  + problem,
              null,
              null,
              clock.millis(),
              null));
      metrics.deadLetters.labelValues("k8s:events", InputBounds.TIME_OUT_OF_RANGE).inc();
      return;
    }
    if (!sent.isChange(e.getUid(), e)) {
      metrics.kubernetesUnchanged.labelValues(RESOURCE).inc();
      return;
    }
    if (sink.offer(records.event(e))) {
      sent.record(e.getUid(), e);
      metrics.kubernetesChanges.labelValues(RESOURCE, e.getChangeType().name()).inc();
    }
  }

  void resend(String reason) {
    metrics.relists.labelValues(RESOURCE, reason).inc();
    for (InformerHandle<? extends HasMetadata> handle : informers) {
      for (HasMetadata o : handle.list()) {
        ClusterEvent e =
            o instanceof Event core
                ? EventProjection.project(core, ChangeType.RELIST, clock.millis())
                : EventProjection.project(
                    (io.fabric8.kubernetes.api.model.events.v1.Event) o,
                    ChangeType.RELIST,
                    clock.millis());
        send(e);
      }
    }
  }

  private static ClusterEvent normalise(ClusterEvent e) {
    return ClusterEvent.newBuilder(e)
        .setApiVersion("")
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
