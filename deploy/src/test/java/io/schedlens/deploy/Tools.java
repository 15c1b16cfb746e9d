package io.schedlens.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the command-line tools the manifests are meant for: kubectl, promtool. */
final class Tools {

  private Tools() {}

  record Run(int exit, String output) {}

  static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Fails the calling test with one line naming what to install when the tool is not there: a
   * skipped test proves nothing, and {@code ./schedlens selftest} installs what it can.
   */
  static void require(String tool, String install) {
    if (!onPath(tool)) {
      throw new AssertionError(tool + " is not on PATH: " + install);
    }
  }

  static Run run(Path dir, String... command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(new ArrayList<>(List.of(command)))
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish in 2 minutes");
    }
    return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** The manifests {@code kubectl kustomize DIR} builds; fails with kubectl's message if not. */
  static String kustomize(Path dir) throws IOException, InterruptedException {
    require(
        "kubectl",
        "install kubectl (Kubernetes' own package, 1.21 or later: Debian's kubernetes-client is"
            + " too old for the kustomizations' labels field) to build deploy/experiment");
    Run r = run(dir, "kubectl", "kustomize", ".");
    if (r.exit() != 0) {
      throw new AssertionError("kubectl kustomize " + dir + " failed:\n" + r.output());
    }
    return r.output();
  }
}
