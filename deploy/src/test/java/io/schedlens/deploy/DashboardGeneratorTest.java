package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed dashboards are the generator's output: grafana/generate_dashboards.py run into a
 * temporary directory gives the same files, byte for byte (an edit of the JSON by hand, or of the
 * generator without regenerating, fails here).
 */
class DashboardGeneratorTest {

  @TempDir Path out;

  @Test
  void shouldCommitExactlyWhatTheGeneratorWrites() throws Exception {
    Process p =
        new ProcessBuilder(
                "python3",
                Repository.path("grafana/generate_dashboards.py").toString(),
                out.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the generator finishes").isTrue();
    assertThat(p.exitValue())
        .as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .isZero();

    List<Path> committed;
    try (Stream<Path> files = Files.list(Repository.path("grafana/dashboards"))) {
      committed = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files.map(f -> f.getFileName().toString()).sorted())
          .containsExactlyElementsOf(
              committed.stream().map(f -> f.getFileName().toString()).toList());
    }
    for (Path c : committed) {
      assertThat(Files.readString(out.resolve(c.getFileName())))
          .as("%s: run `python3 grafana/generate_dashboards.py` and commit its output", c)
          .isEqualTo(Files.readString(c));
    }
  }
}
