package io.schedlens.simulator.live;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.GpuView;
import io.schedlens.simulator.cluster.RequestSink;
import io.schedlens.simulator.cluster.SimNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Records a simulation as a real cluster would have been recorded, for {@code ./schedlens replay}:
 * {@code pods.json} and {@code events.json} as {@code kubectl get --watch --output-watch-events -o
 * json} prints them (one watch event per line), {@code objects.json} the same for the workload
 * objects pods' owner chains run through (Deployments, ReplicaSets, StatefulSets, Jobs, JobSets)
 * and the nodes whose GPUs are shared (their GPU feature discovery labels), {@code dcgm.prom} with
 * one timestamped scrape of every node's dcgm-exporter every scrape interval, and {@code
 * requests.jsonl} with the intake's fields. Objects carry a {@code metadata.resourceVersion} from
 * one cluster-wide counter, as the API server's are. Used as the simulator's {@link ClusterWriter},
 * {@link RequestSink} and {@link Simulator.Pacer} at once (the pacer sees virtual time pass, which
 * is when scrapes happen).
 */
public final class ClusterRecorder
    implements ClusterWriter, RequestSink, Simulator.Pacer, AutoCloseable {

  public static final String PODS = "pods.json";
  public static final String EVENTS = "events.json";
  public static final String DCGM = "dcgm.prom";
  public static final String REQUESTS = "requests.jsonl";
  public static final String OBJECTS = "objects.json";

  private static final KubernetesSerialization KUBE = new KubernetesSerialization();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BufferedWriter pods;
  private final BufferedWriter events;
  private final BufferedWriter dcgm;
  private final BufferedWriter requests;
  private final BufferedWriter objects;
  private final DcgmExposition exposition;
  private final List<SimNode> nodes;
  private final long scrapeIntervalMs;
  private final Map<String, Pod> lastPod = new HashMap<>();
  private final Set<String> eventsSeen = new HashSet<>();
  private final Set<String> objectsSeen = new HashSet<>();

  /**
   * The cluster's revision, as etcd counts it: every write of a pod or an event takes the next one
   * as its {@code metadata.resourceVersion}, which orders one cluster's watch events whatever file
   * they end up in.
   */
  private long revision;

  private long nextScrape;

  public ClusterRecorder(
      Path dir, GpuView gpus, List<SimNode> nodes, long origin, long scrapeIntervalMs)
      throws IOException {
    Files.createDirectories(dir);
    this.pods = Files.newBufferedWriter(dir.resolve(PODS), StandardCharsets.UTF_8);
    this.events = Files.newBufferedWriter(dir.resolve(EVENTS), StandardCharsets.UTF_8);
    this.dcgm = Files.newBufferedWriter(dir.resolve(DCGM), StandardCharsets.UTF_8);
    this.requests = Files.newBufferedWriter(dir.resolve(REQUESTS), StandardCharsets.UTF_8);
    this.objects = Files.newBufferedWriter(dir.resolve(OBJECTS), StandardCharsets.UTF_8);
    this.exposition = new DcgmExposition(gpus);
    this.nodes = nodes;
    this.scrapeIntervalMs = scrapeIntervalMs;
    this.nextScrape = origin;
  }

  @Override
  public void awaitVirtual(long at) {
    // Nothing happens between the previous event and this one: the GPUs' state now is their state
    // at every scrape time before it.
    while (nextScrape <= at) {
      for (SimNode n : nodes) {
        write(dcgm, exposition.text(n, nextScrape));
      }
      nextScrape += scrapeIntervalMs;
    }
  }

  @Override
  public void createPod(Pod pod) {
    pod(pod, "ADDED");
  }

  @Override
  public void updatePod(Pod pod) {
    pod(pod, "MODIFIED");
  }

  @Override
  public void updatePodStatus(Pod pod) {
    pod(pod, "MODIFIED");
  }

  @Override
  public void deletePod(String namespace, String name) {
    Pod last = lastPod.remove(namespace + "/" + name);
    if (last != null) {
      // a DELETED watch event carries the revision of the deletion
      last.getMetadata().setResourceVersion(Long.toString(++revision));
      watchEvent(pods, "DELETED", last);
    }
  }

  /** The workload objects (Deployments, ReplicaSets, Jobs, JobSets…), for {@code --objects}. */
  @Override
  public void applyObject(HasMetadata workload) {
    if (!isWorkload(workload)) {
      return;
    }
    HasMetadata copy = KUBE.clone(workload);
    copy.getMetadata().setResourceVersion(Long.toString(++revision));
    watchEvent(objects, objectsSeen.add(objectKey(copy)) ? "ADDED" : "MODIFIED", copy);
  }

  @Override
  public void deleteObject(HasMetadata workload) {
    if (!isWorkload(workload)) {
      return;
    }
    HasMetadata copy = KUBE.clone(workload);
    copy.getMetadata().setResourceVersion(Long.toString(++revision));
    objectsSeen.remove(objectKey(copy));
    watchEvent(objects, "DELETED", copy);
  }

  /** The experiment's ConfigMap is not an object a pod's owner chain runs through. */
  private static boolean isWorkload(HasMetadata o) {
    return !"ConfigMap".equals(o.getKind());
  }

  private static String objectKey(HasMetadata o) {
    return o.getApiVersion()
        + "/"
        + o.getKind()
        + "/"
        + o.getMetadata().getNamespace()
        + "/"
        + o.getMetadata().getName();
  }

  @Override
  public void schedulerEvent(Event event) {
    event(KUBE.clone(event), event.getMetadata());
  }

  @Override
  public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {
    event(KUBE.clone(event), event.getMetadata());
  }

  /** Events get the uid the API server would give them: one per namespace/name. */
  private void event(HasMetadata copy, ObjectMeta original) {
    String key = original.getNamespace() + "/" + original.getName();
    if (copy.getMetadata().getUid() == null) {
      copy.getMetadata()
          .setUid(UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString());
    }
    copy.getMetadata().setResourceVersion(Long.toString(++revision));
    watchEvent(events, eventsSeen.add(key) ? "ADDED" : "MODIFIED", copy);
  }

  @Override
  public void request(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      int status,
      double latencyMs,
      double ttftMs,
      String requestId) {
    String line =
        RequestShipper.line(
            time, namespace, pod, service, route, status, latencyMs, ttftMs, requestId);
    write(requests, line + "\n");
  }

  private void pod(Pod pod, String type) {
    Pod copy = KUBE.clone(pod);
    copy.getMetadata().setResourceVersion(Long.toString(++revision));
    lastPod.put(copy.getMetadata().getNamespace() + "/" + copy.getMetadata().getName(), copy);
    watchEvent(pods, type, copy);
  }

  private void watchEvent(BufferedWriter to, String type, Object object) {
    ObjectNode e = JSON.createObjectNode();
    e.put("type", type);
    e.set("object", JSON.valueToTree(KUBE.convertValue(object, Map.class)));
    write(to, e + "\n");
  }

  private static void write(BufferedWriter w, String s) {
    try {
      w.write(s);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the recording", e);
    }
  }

  @Override
  public void close() throws IOException {
    for (BufferedWriter w : List.of(pods, events, dcgm, requests, objects)) {
      w.close();
    }
  }
}
