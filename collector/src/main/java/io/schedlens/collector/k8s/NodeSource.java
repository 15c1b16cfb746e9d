package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.schedlens.collector.CollectorMetrics;
import io.schedlens.projections.k8s.NodeGpuLabels;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes' NVIDIA labels, for the pods' {@code gpuReplicas}, {@code gpuSharing} and {@code
 * gpuProduct} ({@link NodeGpuLabels}): a cache of nodes holding their names and those labels alone.
 * Nothing is sent for a node; a pod observation reads its node here. The collector's readiness does
 * not wait for it (a pod observed before the nodes are listed says nothing of its node, and the
 * streams app keeps what a later one says).
 */
public final class NodeSource implements ResourceEventHandler<Node>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(NodeSource.class);
  private static final String RESOURCE = "nodes";

  private final KubernetesClient client;
  private final CollectorMetrics metrics;
  private InformerHandle<Node> informers;

  public NodeSource(KubernetesClient client, CollectorMetrics metrics) {
    this.client = client;
    this.metrics = metrics;
  }

  /**
   * Starts watching the nodes and waits, at most {@code wait}, until they are listed, so that the
   * pods listed at start find their nodes.
   */
  public void startAndWait(Duration wait) {
    if (!readable()) {
      return;
    }
    informers =
        InformerHandle.start(
            RESOURCE, List.of(client.nodes()), this, metrics, NodeGpuLabels::retainRead);
    try {
      informers.synced().get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.warn(
          "nodes: not listed within {} s ({}); pods start now and say nothing of their node's GPU"
              + " sharing until it is listed. Without RBAC to list nodes, set gpu.node-labels=false",
          wait.toSeconds(),
          e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Whether the API lets the collector list nodes: asked once, so that a collector without the
   * rights (403) or an API without nodes (404) says so once and starts at once, instead of retrying
   * a watch it will never get. Another failure (the API away) is the informer's to retry.
   */
  private boolean readable() {
    try {
      client.nodes().list(new ListOptionsBuilder().withLimit(1L).build());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403 || e.getCode() == 404) {
        log.warn(
            "nodes: cannot be listed ({} {}): replicas per GPU and GPU models are not read from"
                + " the nodes, and a shared replica counts as a whole GPU. Grant get, list and"
                + " watch on nodes (the chart's collector.nodeLabels), or set"
                + " gpu.node-labels=false",
            e.getCode(),
            e.getStatus() == null ? "" : e.getStatus().getReason());
        return false;
      }
      return true;
    }
  }

  /** What the node's labels say of {@code resource}; {@link NodeGpuLabels#NONE} when unknown. */
  public NodeGpuLabels of(String node, String resource) {
    if (node == null || resource == null || informers == null) {
      return NodeGpuLabels.NONE;
    }
    Node n = informers.get(node);
    return n == null ? NodeGpuLabels.NONE : NodeGpuLabels.of(n.getMetadata().getLabels(), resource);
  }

  @Override
  public void onAdd(Node node) {}

  @Override
  public void onUpdate(Node before, Node after) {}

  @Override
  public void onDelete(Node node, boolean deletedFinalStateUnknown) {}

  @Override
  public void close() {
    if (informers != null) {
      informers.close();
    }
  }
}
