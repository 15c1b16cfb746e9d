package io.schedlens.simulator.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;

/**
 * Where the simulated cluster's objects go: a Kubernetes API (live runs) or nowhere (what-if runs
 * that only need the ground truth). Calls come from the simulation thread, in virtual-time order.
 */
public interface ClusterWriter {

  /** A new pod (POST). */
  void createPod(Pod pod);

  /** Metadata or spec changed (PUT): binding, annotations, the deletion mark. */
  void updatePod(Pod pod);

  /** Status changed (PUT on the status subresource), as the scheduler and the kubelet write it. */
  void updatePodStatus(Pod pod);

  /** The pod object is removed (the kubelet's final delete, or a terminal pod's clean-up). */
  void deletePod(String namespace, String name);

  /** A scheduler event, created or (a series) updated. */
  void schedulerEvent(Event event);

  /** A kubelet event. */
  void kubeletEvent(io.fabric8.kubernetes.api.model.Event event);

  /**
   * A workload object (Deployment, Job) created or changed, as its controller's user applies it.
   */
  default void applyObject(HasMetadata workload) {}

  /** Such an object removed (a Job's TTL after it finished). */
  default void deleteObject(HasMetadata workload) {}

  ClusterWriter NONE =
      new ClusterWriter() {
        @Override
        public void createPod(Pod pod) {}

        @Override
        public void updatePod(Pod pod) {}

        @Override
        public void updatePodStatus(Pod pod) {}

        @Override
        public void deletePod(String namespace, String name) {}

        @Override
        public void schedulerEvent(Event event) {}

        @Override
        public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {}
      };
}
