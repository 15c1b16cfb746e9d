package io.schedlens.simulator.live;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.schedlens.simulator.cluster.ClusterWriter;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the simulated cluster into a Kubernetes API through fabric8: pods created, updated (spec
 * and metadata), their status through the status subresource, removed; scheduler events through
 * {@code events.k8s.io/v1}, kubelet events through core {@code v1}, as in a real cluster.
 */
public final class KubernetesClusterWriter implements ClusterWriter {

  private final KubernetesClient client;
  private final Set<String> events = new HashSet<>();
  private final AtomicLong writes = new AtomicLong();

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
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  @Override
  public void updatePod(Pod pod) {
    writes.incrementAndGet();
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).update();
  }

  @Override
  public void updatePodStatus(Pod pod) {
    writes.incrementAndGet();
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
    client
        .resource(workload)
        .inNamespace(workload.getMetadata().getNamespace())
        .createOr(existing -> existing.update());
  }

  @Override
  public void deleteObject(HasMetadata workload) {
    writes.incrementAndGet();
    client.resource(workload).inNamespace(workload.getMetadata().getNamespace()).delete();
  }
}
