package io.schedlens.check;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;
import java.util.Objects;

/**
 * One Kubernetes object of the manifests, with where it was written: the file (null for standard
 * input or the cluster), the line its document starts on, and the line of every field (by JSON
 * pointer), so that a finding can point at the line of the field it is about.
 *
 * @param node the object as it was written, for resolving field paths
 * @param lines JSON pointer (e.g. {@code /spec/template/spec/containers/0}) to its 1-based line
 */
public record Manifest(
    HasMetadata object, JsonNode node, String file, int line, Map<String, Integer> lines) {

  /** An object that was not read from a file (the live cluster, a test). */
  public static Manifest of(HasMetadata object) {
    return new Manifest(object, null, null, 0, Map.of());
  }

  public String kind() {
    return object.getKind();
  }

  public String namespace() {
    return object.getMetadata().getNamespace();
  }

  public String name() {
    return object.getMetadata().getName();
  }

  /** {@code Kind namespace/name}, or {@code Kind name} for cluster-scoped objects. */
  public String ref() {
    return kind() + " " + (namespace() == null ? "" : namespace() + "/") + name();
  }

  /** Whether the other object is in the same namespace (the default one when neither names one). */
  public boolean sameNamespace(Manifest other) {
    return Objects.equals(namespace(), other.namespace());
  }

  /**
   * The line of a field, given as a finding names it ({@code spec.template.spec.containers[server]
   * .resources}, {@code metadata.annotations[schedlens.io/checkpoint-interval]}): the line of the
   * deepest part of the path that exists in the manifest (a missing field points at its parent),
   * the document's first line when none does, 0 when the object was not read from text.
   */
  public int lineOf(String fieldPath) {
    if (node == null) {
      return line;
    }
    int found = line;
    JsonNode at = node;
    StringBuilder pointer = new StringBuilder();
    for (FieldPath.Step step : FieldPath.parse(fieldPath)) {
      JsonNode next = at.get(step.name());
      if (next == null) {
        return found;
      }
      pointer.append('/').append(FieldPath.escape(step.name()));
      at = next;
      found = lines.getOrDefault(pointer.toString(), found);
      if (step.selector() == null) {
        continue;
      }
      if (at.isObject() && at.has(step.selector())) {
        pointer.append('/').append(FieldPath.escape(step.selector()));
        at = at.get(step.selector());
      } else if (at.isArray()) {
        int index = FieldPath.indexIn(at, step.selector());
        if (index < 0) {
          return found;
        }
        pointer.append('/').append(index);
        at = at.get(index);
      } else {
        return found;
      }
      found = lines.getOrDefault(pointer.toString(), found);
    }
    return found;
  }
}
