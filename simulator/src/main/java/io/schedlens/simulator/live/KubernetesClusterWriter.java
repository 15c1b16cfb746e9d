package io.schedlens.simulator.live;

import io.fabric8.kubernetes.api.Pluralize;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.schedlens.simulator.cluster.ClusterWriter;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the simulated cluster into a Kubernetes API through fabric8: pods created, updated (spec
 * and metadata), their status through the status subresource, removed; scheduler events through
 * {@code events.k8s.io/v1}, kubelet events through core {@code v1}, as in a real cluster;
 * controllers' objects of any kind (JobSet, RayCluster, ... through the generic client).
 *
 * <p>An API server gives each object it creates a UID of its own, and a controller names its owner
 * by the UID it read back: the owner references of what this writes are rewritten to the UIDs the
 * API server kept, so that an owner chain resolves as in a cluster.
 */
public final class KubernetesClusterWriter implements ClusterWriter {

  private final KubernetesClient client;
  private final Set<String> events = new HashSet<>();
  private final AtomicLong writes = new AtomicLong();

  /** The UID the simulator gave an owner → the one the API server kept. */
  private final Map<String, String> kept = new ConcurrentHashMap<>();

  public KubernetesClusterWriter(KubernetesClient client) {
    this.client = client;
  }

  /** API requests made so far. */
  public long writes() {
    return writes.get();
  }

  @Override
  public void createPod(Pod pod) {
    writes.incrementAndGet();
    pod = ownersAsKept(pod);
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  @Override
  public void updatePod(Pod pod) {
    writes.incrementAndGet();
    pod = ownersAsKept(pod);
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).update();
  }

  @Override
  public void updatePodStatus(Pod pod) {
    writes.incrementAndGet();
    pod = ownersAsKept(pod);
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
  }

  @Override
  public void deletePod(String namespace, String name) {
    writes.incrementAndGet();
    client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
  }

  @Override
  public void schedulerEvent(Event event) {
    writes.incrementAndGet();
    String key = "e/" + event.getMetadata().getNamespace() + "/" + event.getMetadata().getName();
    var api = client.events().v1().events().inNamespace(event.getMetadata().getNamespace());
    if (events.add(key)) {
      api.resource(event).create();
    } else {
      try {
        api.resource(event).update();
      } catch (KubernetesClientException e) {
        api.resource(event).createOr(existing -> existing.update());
      }
    }
  }

  @Override
  public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {
    writes.incrementAndGet();
    client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
  }

  @Override
  public void applyObject(HasMetadata workload) {
    writes.incrementAndGet();
    HasMetadata o = ownersAsKept(workload);
    String namespace = o.getMetadata().getNamespace();
    HasMetadata written =
        namespace == null
            ? client.resource(o).createOr(existing -> existing.update())
            : o instanceof GenericKubernetesResource g
                ? client
                    .genericKubernetesResources(context(g))
                    .inNamespace(namespace)
                    .resource(g)
                    .createOr(existing -> existing.update())
                : client.resource(o).inNamespace(namespace).createOr(existing -> existing.update());
    String uid = o.getMetadata().getUid();
    if (uid != null && written != null && written.getMetadata().getUid() != null) {
      kept.put(uid, written.getMetadata().getUid());
    }
  }

  @Override
  public void deleteObject(HasMetadata workload) {
    writes.incrementAndGet();
    String namespace = workload.getMetadata().getNamespace();
    if (workload instanceof GenericKubernetesResource g) {
      client.genericKubernetesResources(context(g)).inNamespace(namespace).resource(g).delete();
    } else {
      client.resource(workload).inNamespace(namespace).delete();
    }
  }

  /**
   * Where a kind the client has no model for lives: its group and version from the apiVersion, its
   * resource the kind's plural in lower case (JobSet: jobsets), namespaced.
   */
  private static ResourceDefinitionContext context(GenericKubernetesResource g) {
    String apiVersion = g.getApiVersion();
    int slash = apiVersion.indexOf('/');
    return new ResourceDefinitionContext.Builder()
        .withGroup(slash < 0 ? "" : apiVersion.substring(0, slash))
        .withVersion(apiVersion.substring(slash + 1))
        .withKind(g.getKind())
        .withPlural(Pluralize.toPlural(g.getKind().toLowerCase(Locale.ROOT)))
        .withNamespaced(true)
        .build();
  }

  /**
   * {@code o}, or a copy of it whose owner references name the UIDs the API server kept; the
   * simulator's own object is not changed.
   */
  private <T extends HasMetadata> T ownersAsKept(T o) {
    boolean renamed =
        o.getMetadata().getOwnerReferences().stream()
            .anyMatch(
                r -> kept.containsKey(r.getUid()) && !kept.get(r.getUid()).equals(r.getUid()));
    if (!renamed) {
      return o;
    }
    T copy = client.getKubernetesSerialization().clone(o);
    for (OwnerReference r : copy.getMetadata().getOwnerReferences()) {
      r.setUid(kept.getOrDefault(r.getUid(), r.getUid()));
    }
    return copy;
  }
}
