package io.schedlens.collector.dcgm;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * dcgm-exporter targets discovered from the EndpointSlices of its Service: EndpointSlices carry the
 * labels of their Service, so the Service's selector finds them. Two conventions are in use and
 * both are found by default: the NVIDIA GPU Operator labels its Service {@code
 * app=nvidia-dcgm-exporter} with the port {@code gpu-metrics}; the standalone dcgm-exporter Helm
 * chart labels it {@code app.kubernetes.io/name=dcgm-exporter} with the port {@code metrics}. A
 * slice matching any of the selectors counts once. Only ready endpoints are scraped; the node each
 * runs on names its GPUs.
 */
public final class EndpointSliceTargets implements Supplier<List<ScrapeTarget>>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EndpointSliceTargets.class);

  /** One informer per namespace and selector: discovery never looks cluster-wide. */
  private final List<SharedIndexInformer<EndpointSlice>> informers = new ArrayList<>();

  private final List<String> portNames;
  private final String path;

  /**
   * @param selectors label selectors of the exporter's Service, any of which matches
   * @param portNames the metrics port's names in order of preference; empty: the slice's first
   */
  public EndpointSliceTargets(
      KubernetesClient client,
      List<String> namespaces,
      List<String> selectors,
      List<String> portNames,
      String path) {
    this.portNames = List.copyOf(portNames);
    this.path = path.startsWith("/") ? path : "/" + path;
    if (namespaces.isEmpty() || selectors.isEmpty()) {
      throw new IllegalArgumentException(
          "dcgm-exporter discovery needs its namespaces and at least one Service selector");
    }
    log.info(
        "dcgm-exporter discovery: Services matching any of {} in namespaces {}, metrics port {}",
        selectors,
        namespaces,
        this.portNames.isEmpty() ? "the first" : "named any of " + this.portNames);
    for (String namespace : namespaces) {
      for (String selector : selectors) {
        informers.add(informer(client, namespace, selector));
      }
    }
  }

  private static SharedIndexInformer<EndpointSlice> informer(
      KubernetesClient client, String namespace, String selector) {
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
    return informer;
  }

  @Override
  public List<ScrapeTarget> get() {
    // A slice carrying both conventions' labels is in two informers: take it once, by UID.
    Map<String, EndpointSlice> slices = new LinkedHashMap<>();
    for (SharedIndexInformer<EndpointSlice> informer : informers) {
      for (EndpointSlice slice : informer.getStore().list()) {
        slices.putIfAbsent(slice.getMetadata().getUid(), slice);
      }
    }
    List<ScrapeTarget> targets = new ArrayList<>();
    for (EndpointSlice slice : slices.values()) {
      targets.addAll(targetsOf(slice, portNames, path));
    }
    return targets;
  }

  /** The scrape targets of one slice. */
  static List<ScrapeTarget> targetsOf(EndpointSlice slice, List<String> portNames, String path) {
    Integer port = metricsPort(slice.getPorts(), portNames);
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

  /** The port of the first preferred name the slice has; with no names, the slice's first port. */
  static Integer metricsPort(List<EndpointPort> ports, List<String> portNames) {
    if (ports == null || ports.isEmpty()) {
      return null;
    }
    if (portNames.isEmpty()) {
      return ports.get(0).getPort();
    }
    for (String name : portNames) {
      for (EndpointPort p : ports) {
        if (name.equals(p.getName())) {
          return p.getPort();
        }
      }
    }
    return null;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
