package io.schedlens.check;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Kubernetes objects from manifest files, folders (every .yaml, .yml and .json below them) or
 * standard input ({@code kubectl kustomize} output): YAML documents or JSON values (JSON is YAML),
 * Lists unpacked. Files that are no Kubernetes objects (a kustomization.yaml) are skipped.
 *
 * <p>The tree of each document is built here from the parser's tokens rather than with Jackson's
 * {@code readTree}, because Jackson's trees keep no source locations, and a finding in SARIF must
 * name the line of its field.
 */
public final class Manifests {

  private static final YAMLFactory YAML = new YAMLFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  private Manifests() {}

  public static List<Manifest> load(List<String> paths, String stdin) throws IOException {
    List<Manifest> out = new ArrayList<>();
    for (String p : paths) {
      if (p.equals("-")) {
        parse(stdin, null, out);
        continue;
      }
      Path path = Path.of(p);
      if (!Files.exists(path)) {
        throw new IOException("no such file or folder: " + p);
      }
      List<Path> files;
      try (Stream<Path> walk = Files.walk(path)) {
        files =
            walk.filter(Files::isRegularFile)
                .filter(f -> f.toString().matches(".*\\.(ya?ml|json)$"))
                .filter(f -> !f.toString().contains("/target/"))
                .sorted()
                .toList();
      }
      for (Path f : files) {
        parse(Files.readString(f), f.toString(), out);
      }
    }
    return out;
  }

  /** The objects of one text; {@code file} null for standard input. */
  static void parse(String text, String file, List<Manifest> out) throws IOException {
    try (JsonParser p = YAML.createParser(text)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        Map<String, Integer> lines = new HashMap<>();
        int line = p.currentTokenLocation().getLineNr();
        JsonNode node = read(p, t, "", lines);
        add(node, file, line, lines, "", out);
      }
    } catch (JsonProcessingException e) {
      throw new IOException(
          (file == null ? "standard input" : file)
              + " is not valid YAML or JSON: "
              + e.getOriginalMessage()
              + " (line "
              + (e.getLocation() == null ? "?" : e.getLocation().getLineNr())
              + ")",
          e);
    }
  }

  /** The value starting at the current token, recording the line of each field and element. */
  private static JsonNode read(
      JsonParser p, JsonToken t, String pointer, Map<String, Integer> lines) throws IOException {
    lines.putIfAbsent(pointer, p.currentTokenLocation().getLineNr());
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          String child = pointer + "/" + FieldPath.escape(name);
          lines.put(child, p.currentTokenLocation().getLineNr());
          o.set(name, read(p, p.nextToken(), child, lines));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        JsonToken e;
        while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
          a.add(read(p, e, pointer + "/" + a.size(), lines));
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDecimalValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> {
        Object embedded = p.getEmbeddedObject();
        return embedded == null ? NODES.nullNode() : NODES.textNode(embedded.toString());
      }
    }
  }

  private static void add(
      JsonNode node,
      String file,
      int line,
      Map<String, Integer> lines,
      String pointer,
      List<Manifest> out) {
    if (node == null || !node.isObject() || !node.has("kind") || !node.has("apiVersion")) {
      return;
    }
    String kind = node.path("kind").asText();
    if (kind.endsWith("List") && node.path("items").isArray()) {
      for (int i = 0; i < node.path("items").size(); i++) {
        String item = pointer + "/items/" + i;
        add(node.path("items").get(i), file, lines.getOrDefault(item, line), lines, item, out);
      }
      return;
    }
    if (kind.equals("Kustomization") || kind.equals("Component")) {
      return;
    }
    if (!node.path("metadata").isObject()) {
      ((ObjectNode) node).putObject("metadata");
    }
    HasMetadata object = KUBE.unmarshal(node.toString());
    out.add(new Manifest(object, node, file, line, relativeTo(pointer, lines)));
  }

  /** The lines of a List item's fields, by pointers relative to the item. */
  private static Map<String, Integer> relativeTo(String pointer, Map<String, Integer> lines) {
    if (pointer.isEmpty()) {
      return lines;
    }
    Map<String, Integer> out = new HashMap<>();
    lines.forEach(
        (k, v) -> {
          if (k.startsWith(pointer + "/")) {
            out.put(k.substring(pointer.length()), v);
          }
        });
    return out;
  }
}
