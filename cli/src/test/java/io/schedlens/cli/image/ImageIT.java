package io.schedlens.cli.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;

/**
 * The container image's configuration, from the tarball {@code mvn package} builds with Jib on an
 * empty base (no registry here): what the manifests in deploy/ rely on. The eclipse-temurin base
 * and running the image are checked where a registry is reachable (README, "Container image").
 */
class ImageIT {

  static final Path TAR = Path.of("target/jib-offline-image.tar");
  static final ObjectMapper JSON = new ObjectMapper();

  /** The tarball's small JSON entries (manifest and image config), by name. */
  static Map<String, byte[]> jsonEntries() throws Exception {
    Map<String, byte[]> out = new HashMap<>();
    try (InputStream in = Files.newInputStream(TAR);
        TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
      TarArchiveEntry e;
      while ((e = tar.getNextEntry()) != null) {
        if (e.getName().endsWith(".json")) {
          out.put(e.getName(), tar.readAllBytes());
        }
      }
    }
    return out;
  }

  @Test
  void shouldRunTheLauncherAsANonRootNumericUserWithJavaToolOptions() throws Exception {
    Map<String, byte[]> entries = jsonEntries();
    JsonNode manifest = JSON.readTree(entries.get("manifest.json")).get(0);
    assertThat(manifest.path("RepoTags").get(0).asText())
        .startsWith("ghcr.io/schedlens/schedlens:");
    JsonNode config = JSON.readTree(entries.get(manifest.path("Config").asText())).path("config");

    List<String> entrypoint = JSON.convertValue(config.path("Entrypoint"), List.class);
    assertThat(entrypoint).startsWith("java").contains("io.schedlens.cli.Main");
    assertThat(config.path("User").asText()).isEqualTo("65532:65532");
    assertThat(config.path("ExposedPorts").properties())
        .extracting(Map.Entry::getKey)
        .containsExactlyInAnyOrder("9470/tcp", "9471/tcp");
    List<String> env = JSON.convertValue(config.path("Env"), List.class);
    assertThat(env)
        .anyMatch(v -> v.startsWith("JAVA_TOOL_OPTIONS=") && v.contains("MaxRAMPercentage"));
    assertThat(config.path("Labels").path("org.opencontainers.image.version").asText())
        .isNotBlank();
    assertThat(Set.of("org.opencontainers.image.source", "org.opencontainers.image.title"))
        .allMatch(l -> config.path("Labels").has(l));
  }
}
