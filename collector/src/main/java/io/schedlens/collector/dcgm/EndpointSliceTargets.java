package io.schedlens.collector.dcgm;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * dcgm-exporter targets discovered from the EndpointSlices of its Service: EndpointSlices carry the
 * labels of their Service, so the Service's selector (by default {@code
 * app.kubernetes.io/name=dcgm-exporter}) finds them. Only ready endpoints are scraped; the node
 * each runs on names its GPUs.
 */
public final class EndpointSliceTargets implements Supplier<List<ScrapeTarget>>, AutoCloseable {

  /** One informer per namespace: discovery never looks cluster-wide. */
  private final List<SharedIndexInformer<EndpointSlice>> informers = new ArrayList<>();

  private final String portName;
  private final String path;

  public EndpointSliceTargets(
      KubernetesClient client,
      List<String> namespaces,
      String selector,
      String portName,
      String path) {
    this.portName = portName;
    this.path = path.startsWith("/") ? path : "/" + path;
    if (namespaces.isEmpty()) {
      throw new IllegalArgumentException("dcgm-exporter discovery needs its namespaces");
    }
    for (String namespace : namespaces) {
      SharedIndexInformer<EndpointSlice> informer =
          client
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace(namespace)
              .withLabelSelector(selector)
              .runnableInformer(0);
      informer.addEventHandler(
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(EndpointSlice obj) {}

            @Override
            public void onUpdate(EndpointSlice oldObj, EndpointSlice newObj) {}

            @Override
            public void onDelete(EndpointSlice obj, boolean deletedFinalStateUnknown) {}
          });
      informer.exceptionHandler((started, t) -> true);
      informer.start();
      informers.add(informer);
    }
  }

  @Override
  public List<ScrapeTarget> get() {
    List<ScrapeTarget> targets = new ArrayList<>();
    for (SharedIndexInformer<EndpointSlice> informer : informers) {
      for (EndpointSlice slice : informer.getStore().list()) {
        targets.addAll(targetsOf(slice, portName, path));
      }
    }
    return targets;
  }

  /** The scrape targets of one slice. */
  static List<ScrapeTarget> targetsOf(EndpointSlice slice, String portName, String path) {
    Integer port = null;
    if (slice.getPorts() != null) {
      for (EndpointPort p : slice.getPorts()) {
        if (portName.isEmpty() || portName.equals(p.getName())) {
          port = p.getPort();
          break;
        }
      }
    }
    List<ScrapeTarget> out = new ArrayList<>();
    if (port == null || slice.getEndpoints() == null) {
      return out;
    }
    for (Endpoint e : slice.getEndpoints()) {
      boolean ready =
          e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady());
      if (!ready || e.getAddresses() == null || e.getAddresses().isEmpty()) {
        continue;
      }
      String address = e.getAddresses().get(0);
      String host = "IPv6".equals(slice.getAddressType()) ? "[" + address + "]" : address;
      out.add(new ScrapeTarget("http://" + host + ":" + port + path, e.getNodeName()));
    }
    return out;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
