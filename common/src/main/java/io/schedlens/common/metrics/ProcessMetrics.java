package io.schedlens.common.metrics;

import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What every schedlens process exposes beside its own metrics: client_java's JVM and process
 * metrics ({@code jvm_memory_*}, {@code jvm_gc_*}, {@code jvm_threads_*}, {@code
 * process_cpu_seconds_total}, {@code process_resident_memory_bytes}, {@code process_open_fds}, …)
 * and {@code schedlens_build_info{version, commit}}.
 */
public final class ProcessMetrics {

  private ProcessMetrics() {}

  public static void register(PrometheusRegistry registry) {
    JvmMetrics.builder().register(registry);
    BuildInfo build = BuildInfo.current();
    Info.builder()
        .name("schedlens_build_info")
        .help("The version and commit of the running schedlens build (always 1).")
        .labelNames("version", "commit")
        .register(registry)
        .setLabelValues(build.version(), build.commit());
  }
}
