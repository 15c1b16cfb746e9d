package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.schedlens.avro.ChangeType;
import io.schedlens.base.KubeTime;
import io.schedlens.collector.CollectorMetrics;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of one resource kind (one per watched namespace, or one for all): each retries
 * through API errors, logs when it stops, and reports whether it has synced (listed and is
 * watching), which the collector's readiness depends on.
 */
final class InformerHandle<T extends HasMetadata> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InformerHandle.class);

  private final String resource;
  private final List<SharedIndexInformer<T>> informers;
  private final CompletableFuture<Void> synced;
  private final CollectorMetrics metrics;

  private InformerHandle(
      String resource,
      List<SharedIndexInformer<T>> informers,
      CompletableFuture<Void> synced,
      CollectorMetrics metrics) {
    this.resource = resource;
    this.informers = informers;
    this.synced = synced;
    this.metrics = metrics;
  }

  /**
   * The change an informer's add stands for: an object created before the second the collector
   * started (creation times have second granularity) may have been listed rather than watched, so
   * it is a RELIST; a newer one was ADDED.
   */
  static ChangeType addType(HasMetadata o, long startedAt) {
    Long created = KubeTime.millis(o.getMetadata().getCreationTimestamp());
    return created == null || created < startedAt ? ChangeType.RELIST : ChangeType.ADDED;
  }

  /**
   * The change an informer's update stands for: a periodic resync (same resourceVersion) or not.
   */
  static ChangeType updateType(HasMetadata before, HasMetadata after) {
    return Objects.equals(
            before.getMetadata().getResourceVersion(), after.getMetadata().getResourceVersion())
        ? ChangeType.RELIST
        : ChangeType.MODIFIED;
  }

  /** The second the collector started, for {@link #addType}. */
  static long startSecond(Clock clock) {
    return clock.millis() / 1000 * 1000;
  }

  /** How many objects a list asks for at a time (the informers' initial list and relists). */
  static final long LIST_PAGE = 500;

  /** Creates, wires and starts the informers, their caches keeping whole objects. */
  static <T extends HasMetadata> InformerHandle<T> start(
      String resource,
      List<Informable<T>> sources,
      ResourceEventHandler<T> handler,
      CollectorMetrics metrics) {
    return start(resource, sources, handler, metrics, UnaryOperator.identity());
  }

  /**
   * Creates, wires and starts the informers. Their lists are paged ({@link #LIST_PAGE} objects a
   * page, so neither the API server nor the collector holds one answer of every object), and their
   * caches keep each object as {@code retain} leaves it (the handlers see it so too). Handlers must
   * not block.
   */
  static <T extends HasMetadata> InformerHandle<T> start(
      String resource,
      List<Informable<T>> sources,
      ResourceEventHandler<T> handler,
      CollectorMetrics metrics,
      UnaryOperator<T> retain) {
    List<SharedIndexInformer<T>> informers = new ArrayList<>();
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    metrics.informerSynced.labelValues(resource).set(0);
    for (Informable<T> source : sources) {
      SharedIndexInformer<T> informer = source.withLimit(LIST_PAGE).runnableInformer(0);
      informer.itemStore(new RetainingItemStore<>(retain));
      informer.addEventHandler(handler);
      informer.exceptionHandler(
          (isStarted, t) -> {
            log.warn("{} informer: {} (retrying)", resource, t.toString());
            return true;
          });
      informer
          .stopped()
          .whenComplete(
              (v, t) -> {
                metrics.informerSynced.labelValues(resource).set(0);
                if (t != null) {
                  log.error("{} informer stopped: {}", resource, t.toString());
                } else {
                  log.info("{} informer stopped", resource);
                }
              });
      informers.add(informer);
      starts.add(informer.start().toCompletableFuture());
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new));
    all.thenRun(
        () -> {
          metrics.informerSynced.labelValues(resource).set(1);
          log.info("{} informer synced", resource);
        });
    return new InformerHandle<>(resource, informers, all, metrics);
  }

  /** Drops an object's managed fields (often half its size), which no projection of it reads. */
  static <T extends HasMetadata> T withoutManagedFields(T object) {
    if (object.getMetadata() != null) {
      object.getMetadata().setManagedFields(null);
    }
    return object;
  }

  /** Completes once every informer has listed its objects. */
  CompletableFuture<Void> synced() {
    return synced;
  }

  /** Whether every informer has synced and is still running. */
  boolean hasSynced() {
    return informers.stream().allMatch(i -> i.hasSynced() && i.isRunning());
  }

  /** The objects currently in the informers' caches. */
  List<T> list() {
    List<T> all = new ArrayList<>();
    informers.forEach(i -> all.addAll(i.getStore().list()));
    return all;
  }

  /** The object cached under {@code namespace/name}, or null. */
  T get(String key) {
    for (SharedIndexInformer<T> i : informers) {
      T o = i.getStore().getByKey(key);
      if (o != null) {
        return o;
      }
    }
    return null;
  }

  String resource() {
    return resource;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    metrics.informerSynced.labelValues(resource).set(0);
  }
}
