package io.schedlens.projections.recorded;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.schedlens.avro.ChangeType;
import io.schedlens.projections.k8s.NodeGpuLabels;
import io.schedlens.projections.k8s.OwnerChain;
import io.schedlens.projections.k8s.QueueWorkloadProjection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads Pods, Events, Kueue Workloads and the objects pods' controller chains run through (any
 * other kind with a name and a UID: ReplicaSets, Jobs, JobSets…), recorded from a cluster, in every
 * form kubectl and watch recorders write them: a stream of JSON values (one per line or
 * pretty-printed one after another), or YAML documents separated by {@code ---}; each value a Pod,
 * an Event (core/v1 or events.k8s.io/v1), a watch envelope {@code {"type": ..., "object": ...}} as
 * {@code kubectl get --watch --output-watch-events -o json} prints, or a List of those as {@code
 * kubectl get -o json} prints. What cannot be used is counted by reason with an example, never
 * fatal for the rest; a syntax error ends the file at that point (a stream cannot be resynchronised
 * reliably).
 */
public final class RecordedObjects {

  /**
   * One usable object, with the change it was recorded as and the line of the file its value (or
   * the List holding it) starts on.
   */
  public sealed interface Item
      permits PodItem, CoreEventItem, EventsV1Item, QueueWorkloadItem, OwnerItem, NodeItem {
    ChangeType change();

    int line();
  }

  public record PodItem(Pod pod, ChangeType change, int line) implements Item {}

  public record CoreEventItem(Event event, ChangeType change, int line) implements Item {}

  public record EventsV1Item(
      io.fabric8.kubernetes.api.model.events.v1.Event event, ChangeType change, int line)
      implements Item {}

  /**
   * A Kueue Workload ({@code kubectl get workloads.kueue.x-k8s.io -A -o json}, or its watch), read
   * as it came: {@link io.schedlens.projections.k8s.QueueWorkloadProjection} reads it.
   */
  public record QueueWorkloadItem(GenericKubernetesResource workload, ChangeType change, int line)
      implements Item {}

  /**
   * A Node ({@code kubectl get nodes -o json}, or its watch), kept as its name and NVIDIA labels
   * ({@link NodeGpuLabels#retainRead}): what its pods' GPU sharing is read from.
   */
  public record NodeItem(Node node, ChangeType change, int line) implements Item {}

  /**
   * An object of another kind (a ReplicaSet, a Job, a JobSet, a RayCluster…), kept as what a pod's
   * controller chain needs of it.
   */
  public record OwnerItem(OwnerChain.Owner owner, ChangeType change, int line) implements Item {}

  public static final String UNPARSEABLE = "unparseable";
  public static final String NOT_AN_OBJECT = "not-a-kubernetes-object";

  /** An object of another kind without the name and UID a controller chain would need. */
  public static final String OTHER_KIND = "not-a-pod-or-event";

  public static final String WATCH_ERROR = "watch-error";
  public static final String INVALID_OBJECT = "invalid-object";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  private RecordedObjects() {}

  /** Reads one file's content; {@code unusable} receives what could not be used. */
  public static List<Item> read(String content, Unusable unusable) {
    List<Item> items = new ArrayList<>();
    String trimmed = content.stripLeading();
    boolean json = trimmed.startsWith("{") || trimmed.startsWith("[");
    try {
      JsonParser parser =
          json ? JSON.getFactory().createParser(content) : new YAMLFactory().createParser(content);
      MappingIterator<JsonNode> it =
          (json ? JSON : YAML).readerFor(JsonNode.class).readValues(parser);
      while (true) {
        JsonNode node;
        int line;
        try {
          if (!it.hasNextValue()) {
            break;
          }
          line = parser.currentTokenLocation().getLineNr();
          node = it.nextValue();
        } catch (JsonProcessingException e) {
          unusable.add(
              UNPARSEABLE,
              e.getOriginalMessage()
                  + " at "
                  + location(e)
                  + "; the rest of this input is skipped");
          break;
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
          continue;
        }
        if (node.isArray()) {
          node.forEach(n -> value(n, null, line, items, unusable));
        } else {
          value(node, null, line, items, unusable);
        }
      }
    } catch (IOException e) {
      unusable.add(UNPARSEABLE, e.getMessage());
    }
    return items;
  }

  private static String location(JsonProcessingException e) {
    return e.getLocation() == null
        ? "an unknown place"
        : "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  private static void value(
      JsonNode node, ChangeType change, int line, List<Item> items, Unusable unusable) {
    if (!node.isObject()) {
      unusable.add(NOT_AN_OBJECT, abbreviate(node.toString()));
      return;
    }
    if (node.has("type") && node.has("object") && node.path("object").isObject()) {
      String type = node.path("type").asText();
      switch (type) {
        case "ADDED" -> value(node.path("object"), ChangeType.ADDED, line, items, unusable);
        case "MODIFIED" -> value(node.path("object"), ChangeType.MODIFIED, line, items, unusable);
        case "DELETED" -> value(node.path("object"), ChangeType.DELETED, line, items, unusable);
        case "BOOKMARK" -> {
          // a resourceVersion marker, no object state
        }
        default ->
            unusable.add(WATCH_ERROR, type + ": " + abbreviate(node.path("object").toString()));
      }
      return;
    }
    String kind = node.path("kind").asText("");
    String apiVersion = node.path("apiVersion").asText("");
    if (kind.endsWith("List") && node.path("items").isArray()) {
      // A list is a snapshot of current state: like the collector's relist.
      node.path("items")
          .forEach(
              i ->
                  value(
                      withKind(i, kind.substring(0, kind.length() - 4), apiVersion),
                      ChangeType.RELIST,
                      line,
                      items,
                      unusable));
      return;
    }
    ChangeType c = change == null ? ChangeType.ADDED : change;
    try {
      if (kind.equals("Pod") && apiVersion.equals("v1")) {
        items.add(new PodItem(KUBE.unmarshal(node.toString(), Pod.class), c, line));
      } else if (kind.equals("Event") && apiVersion.equals("v1")) {
        items.add(new CoreEventItem(KUBE.unmarshal(node.toString(), Event.class), c, line));
      } else if (kind.equals("Event") && apiVersion.equals("events.k8s.io/v1")) {
        items.add(
            new EventsV1Item(
                KUBE.unmarshal(
                    node.toString(), io.fabric8.kubernetes.api.model.events.v1.Event.class),
                c,
                line));
      } else if (kind.equals("Node") && apiVersion.equals("v1")) {
        items.add(
            new NodeItem(
                NodeGpuLabels.retainRead(KUBE.unmarshal(node.toString(), Node.class)), c, line));
      } else if (kind.equals("Workload")
          && apiVersion.startsWith(QueueWorkloadProjection.GROUP + "/")) {
        items.add(
            new QueueWorkloadItem(
                KUBE.unmarshal(node.toString(), GenericKubernetesResource.class), c, line));
      } else if (kind.isEmpty()) {
        unusable.add(NOT_AN_OBJECT, "no kind: " + abbreviate(node.toString()));
      } else if (node.path("metadata").path("uid").isTextual()
          && node.path("metadata").path("name").isTextual()) {
        items.add(new OwnerItem(owner(node, apiVersion, kind), c, line));
      } else {
        unusable.add(OTHER_KIND, apiVersion + " " + kind);
      }
    } catch (RuntimeException e) {
      unusable.add(INVALID_OBJECT, kind + ": " + e.getMessage());
    }
  }

  /** What a controller chain needs of an object: its metadata only, whatever its kind. */
  private static OwnerChain.Owner owner(JsonNode node, String apiVersion, String kind) {
    ObjectMeta meta = KUBE.unmarshal(node.path("metadata").toString(), ObjectMeta.class);
    return new OwnerChain.Owner(
        apiVersion,
        kind,
        meta.getName(),
        meta.getUid(),
        OwnerChain.Ref.controllerOf(meta.getOwnerReferences()));
  }

  /** Items of a typed list (PodList) may omit their own kind and apiVersion. */
  private static JsonNode withKind(JsonNode item, String kind, String apiVersion) {
    if (!item.isObject() || item.has("kind")) {
      return item;
    }
    var copy = ((ObjectNode) item).deepCopy();
    copy.put("kind", kind);
    copy.put("apiVersion", apiVersion);
    return copy;
  }

  static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 117) + "...";
  }
}
