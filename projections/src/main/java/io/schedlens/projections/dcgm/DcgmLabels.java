package io.schedlens.projections.dcgm;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one alias table for dcgm-exporter's label spellings, which differ by exporter version, flags
 * and the path the samples took:
 *
 * <ul>
 *   <li>{@code Hostname} (before dcgm-exporter PR #655) or {@code hostname};
 *   <li>{@code UUID} or {@code uuid};
 *   <li>pod attribution as {@code pod/namespace/container}, the old {@code
 *       pod_name/pod_namespace/container_name} ({@code --use-old-namespace}), or {@code
 *       exported_pod/exported_namespace/exported_container} when Prometheus (with the default
 *       {@code honor_labels: false}) moved them aside for its own target labels;
 *   <li>an unattributed GPU has the pod labels absent, or present and empty.
 * </ul>
 *
 * <p>Samples that went through Prometheus carry its target labels ({@code instance}, {@code job});
 * in them {@code pod}, {@code namespace} and {@code container} name the dcgm-exporter pod that was
 * scraped, not a workload, so only the {@code exported_} spellings attribute a GPU.
 */
final class DcgmLabels {

  static final List<String> NODE = List.of("Hostname", "hostname");
  static final List<String> UUID = List.of("UUID", "uuid");
  static final List<String> GPU = List.of("gpu");
  static final List<String> DEVICE = List.of("device");
  static final List<String> MODEL = List.of("modelName", "modelname");
  static final List<String> MIG_PROFILE = List.of("GPU_I_PROFILE");
  static final List<String> MIG_INSTANCE = List.of("GPU_I_ID");
  static final List<String> POD_DIRECT = List.of("pod", "pod_name");
  static final List<String> NAMESPACE_DIRECT = List.of("namespace", "pod_namespace");
  static final List<String> CONTAINER_DIRECT = List.of("container", "container_name");
  static final List<String> POD_UID_DIRECT = List.of("pod_uid");
  static final List<String> POD_EXPORTED = List.of("exported_pod");
  static final List<String> NAMESPACE_EXPORTED = List.of("exported_namespace");
  static final List<String> CONTAINER_EXPORTED = List.of("exported_container");
  static final List<String> POD_UID_EXPORTED = List.of("exported_pod_uid");

  /** Labels Prometheus adds to every scraped series (target labels), never GPU facts. */
  static final Set<String> PROMETHEUS_TARGET_LABELS =
      Set.of(
          "instance", "job", "endpoint", "service", "prometheus", "prometheus_replica", "__name__");

  /** Every label this table interprets; the rest are kept as plain labels of the sample. */
  static final Set<String> INTERPRETED =
      Set.of(
          "Hostname",
          "hostname",
          "UUID",
          "uuid",
          "gpu",
          "device",
          "modelName",
          "modelname",
          "GPU_I_PROFILE",
          "GPU_I_ID",
          "pod",
          "pod_name",
          "namespace",
          "pod_namespace",
          "container",
          "container_name",
          "pod_uid",
          "exported_pod",
          "exported_namespace",
          "exported_container",
          "exported_pod_uid");

  private DcgmLabels() {}

  /** The first non-empty value among the aliases, or null: absent and empty both mean unknown. */
  static String first(Map<String, String> labels, List<String> aliases) {
    for (String alias : aliases) {
      String v = labels.get(alias);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }

  /** Whether the series passed through Prometheus (which added its target labels). */
  static boolean viaPrometheus(Map<String, String> labels) {
    return labels.containsKey("instance") || labels.containsKey("job");
  }
}
