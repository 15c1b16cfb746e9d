package io.schedlens.schemas;

/**
 * The names of the stores the serving side reads: the topology keeps the published pod and workload
 * timelines in them (read-only stores over the published topics), the API, the pages and the gauges
 * query them. A contract between the two, beside the topics' ({@link Topics}): neither depends on
 * the other. The names are pinned by the topology test: a rename would lose state on upgrade.
 */
public final class PublishedStores {

  /** Pod timelines by UID, the newest of each. */
  public static final String TIMELINES = "published-timelines";

  /** Workload timelines by {@code namespace/kind/name}, the newest of each. */
  public static final String WORKLOADS = "published-workloads";

  private PublishedStores() {}
}
