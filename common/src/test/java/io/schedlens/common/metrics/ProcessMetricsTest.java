package io.schedlens.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProcessMetricsTest {

  @Test
  void shouldExposeJvmAndProcessMetricsAndTheBuild() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    ProcessMetrics.register(registry);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("jvm_memory_used_bytes{area=\"heap\"}")
        .contains("jvm_gc_collection_seconds")
        .contains("jvm_threads_current")
        .contains("process_cpu_seconds_total")
        .contains("process_start_time_seconds");
    BuildInfo build = BuildInfo.current();
    assertThat(text)
        .contains(
            "schedlens_build_info{commit=\""
                + build.commit()
                + "\",version=\""
                + build.version()
                + "\"} 1");
  }

  @Test
  void shouldKnowTheVersionAndCommitItWasBuiltFrom() {
    BuildInfo build = BuildInfo.current();
    // Maven filled the properties in: the project's version, and the commit (or "unknown" when
    // built outside a git checkout).
    assertThat(build.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(build.commit()).matches("[0-9a-f]{7}(-dirty)?|unknown");
    assertThat(build.describe()).isEqualTo(build.version() + " (commit " + build.commit() + ")");
  }
}
