package io.schedlens.topology;

import io.schedlens.schemas.PublishedStores;

/**
 * The names of the topology's stores and sinks, at its bottom: the stages, the wiring and the
 * published stores read them here, so that nothing reads a name back from what builds it. A store's
 * name is its changelog topic's: pinned by the topology test, as a rename would lose state on
 * upgrade.
 */
public final class TopologyNames {

  public static final String PODS_BY_NAME_STORE = "pods-by-name";
  public static final String INPUT_SECONDS_STORE = "input-seconds";

  /** The closed points of live pods' series, by UID ({@link PodSeriesStore}). */
  public static final String POD_SERIES_STORE = "pod-series";

  /** The ids of settled seconds' lines and samples, by pod name ({@link RequestIdWindows}). */
  public static final String REQUEST_ID_WINDOWS_STORE = "request-id-windows";

  /**
   * Where releases before {@link #REQUEST_ID_WINDOWS_STORE} kept those ids: read at start, moved
   * into the windows and emptied; kept in the topology so that an upgrade carries them.
   */
  public static final String LEGACY_REQUEST_IDS_STORE = "request-ids";

  public static final String POD_TIMERS_STORE = "pod-timers";
  public static final String POD_PROGRESS_STORE = "pod-progress";
  public static final String WORKLOADS_STORE = "workloads";
  public static final String WORKLOAD_PODS_STORE = "workload-pods";
  public static final String WORKLOAD_SECONDS_STORE = "workload-seconds";
  public static final String NODES_STORE = "nodes";
  public static final String NODE_TIMERS_STORE = "node-timers";
  public static final String PUBLISHED_STORE = PublishedStores.TIMELINES;
  public static final String PUBLISHED_WORKLOADS_STORE = PublishedStores.WORKLOADS;

  static final String PODS_TO_POD_SINK = "pods-to-pod-sink";
  static final String PODS_TO_WORKLOAD_SINK = "pods-to-workload-sink";
  static final String PODS_TO_NODE_SINK = "pods-to-node-sink";
  static final String POD_TIMELINES_SINK = "pod-timelines-sink";
  static final String PREEMPTIONS_SINK = "preemptions-sink";
  static final String PODS_DLQ_SINK = "pods-dlq-sink";
  static final String WORKLOADS_TO_POD_SINK = "workloads-to-pod-sink";
  static final String WORKLOAD_TIMELINES_SINK = "workload-timelines-sink";
  static final String WORKLOADS_DLQ_SINK = "workloads-dlq-sink";
  static final String NODES_TO_POD_SINK = "nodes-to-pod-sink";

  private TopologyNames() {}
}
