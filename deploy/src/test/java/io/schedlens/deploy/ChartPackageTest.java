package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's chart: packaged by Helm's own code with its schema, README and dashboards (the
 * links in the source tree resolved), and it renders from the archive as from the tree.
 */
class ChartPackageTest {

  @Test
  void shouldPackageTheChartWithItsSchemaReadmeAndDashboards(@TempDir Path out) throws Exception {
    Path tgz = ChartRelease.packageChart(out);
    String version =
        Manifests.YAML
            .readTree(Chart.dir().resolve("Chart.yaml").toFile())
            .path("version")
            .asText();
    assertThat(tgz.getFileName().toString()).isEqualTo("schedlens-" + version + ".tgz");

    List<String> entries = new ArrayList<>();
    try (InputStream in = Files.newInputStream(tgz);
        TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(in))) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        entries.add(e.getName());
      }
    }
    assertThat(entries)
        .contains(
            "schedlens/Chart.yaml",
            "schedlens/values.yaml",
            "schedlens/values.schema.json",
            "schedlens/README.md",
            "schedlens/files/dashboards/gpu-priority-preemption.json",
            "schedlens/templates/streams.yaml",
            "schedlens/examples/production.yaml");

    String fromArchive =
        new Helm(tgz)
            .template()
            .withName("schedlens")
            .withNamespace("schedlens")
            .withKubeVersion(Chart.KUBE_VERSION)
            .call();
    assertThat(fromArchive).isEqualTo(Chart.template(Chart.Install.of()));
  }
}
