package io.schedlens.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** Paths in the repository, found from the module's directory wherever Maven runs. */
final class Repository {

  private Repository() {}

  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("grafana/dashboards")) && Files.exists(dir.resolve("deploy"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "run the tests from inside the schedlens repository (grafana/ and deploy/ not found)");
  }

  static Path path(String relative) {
    return root().resolve(relative);
  }
}
