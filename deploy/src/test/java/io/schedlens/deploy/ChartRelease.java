package io.schedlens.deploy;

import com.marcnuri.helm.Helm;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The chart as it is released: packaged by Helm's own code (helm-java) beside the image, and on a
 * version tag pushed to an OCI registry (.github/workflows/release.yml runs {@link #main}). {@code
 * ChartPackageTest} packages it in every build.
 */
public final class ChartRelease {

  private ChartRelease() {}

  /** Packages the chart into {@code destination}: {@code schedlens-VERSION.tgz}. */
  static Path packageChart(Path destination) throws Exception {
    Files.createDirectories(destination);
    new Helm(Chart.dir()).packageIt().withDestination(destination).call();
    try (var files = Files.list(destination)) {
      return files
          .filter(p -> p.getFileName().toString().matches("schedlens-.+\\.tgz"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("helm package wrote no schedlens-*.tgz"));
    }
  }

  /**
   * {@code DIR [oci://REGISTRY/PATH]}: packages the chart into DIR and, with a registry, logs in
   * with HELM_REGISTRY_USER and HELM_REGISTRY_PASSWORD and pushes it there.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: ChartRelease DIR [oci://REGISTRY/PATH]");
      System.exit(2);
    }
    Path chart = packageChart(Path.of(args[0]));
    System.out.println("packaged " + chart);
    if (args.length == 2) {
      URI remote = URI.create(args[1]);
      String user = System.getenv("HELM_REGISTRY_USER");
      String password = System.getenv("HELM_REGISTRY_PASSWORD");
      if (!"oci".equals(remote.getScheme()) || user == null || password == null) {
        System.err.println(
            "push: give an oci:// registry and HELM_REGISTRY_USER, HELM_REGISTRY_PASSWORD");
        System.exit(2);
      }
      Helm.registry()
          .login()
          .withHost(remote.getHost())
          .withUsername(user)
          .withPassword(password)
          .call();
      System.out.println(Helm.push().withChart(chart).withRemote(remote).call());
    }
  }
}
