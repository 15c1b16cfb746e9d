package io.schedlens.base;

/** Kueue's names that more than one part of schedlens reads. */
public final class KueueNames {

  /** Kueue's API group. */
  public static final String GROUP = "kueue.x-k8s.io";

  /** The label that names a Job's or pod's LocalQueue. */
  public static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

  /** The label that names a workload's WorkloadPriorityClass. */
  public static final String PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class";

  private KueueNames() {}
}
