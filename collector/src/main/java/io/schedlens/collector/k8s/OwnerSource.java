package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.projections.k8s.OwnerChain;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects pods' controller chains run through ({@code owners.kinds}), kept as what a chain
 * needs of each (its kind, name, UID and controller: {@link OwnerChain.Owner}), so a chain is
 * resolved from this cache, never by an API call per pod. Each kind is watched through fabric8's
 * generic client (no per-kind code) and its objects reduced to their metadata as they arrive:
 * fabric8 lists and gets metadata alone ({@code PartialObjectMetadata}) but does not watch so
 * (fabric8io/kubernetes-client#5716), so the wire carries whole objects, the cache does not.
 *
 * <p>A kind the cluster does not serve is skipped, and one the collector may not list ends every
 * chain that reaches it, each said in one log line at start, never per pod. An object a pod names
 * before its kind's watch has told of it (the watches of different kinds are not ordered) is read
 * once, its metadata only, and kept; one that does not exist any more is remembered as gone.
 */
public final class OwnerSource implements OwnerChain.Lookup, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OwnerSource.class);

  /** Pods own objects too (a LeaderWorkerSet's leader pod owns its workers' StatefulSet). */
  private static final OwnerKind POD = new OwnerKind("", "v1", "Pod");

  /** How many references to objects found gone are remembered (oldest forgotten first). */
  static final int GONE_REMEMBERED = 10_000;

  private final KubernetesClient client;
  private final List<String> namespaces;
  private final List<OwnerKind> kinds;
  private final CollectorMetrics metrics;
  private final BiFunction<String, OwnerChain.Ref, OwnerChain.Owner> pods;
  private final Map<String, OwnerChain.Owner> byUid = new ConcurrentHashMap<>();
  private final Map<String, OwnerKind> readable = new ConcurrentHashMap<>();
  private final Map<String, Boolean> gone =
      new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > GONE_REMEMBERED;
        }
      };
  private final List<InformerHandle<GenericKubernetesResource>> informers = new ArrayList<>();

  /**
   * @param pods finds a pod named by an owner reference (a LeaderWorkerSet's worker StatefulSet is
   *     owned by its leader pod), from the pod source's cache; null when not known
   */
  public OwnerSource(
      KubernetesClient client,
      List<String> namespaces,
      List<OwnerKind> kinds,
      CollectorMetrics metrics,
      BiFunction<String, OwnerChain.Ref, OwnerChain.Owner> pods) {
    this.client = client;
    this.namespaces = List.copyOf(namespaces);
    this.kinds = List.copyOf(kinds);
    this.metrics = metrics;
    this.pods = pods;
  }

  /**
   * Finds out which kinds the cluster serves and the collector may list, and watches those. The
   * returned future completes when every watched kind has listed its objects.
   */
  public CompletableFuture<Void> start() {
    List<CompletableFuture<Void>> synced = new ArrayList<>();
    for (OwnerKind kind : kinds) {
      if (!listable(kind)) {
        continue;
      }
      readable.put(key(kind.group(), kind.kind()), kind);
      List<Informable<GenericKubernetesResource>> sources = new ArrayList<>();
      if (namespaces.isEmpty()) {
        sources.add(objects(kind).inAnyNamespace());
      } else {
        namespaces.forEach(ns -> sources.add(objects(kind).inNamespace(ns)));
      }
      InformerHandle<GenericKubernetesResource> handle =
          InformerHandle.start(
              "owners:" + kind, sources, handler(), metrics, OwnerSource::metadataOnly);
      informers.add(handle);
      synced.add(handle.synced());
    }
    metrics.ownerKindsWatched.set(readable.size());
    return CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
  }

  /** Whether every watched kind has listed its objects and is watching. */
  public boolean hasSynced() {
    return informers.stream().allMatch(InformerHandle::hasSynced);
  }

  /** The kinds being watched. */
  public Set<OwnerKind> watched() {
    return Set.copyOf(readable.values());
  }

  private MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      objects(OwnerKind kind) {
    return client.genericKubernetesResources(kind.context());
  }

  /** Whether the collector may list the kind: one small list, said once when it may not. */
  private boolean listable(OwnerKind kind) {
    String where = namespaces.isEmpty() ? null : namespaces.get(0);
    try {
      var op = objects(kind);
      (where == null ? op.inAnyNamespace() : op.inNamespace(where))
          .listAsPartialObjectMetadata(new ListOptionsBuilder().withLimit(1L).build());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        log.info("owners: {} is not served by this cluster; not watched", kind);
      } else if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN) {
        log.warn(
            "owners: may not list {} ({}); chains of pods end where they reach one. Grant get,"
                + " list and watch on {} (the chart's ClusterRole lists every kind of"
                + " owners.kinds), or leave it out of owners.kinds",
            kind,
            e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage(),
            kind.plural());
      } else {
        log.warn(
            "owners: cannot list {} ({}); not watched until the collector restarts",
            kind,
            e.getMessage());
      }
      return false;
    }
  }

  private ResourceEventHandler<GenericKubernetesResource> handler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource o) {
        keep(o);
      }

      @Override
      public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
        keep(after);
      }

      @Override
      public void onDelete(GenericKubernetesResource o, boolean finalStateUnknown) {
        // A chain once resolved stays with its pods (PodSource); pods of a deleted owner are
        // deleted or orphaned, and an orphan's next observation names no controller.
        if (o.getMetadata() != null && o.getMetadata().getUid() != null) {
          byUid.remove(o.getMetadata().getUid());
        }
      }
    };
  }

  private void keep(HasMetadata o) {
    if (o.getMetadata() != null && o.getMetadata().getUid() != null) {
      byUid.put(o.getMetadata().getUid(), OwnerChain.Owner.of(o));
    }
  }

  /** Keeps of an object only its kind and metadata, and of the metadata what a chain reads. */
  static GenericKubernetesResource metadataOnly(GenericKubernetesResource o) {
    o.setAdditionalProperties(new LinkedHashMap<>()); // spec, status, data: all else
    var meta = o.getMetadata();
    if (meta != null) {
      meta.setManagedFields(null);
      meta.setAnnotations(null);
      meta.setLabels(null);
      meta.setFinalizers(null);
    }
    return o;
  }

  @Override
  public OwnerChain.Owner find(String namespace, OwnerChain.Ref ref) {
    if (ref.uid() != null) {
      OwnerChain.Owner known = byUid.get(ref.uid());
      if (known != null) {
        return known;
      }
    }
    OwnerKind kind;
    if ("Pod".equals(ref.kind()) && "".equals(ref.group())) {
      OwnerChain.Owner pod = pods.apply(namespace, ref);
      if (pod != null) {
        return pod;
      }
      kind = POD; // listed, but not yet in the cache: pods are listed in no order
    } else {
      kind = readable.get(key(ref.group(), ref.kind()));
    }
    if (kind == null || ref.uid() == null) {
      return null;
    }
    synchronized (gone) {
      if (gone.containsKey(ref.uid())) {
        return null;
      }
    }
    return fetch(namespace, ref, kind);
  }

  /** Reads one object named before its watch told of it: its metadata only. */
  private OwnerChain.Owner fetch(String namespace, OwnerChain.Ref ref, OwnerKind kind) {
    try {
      PartialObjectMetadata meta =
          objects(kind).inNamespace(namespace).withName(ref.name()).getAsPartialObjectMetadata();
      if (meta == null
          || meta.getMetadata() == null
          || !ref.uid().equals(meta.getMetadata().getUid())) {
        metrics.ownerReads.labelValues("gone").inc();
        synchronized (gone) {
          gone.put(ref.uid(), Boolean.TRUE);
        }
        return null;
      }
      metrics.ownerReads.labelValues("found").inc();
      OwnerChain.Owner owner =
          new OwnerChain.Owner(
              ref.apiVersion(),
              ref.kind(),
              ref.name(),
              ref.uid(),
              OwnerChain.Ref.controllerOf(meta.getMetadata().getOwnerReferences()));
      byUid.putIfAbsent(ref.uid(), owner);
      return owner;
    } catch (KubernetesClientException e) {
      metrics.ownerReads.labelValues("failed").inc();
      log.debug("owners: cannot read {} {}/{}: {}", kind, namespace, ref.name(), e.getMessage());
      return null;
    }
  }

  /** How many owners the cache holds. */
  public int size() {
    return byUid.size();
  }

  /** Kinds are told apart by group and kind: a reference may name another served version. */
  private static String key(String group, String kind) {
    return group + " " + kind;
  }

  @Override
  public void close() {
    informers.forEach(InformerHandle::close);
  }
}
