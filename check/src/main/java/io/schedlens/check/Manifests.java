package io.schedlens.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Kubernetes objects from manifest files, folders (every .yaml, .yml and .json below them) or
 * standard input ({@code kubectl kustomize} output): YAML documents or JSON values, Lists unpacked.
 * Files that are no Kubernetes objects (a kustomization.yaml) are skipped.
 */
public final class Manifests {

  private static final ObjectMapper YAML = new YAMLMapper();
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  private Manifests() {}

  public static List<HasMetadata> load(List<String> paths, String stdin) throws IOException {
    List<HasMetadata> out = new ArrayList<>();
    for (String p : paths) {
      if (p.equals("-")) {
        parse(stdin, "standard input", out);
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

  static void parse(String text, String source, List<HasMetadata> out) throws IOException {
    try (var it =
        YAML.readerFor(JsonNode.class).<JsonNode>readValues(new YAMLFactory().createParser(text))) {
      while (it.hasNext()) {
        add(it.next(), out);
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IOException(source + " is not valid YAML or JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static void add(JsonNode node, List<HasMetadata> out) {
    if (node == null || !node.isObject() || !node.has("kind") || !node.has("apiVersion")) {
      return;
    }
    String kind = node.path("kind").asText();
    if (kind.endsWith("List") && node.path("items").isArray()) {
      node.path("items").forEach(i -> add(i, out));
      return;
    }
    if (kind.equals("Kustomization") || kind.equals("Component")) {
      return;
    }
    if (!node.path("metadata").isObject()) {
      ((ObjectNode) node).putObject("metadata");
    }
    out.add(KUBE.unmarshal(node.toString()));
  }
}
